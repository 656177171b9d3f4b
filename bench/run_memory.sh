#!/usr/bin/env bash
# Peak RSS of a run against its length (docs/PERFORMANCE.md, "Memory"): serve-sim's fixed preset
# at zero delay, 4-token replies, concurrency 64, for each request count given (default 20,000
# and 200,000), REPEAT times each; prints "requests peak_rss_mb wall_s" per run and the medians.
# Then `report` over the largest run's directory, the same way. With RANKS=N, each run is
# distributed (mpirun -np N, docs/DISTRIBUTED.md) and the RSS is rank 0's, which merges.
#   bash bench/run_memory.sh [BUILD_DIR] [COUNTS...]
#   RANKS=2 bash bench/run_memory.sh [BUILD_DIR] [COUNTS...]
set -euo pipefail
BUILD=${1:-build}
shift || true
COUNTS=("${@:-20000 200000}")
read -r -a COUNTS <<<"${COUNTS[*]}"
REPEAT=${REPEAT:-3}
BIN=$BUILD/tokenbench
LOG=$(mktemp)
OUT=$(mktemp -d)
# shellcheck source=scripts/serve_sim.sh
source "$(dirname "$0")/../scripts/serve_sim.sh"
trap 'stop_sim; rm -rf "$LOG" "$OUT"' EXIT
start_sim "$BIN" "$LOG" --preset fixed --ttft-ms 0 --itl-ms 0
URL=$SIM_URL
RANKS=${RANKS:-1}
peak() { # peak RSS in MB and wall seconds of a command (under mpirun: rank 0's)
  if [ "$RANKS" -gt 1 ] && [ "$1" = "$BIN" ] && [ "$2" = run ]; then
    OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1 \
      mpirun -np "$RANKS" sh -c '/usr/bin/time -f "%M %e" -o "$0.$OMPI_COMM_WORLD_RANK" "$@"' \
      "$OUT/time" "$@" >/dev/null 2>"$OUT/err" || {
      cat "$OUT/err" >&2
      exit 1
    }
    mv "$OUT/time.0" "$OUT/time"
  else
    /usr/bin/time -f "%M %e" -o "$OUT/time" "$@" >/dev/null 2>"$OUT/err" || {
      cat "$OUT/err" >&2
      exit 1
    }
  fi
  awk '{printf "%.1f %s", $1 / 1024, $2}' "$OUT/time"
}
median() { sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }
for n in "${COUNTS[@]}"; do
  rss=()
  for _ in $(seq 1 "$REPEAT"); do
    line=$(peak "$BIN" run --base-url "$URL" --model sim-model --num-prompts "$n" --max-concurrency 64 \
      --input-len 16 --output-len 4 --output-dir "$OUT/run-$n" --overwrite --quiet)
    echo "run $n requests: $line"
    rss+=("${line%% *}")
  done
  echo "run $n requests: median peak RSS $(printf '%s\n' "${rss[@]}" | median) MB"
done
last=${COUNTS[${#COUNTS[@]} - 1]}
line=$(peak "$BIN" report "$OUT/run-$last")
echo "report over $last requests: $line"
