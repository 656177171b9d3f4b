#!/usr/bin/env bash
# Installs the reference tokenizers that the test vectors and the benchmark compare against into
# DIR (default: build/tokenizer-refs), pinned, without running any package script:
#   @anush008/tokenizers  Hugging Face's Rust `tokenizers` crate through N-API
#   tiktoken              OpenAI's tiktoken compiled to WebAssembly
#   @sctg/sentencepiece-js SentencePiece compiled to WebAssembly
# Nothing is installed globally; a second run with everything present does nothing.
set -euo pipefail
DIR=${1:-build/tokenizer-refs}
PACKAGES=(@anush008/tokenizers@0.6.0 tiktoken@1.0.22 @sctg/sentencepiece-js@1.3.3)

mkdir -p "$DIR"
cd "$DIR"
stamp="installed-$(echo "${PACKAGES[*]}" | tr ' /@' '_+=')"
if [ -f "$stamp" ]; then
  exit 0
fi
[ -f package.json ] || echo '{"name": "tokenbench-tokenizer-refs", "private": true}' >package.json
if ! npm install --ignore-scripts --no-audit --no-fund --silent "${PACKAGES[@]}"; then
  echo "install-tokenizer-refs: error: npm install failed (is the npm registry reachable?)" >&2
  exit 1
fi
touch "$stamp"
