#!/usr/bin/env bash
# CTest `package_install` (tests/CMakeLists.txt): the Debian package of `make package`, built with
# cpack into a scratch directory, installed with dpkg into a scratch root (no root needed, the
# machine's own dpkg database untouched), used, and removed.
#   package_test.sh BUILD_DIR VERSION
# Checks: the package's metadata; the installed binary's --version; the installed serve-sim
# benchmarked by the installed run (a few requests); the man page renders; the bash completion
# completes; the zsh completion parses; docs, copyright and uPlot's license in place; after
# `dpkg -r`, every file gone. Exits 77 (CTest: skipped) when cpack or dpkg-deb is missing.
set -euo pipefail

build=$(cd "$1" && pwd)
version=$2
source_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
for tool in cpack dpkg-deb dpkg; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "package_test: SKIPPED: $tool is not installed (Debian's dpkg and cmake packages)"
    exit 77
  fi
done

scratch=$(mktemp -d "${TMPDIR:-/tmp}/tokenbench-package.XXXXXX")
# shellcheck source=../../scripts/serve_sim.sh
source "$source_dir/scripts/serve_sim.sh"
cleanup() {
  stop_sim
  rm -rf "$scratch"
}
trap cleanup EXIT
fail() {
  echo "package_test: FAILED: $*" >&2
  exit 1
}

echo "package_test: cpack -G DEB into $scratch"
(cd "$build" && cpack -G DEB -B "$scratch" >"$scratch/cpack.log" 2>&1) ||
  { cat "$scratch/cpack.log" >&2; fail "cpack"; }
debs=("$scratch"/tokenbench_"$version"_*.deb)
[ -f "${debs[0]}" ] || fail "no tokenbench_${version}_*.deb in $scratch: $(ls "$scratch")"
deb=${debs[0]}

info=$(dpkg-deb -I "$deb")
echo "$info" | sed -n '/^ [A-Z][A-Za-z-]*: /,$p'
for field in "Package: tokenbench" "Version: $version" "Architecture: $(dpkg --print-architecture)" \
  "Maintainer: " "Section: " "Description: " "Depends: .*libc6"; do
  grep -q "^ $field" <<<"$info" || fail "dpkg-deb -I: no '$field'"
done
contents=$(dpkg-deb -c "$deb")
if grep -q '\.debug/' <<<"$contents"; then fail "the package holds the split debug file"; fi

root="$scratch/root"
mkdir -p "$root/var/lib/dpkg/updates" "$root/var/lib/dpkg/info"
touch "$root/var/lib/dpkg/status"
# --path-include: every file, even where the machine's dpkg.cfg.d excludes docs and man pages
# (as slim container images do).
dpkg_root=(dpkg --root="$root" --force-not-root --force-script-chrootless --log=/dev/null
  --path-include='*')
"${dpkg_root[@]}" --force-depends -i "$deb" >"$scratch/dpkg.log" 2>&1 ||
  { cat "$scratch/dpkg.log" >&2; fail "dpkg -i"; }

bin="$root/usr/bin/tokenbench"
files=(
  "$bin"
  "$root/usr/share/man/man1/tokenbench.1.gz"
  "$root/usr/share/bash-completion/completions/tokenbench"
  "$root/usr/share/zsh/vendor-completions/_tokenbench"
  "$root/usr/share/doc/tokenbench/README.md"
  "$root/usr/share/doc/tokenbench/copyright"
  "$root/usr/share/doc/tokenbench/docs/CLI.md"
  "$root/usr/share/doc/tokenbench/docs/METRICS.md"
  "$root/usr/share/doc/tokenbench/uplot/LICENSE"
)
for f in "${files[@]}"; do
  [ -f "$f" ] || fail "not installed: ${f#"$root"}"
done
[ -x "$bin" ] || fail "/usr/bin/tokenbench is not executable"
grep -q "Leon Sorokin" "$root/usr/share/doc/tokenbench/uplot/LICENSE" || fail "uPlot's license"
if command -v readelf >/dev/null 2>&1 && readelf -S -W "$bin" | grep -q '\.debug_info'; then
  fail "/usr/bin/tokenbench is not stripped"
fi

"$bin" --version | grep -qx "tokenbench $version" || fail "--version: $("$bin" --version)"

# The installed server, measured by the installed client: a few requests.
start_sim "$bin" "$scratch/sim.log" --ttft-ms 5 --itl-ms 1 --seed 1
"$bin" run --base-url "$SIM_URL" --num-prompts 4 --max-concurrency 2 --input-len 32 \
  --output-len 8 --seed 1 --quiet --server-metrics off --gpu-metrics off \
  --output-dir "$scratch/results" >"$scratch/run.log" 2>&1 ||
  { cat "$scratch/run.log" >&2; fail "run against the installed serve-sim"; }
stop_sim
grep -q '"completed": 4' "$scratch/results/summary.json" || fail "summary.json: not 4 completed"

if command -v man >/dev/null 2>&1; then
  page=$(MANWIDTH=100 man -l "$root/usr/share/man/man1/tokenbench.1.gz" 2>"$scratch/man.err")
  [ ! -s "$scratch/man.err" ] || { cat "$scratch/man.err" >&2; fail "man -l warned"; }
  # A here-string, not a pipe: grep -q stops at its match, and a writer into a closed pipe would
  # fail the pipeline under pipefail once the page outgrows the pipe's buffer.
  grep -q "tokenbench serve-sim" <<<"$page" || fail "man -l: no serve-sim section"
  grep -q -- "--max-concurrency" <<<"$page" || fail "man -l: no --max-concurrency"
fi

# bash: the installed script completes a command, a flag and an enum's values.
completions=$(bash -c '
  source "$1"
  complete -p tokenbench
  for line in "tokenbench se" "tokenbench run --max-con" "tokenbench run --api " \
      "tokenbench report --as "; do
    read -r -a COMP_WORDS <<<"$line"
    [[ $line == *" " ]] && COMP_WORDS+=("")
    COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
    _tokenbench
    echo "${line% }: ${COMPREPLY[*]}"
  done' _ "$root/usr/share/bash-completion/completions/tokenbench")
echo "$completions"
grep -q "^complete .*-F _tokenbench tokenbench" <<<"$completions" || fail "complete -p"
grep -q "^tokenbench se: search serve-sim$" <<<"$completions" || fail "bash: commands"
grep -q "^tokenbench run --max-con: --max-concurrency$" <<<"$completions" || fail "bash: flags"
grep -q "^tokenbench run --api: .*openai-chat" <<<"$completions" || fail "bash: --api values"
grep -q "^tokenbench report --as: .*vllm.*prometheus" <<<"$completions" || fail "bash: --as"
if command -v zsh >/dev/null 2>&1; then
  zsh -n "$root/usr/share/zsh/vendor-completions/_tokenbench" || fail "zsh -n"
else
  echo "package_test: zsh is not installed: its completion's syntax is not checked"
fi

"${dpkg_root[@]}" -r tokenbench >"$scratch/dpkg.log" 2>&1 ||
  { cat "$scratch/dpkg.log" >&2; fail "dpkg -r"; }
for f in "${files[@]}"; do
  [ ! -e "$f" ] || fail "still there after dpkg -r: ${f#"$root"}"
done
[ ! -e "$root/usr/share/doc/tokenbench" ] || fail "/usr/share/doc/tokenbench left after dpkg -r"
echo "package_test: $(basename "$deb"): installed, used and removed"
