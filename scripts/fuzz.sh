#!/usr/bin/env bash
# Runs each libFuzzer target of a TOKENBENCH_FUZZ build for a bounded time (`make fuzz`).
#
#   scripts/fuzz.sh BUILD_DIR SECONDS [TARGET...]     (default: every fuzz/corpus/<target>/)
#
# Each target starts from its committed seeds, fuzz/corpus/<target>/, which it only reads: inputs
# it finds are written to BUILD_DIR/fuzz-corpus/<target>/ (kept between runs), crashes to
# BUILD_DIR/fuzz-artifacts/<target>/. Prints one line per target (executions, coverage, result)
# and writes them to BUILD_DIR/fuzz-summary.txt. Exits 1 when any target crashed, leaked, timed
# out or ran out of memory.
set -uo pipefail
cd "$(dirname "$0")/.."

build=${1:?usage: fuzz.sh BUILD_DIR SECONDS [TARGET...]}
seconds=${2:?usage: fuzz.sh BUILD_DIR SECONDS [TARGET...]}
shift 2
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  for d in fuzz/corpus/*/; do targets+=("$(basename "$d")"); done
fi

summary="$build/fuzz-summary.txt"
: >"$summary"
failed=()
for t in "${targets[@]}"; do
  bin="$build/fuzz/fuzz_$t"
  if [ ! -x "$bin" ]; then
    echo "fuzz: $bin is missing (build the fuzz_targets target)" >&2
    exit 2
  fi
  work="$build/fuzz-corpus/$t"
  artifacts="$build/fuzz-artifacts/$t"
  log="$build/fuzz-logs/$t.log"
  mkdir -p "$work" "$artifacts" "$(dirname "$log")"
  dict=()
  [ -f "fuzz/dict/$t.dict" ] && dict=(-dict="fuzz/dict/$t.dict")
  # -timeout: an input that takes this long is a finding (a hostile reply must not stall a worker).
  "$bin" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$artifacts/" "${dict[@]}" "$work" "fuzz/corpus/$t" >"$log" 2>&1
  rc=$?
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  cov=$(grep -oE 'cov: [0-9]+' "$log" | tail -1 | cut -d' ' -f2)
  result=ok
  if [ $rc -ne 0 ]; then
    result="FAILED (exit $rc): $(grep -m1 -E '^==[0-9]+==ERROR|^SUMMARY|fuzz invariant|ALARM|out-of-memory|runtime error' "$log")"
    failed+=("$t")
  fi
  line=$(printf '%-18s %4ss  execs %-10s exec/s %-7s cov %-6s corpus %-5s %s' "$t" "$seconds" \
    "${execs:-?}" "${rate:-?}" "${cov:-?}" "$(ls "$work" | wc -l)" "$result")
  echo "$line" | tee -a "$summary"
done

if [ ${#failed[@]} -ne 0 ]; then
  echo "fuzz: findings in ${failed[*]}: see $build/fuzz-logs/ and $build/fuzz-artifacts/" >&2
  exit 1
fi
