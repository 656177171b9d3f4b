#!/usr/bin/env bash
# clang-tidy (.clang-tidy) over every source file of src/, JOBS files at a time, with the compile
# commands of BUILD_DIR (configured; nothing needs to be built). Prints the findings of each file
# that has any and fails when one has; clang-tidy's count of the warnings it suppressed in system
# headers ("N warnings generated.") is left out.
#
#   tidy.sh [BUILD_DIR [JOBS]]     (make tidy)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
export TIDY_BUILD_DIR="${1:-build}"
jobs="${2:-2}"
if [ ! -f "$TIDY_BUILD_DIR/compile_commands.json" ]; then
  echo "tidy: no $TIDY_BUILD_DIR/compile_commands.json: configure the build first" >&2
  exit 2
fi

tidy_one() {
  local out
  if ! out=$(clang-tidy -p "$TIDY_BUILD_DIR" --quiet "$1" 2>&1); then
    printf '%s\n' "$out" | grep -v -E '^[0-9]+ warnings? generated\.$' >&2
    return 1
  fi
}
export -f tidy_one

files=$(find src -name '*.cpp' | wc -l)
start=$SECONDS
rc=0
find src -name '*.cpp' -print0 | sort -z | xargs -0 -P"$jobs" -n1 bash -c 'tidy_one "$0"' || rc=$?
if [ "$rc" -ne 0 ]; then
  echo "tidy: findings above ($files files, $((SECONDS - start)) s)" >&2
  exit 1
fi
echo "tidy: $files files clean ($((SECONDS - start)) s)"
