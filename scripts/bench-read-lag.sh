#!/usr/bin/env bash
# bench-read-lag.sh BUILD: the client's read lag and the run's verdict in three regimes
# (docs/PERFORMANCE.md "Read lag and the verdict", issue 32), each RUNS times (default 3):
#   busy   - the client's one worker pinned to core 0 beside two busy processes on that core,
#            serve-sim (fixed 5 ms TTFT, 1 ms ITL, --debug-lateness) pinned to core 1;
#   alone  - the same load without the busy processes;
#   slow   - serve-sim's default engine with --max-num-seqs 2 (requests queue), the client idle.
# Printed per run: the read lag's p50/p99/max, the share of chunks read late, the worker's worst
# wait for a CPU, ITL p50/p99, the verdict, and for the first two the share of tokens serve-sim wrote more than 1 ms late (its
# own write log: the truth of when each token left it); then each regime's medians, and the
# Checks block and Verdict line of its last run.
set -euo pipefail
BUILD=${1:-build}
RUNS=${READ_LAG_RUNS:-3}
TB="$BUILD/tokenbench"
[ -x "$TB" ] || { echo "bench-read-lag: $TB is missing (build first)" >&2; exit 1; }
command -v taskset >/dev/null || { echo "bench-read-lag: taskset is missing (util-linux)" >&2; exit 1; }
WORK=$(mktemp -d "${TMPDIR:-/tmp}/tokenbench-read-lag.XXXXXX")
PIDS=()
cleanup() {
  for p in "${PIDS[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
  rm -rf "$WORK"
}
trap cleanup EXIT

# start_sim NAME ARGS...: serve-sim on core 1, its URL in $URL.
start_sim() {
  local out="$WORK/$1.sim"; shift
  taskset -c 1 "$TB" serve-sim --port 0 "$@" >"$out" 2>&1 &
  PIDS+=($!)
  for _ in $(seq 200); do grep -q 'listening on' "$out" && break; sleep 0.05; done
  URL=$(grep -o 'http://[0-9.:]*' "$out" | head -1)
}

# late_share URL: serve-sim's share of tokens written more than 1 ms after they were due.
late_share() {
  curl -s "$1/metrics" | awk '
    /^tokenbench_sim:token_lateness_seconds_bucket\{le="0.001"\}/ { within = $2 }
    /^tokenbench_sim:token_lateness_seconds_count/ { count = $2 }
    END { if (count > 0) printf "%.4f", 1 - within / count; else printf "-" }'
}

# run REGIME DIR: one measurement, its figures as one line.
LOAD=(--workers 1 --seed 3 --gpu-metrics off --no-history)
measure() {
  local regime=$1 dir=$2
  shift 2
  taskset -c 0 "$TB" run --base-url "$URL" --output-dir "$dir" "${LOAD[@]}" "$@" >"$dir.out" 2>"$dir.err" || true
  jq -r --arg r "$regime" '.tokenbench as $t | $t.checks.client as $c |
    [$r, ($c.read_lag_p50_ms // "-"), ($c.read_lag_p99_ms // "-"), ($c.read_lag_max_ms // "-"),
     ($c.read_late_chunk_share // "-"), ($c.workers[0].wait_peak_pct // "-"),
     $t.distributions.itl_ms.percentiles.p50,
     $t.distributions.itl_ms.percentiles.p99, $t.verdict.bound] | @tsv' "$dir/summary.json"
}

echo -e "regime\tlag_p50_ms\tlag_p99_ms\tlag_max_ms\tlate_share\tcpu_wait_peak_pct\titl_p50_ms\titl_p99_ms\tverdict\tserver_late"
for regime in busy alone slow; do
  for i in $(seq "$RUNS"); do
    EXTRA=(--num-prompts 64 --max-concurrency 16 --input-len 16 --output-len 200)
    if [ "$regime" = slow ]; then
      start_sim "$regime.$i" --max-num-seqs 2
      EXTRA=(--num-prompts 48 --max-concurrency 8 --input-len 64 --output-len 16)
    else
      start_sim "$regime.$i" --ttft-ms 5 --itl-ms 1 --debug-lateness
    fi
    SIM=${PIDS[-1]}
    BUSY=()
    if [ "$regime" = busy ]; then
      for _ in 1 2; do
        taskset -c 0 sh -c 'while :; do :; done' &
        BUSY+=($!)
        PIDS+=($!)
      done
    fi
    line=$(measure "$regime" "$WORK/$regime.$i" "${EXTRA[@]}")
    for p in "${BUSY[@]}"; do kill "$p" 2>/dev/null || true; done
    server=-
    [ "$regime" = slow ] || server=$(late_share "$URL")
    kill -TERM "$SIM" 2>/dev/null || true
    wait "$SIM" 2>/dev/null || true
    echo -e "$line\t$server"
  done
done | tee "$WORK/table.tsv"

echo
echo "medians of $RUNS runs (regime, lag p50/p99/max ms, late share, CPU wait peak %, ITL p50/p99 ms; verdicts):"
for regime in busy alone slow; do
  line=$regime
  for k in 2 3 4 5 6 7 8; do
    line="$line	$(awk -F'\t' -v r="$regime" -v k="$k" '$1 == r { print $k }' "$WORK/table.tsv" |
      sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }')"
  done
  echo -e "$line\t$(awk -F'\t' -v r="$regime" '$1 == r { printf "%s ", $9 }' "$WORK/table.tsv")"
done
for regime in busy alone slow; do
  echo
  echo "== $regime (run $RUNS): Checks and Verdict"
  sed -n '/^Checks:/,/^$/p' "$WORK/$regime.$RUNS.out" | sed '/^$/d'
  grep '^Verdict:' "$WORK/$regime.$RUNS.out"
done
