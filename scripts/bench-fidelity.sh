#!/usr/bin/env bash
# bench-fidelity.sh BUILD: tokenbench measured against its own instruments (issue 13; run by
# scripts/bench.sh after its other parts, documented in docs/PERFORMANCE.md "Fidelity and the
# floor"). Everything runs on 127.0.0.1 against bench/fidelity_server.cpp
# (BUILD/bench/tokenbench_fidelity_server), every process with a time limit. Prints markdown tables:
#
#   a. client CPU per token, tokenbench against bench/min_client.cpp (the floor), same server:
#      one token per read at 64 and 1,000 streams, and 16 tokens per read (--burst 16);
#   b. fidelity: tokenbench's ITL mean and p99 against the server's own write gaps, 256 streams
#      with 1 ms between tokens, user-space stamps and (when `run --help` lists --stamps) kernel
#      stamps;
#   c. memory: peak RSS per stream with 10,000 concurrent streams on one worker;
#   d. workers: tokens/s with --workers 2 over --workers 1 when the client is the bottleneck.
#
# Each figure is the median of FIDELITY_RUNS runs (default 3); FIDELITY_PARTS=bc runs only those
# tables (default abcd). Client CPU is user + system time of
# the whole client process (all threads, startup and report writing included) from /usr/bin/time
# (the `time` package, scripts/install-deps.sh); peak RSS is its %M.
set -euo pipefail
BUILD=${1:-build}
RUNS=${FIDELITY_RUNS:-3}
PARTS=${FIDELITY_PARTS:-abcd}
TB="$BUILD/tokenbench"
SERVER="$BUILD/bench/tokenbench_fidelity_server"
MINC="$BUILD/bench/tokenbench_min_client"
for exe in "$TB" "$SERVER" "$MINC" /usr/bin/time; do
  if [ ! -x "$exe" ]; then
    echo "bench-fidelity: $exe is missing (build the tree; /usr/bin/time: scripts/install-deps.sh)" >&2
    exit 1
  fi
done
WORK=$(mktemp -d "${TMPDIR:-/tmp}/tokenbench-fidelity.XXXXXX")
SERVER_PID=""
cleanup() {
  if [ -n "$SERVER_PID" ]; then kill -TERM "$SERVER_PID" 2>/dev/null || true; fi
  rm -rf "$WORK"
}
trap cleanup EXIT
# 10,000 connections need more descriptors than the usual soft limit (both sides raise their own
# soft limit to the hard one too).
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true

# Pinning for the fidelity table: client on CPU 0, server on CPU 1, when there are two CPUs.
PIN_CLIENT=() PIN_SERVER=()
if command -v taskset >/dev/null 2>&1 && [ "$(nproc)" -ge 2 ]; then
  PIN_CLIENT=(taskset -c 0) PIN_SERVER=(taskset -c 1)
fi

NSERVER=0
SERVER_OUT="" SERVER_PORT="" SERVER_SUMMARY=""
# start_server [PIN...] -- FLAGS...: the fidelity server on a free port, at most 300 s.
start_server() {
  local pin=()
  while [ "$1" != "--" ]; do pin+=("$1"); shift; done
  shift
  NSERVER=$((NSERVER + 1))
  SERVER_OUT="$WORK/server.$NSERVER.out"
  "${pin[@]}" "$SERVER" --port 0 --max-seconds 300 "$@" >"$SERVER_OUT" 2>&1 &
  SERVER_PID=$!
  for _ in $(seq 200); do
    grep -q '^port=' "$SERVER_OUT" && break
    sleep 0.05
  done
  SERVER_PORT=$(sed -n 's/^port=//p' "$SERVER_OUT" | head -1)
  if [ -z "$SERVER_PORT" ]; then
    echo "bench-fidelity: the server did not start: $(cat "$SERVER_OUT")" >&2
    exit 1
  fi
}
stop_server() {
  kill -TERM "$SERVER_PID"
  wait "$SERVER_PID" || true
  SERVER_PID=""
  SERVER_SUMMARY=$(grep '^fidelity_server:' "$SERVER_OUT" || true)
}
# shellcheck source=scripts/bench-lib.sh
source "$(dirname "$0")/bench-lib.sh"

# The machine's other load, printed with the tables: these figures are only as quiet as it is.
echo "Load average before: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs."
echo
HAS_STAMPS=0
# The help is read whole first: grep -q would stop reading early, and under pipefail the
# SIGPIPE that tokenbench then gets would make the test fail at random.
if grep -q -- '--stamps' <<<"$("$TB" run --help 2>/dev/null)"; then HAS_STAMPS=1; fi

# tb [PIN...] -- OUTDIR STREAMS PROMPTS OUTLEN WORKERS [FLAGS...]: one closed-loop tokenbench run
# against the server under /usr/bin/time (into $WORK/tb.time): at most STREAMS requests in flight,
# each stream sending its next request when one ends. Output in OUTDIR.log.
tb() {
  local pin=()
  while [ "$1" != "--" ]; do pin+=("$1"); shift; done
  shift
  local dir=$1 streams=$2 prompts=$3 outlen=$4 workers=$5
  shift 5
  timed "$WORK/tb.time" "${pin[@]}" timeout 240 "$TB" run \
    --base-url "http://127.0.0.1:$SERVER_PORT" --endpoint /v1/completions \
    --model fidelity --no-preflight --dataset random --input-len 16 --output-len "$outlen" \
    --max-concurrency "$streams" --num-prompts "$prompts" --workers "$workers" --warmup 0 \
    --output-dir "$dir" --quiet "$@" >"$dir.log" 2>&1 || {
    local rc=$?
    echo "bench-fidelity: tokenbench exited with $rc ($streams streams): $(tail -3 "$dir.log")" >&2
    return "$rc"
  }
}

# ---------------------------------------------------------------------------------------------
if [[ $PARTS == *a* ]]; then
echo "### a. Client CPU per token: tokenbench against the floor (min client)"
echo
echo "Same fidelity server for both clients; client CPU = user + system of the whole process"
echo "(/usr/bin/time), over tokens received; median of $RUNS runs; tokenbench with --workers 1."
echo "\"worker\" is tokenbench's engine thread alone during the measure phase (summary.json"
echo "checks.client.workers cpu_s): the hot path that stamps tokens, without start-up, the"
echo "recorder thread and the figures computed after the run."
echo
echo "\"net\" is the whole process less its fixed cost per run (start-up to exit, measured"
echo "first as one request of one token), which a run of minutes spreads over millions of tokens."
echo
# tokenbench's fixed cost, paid once per run whatever the load: one request of one token.
start_server -- --itl-ms 0
fixed=()
for r in $(seq "$RUNS"); do
  tb -- "$WORK/fixed-$r" 1 1 1 1
  fixed+=("$(awk '{printf "%.1f", ($2 + $3) * 1000}' "$WORK/tb.time")")
done
stop_server
FIXED_MS=$(median "${fixed[@]}")
echo "| regime | server | streams x requests x tokens | min client µs/token | tokenbench µs/token | tokenbench/min | net µs/token | net/min | worker µs/token | worker/min | target <= 1.2 |"
echo "|---|---|---|---|---|---|---|---|---|---|---|"
# regime label | server flags | streams | requests | tokens per request
REGIMES=(
  "one token per read|--itl-ms 1|64|512|256"
  "one token per read|--itl-ms 10|1000|2000|128"
  "16 tokens per read|--burst 16 --itl-ms 0|64|4096|256"
)
for regime in "${REGIMES[@]}"; do
  IFS='|' read -r label sflags streams requests tokens <<<"$regime"
  # shellcheck disable=SC2086
  start_server -- $sflags --max-tokens "$tokens"
  min_cpu=() tb_cpu=() net_cpu=() wk_cpu=()
  for r in $(seq "$RUNS"); do
    timed "$WORK/min.time" timeout 240 "$MINC" --port "$SERVER_PORT" --streams "$streams" \
      --requests "$requests" --max-tokens "$tokens" >"$WORK/min.out"
    got=$(kv "$(cat "$WORK/min.out")" tokens)
    min_cpu+=("$(calc %.3f "$(cpu_of "$WORK/min.time") * 1e6 / $got")")
    d="$WORK/a-$NSERVER-$r"
    tb -- "$d" "$streams" "$requests" "$tokens" 1
    got=$(json "$d/summary.json" total_output_tokens)
    tb_cpu+=("$(calc %.3f "$(cpu_of "$WORK/tb.time") * 1e6 / $got")")
    net_cpu+=("$(calc %.3f "($(cpu_of "$WORK/tb.time") - $FIXED_MS / 1000) * 1e6 / $got")")
    wk_cpu+=("$(engine_us_per_token "$d/summary.json")")
  done
  stop_server
  m=$(median "${min_cpu[@]}") t=$(median "${tb_cpu[@]}") wk=$(median "${wk_cpu[@]}")
  net=$(median "${net_cpu[@]}")
  ratio=$(calc %.2f "$t / $m")
  nratio=$(calc %.2f "$net / $m")
  wratio=$(calc %.2f "$wk / $m")
  verdict=$(awk "BEGIN {print ($ratio <= 1.2) ? \"met\" : ($nratio <= 1.2) ? \"net met\" : ($wratio <= 1.2) ? \"worker met\" : \"not met\"}")
  echo "| $label | \`$sflags\` | $streams x $((requests / streams)) x $tokens | $m | $t | $ratio | $net | $nratio | $wk | $wratio | $verdict |"
done
echo
echo "tokenbench's fixed cost per run (one request of one token, startup to exit): $FIXED_MS ms CPU."
echo
fi
# ---------------------------------------------------------------------------------------------
if [[ $PARTS == *b* ]]; then
echo "### b. Fidelity: the client's ITL against the server's own write gaps"
echo
echo "256 streams (the target's case) and 64 (one core keeps up), 1 ms between tokens"
echo "(\`--itl-ms 1\`), 256 tokens per request, 4 requests per stream, one worker; client pinned to"
echo "CPU ${PIN_CLIENT[2]:-any}, server to CPU ${PIN_SERVER[2]:-any}."
echo "Server: gaps between consecutive token writes of a response, stamped after write() returns."
echo "Client: summary.json \`mean_itl_ms\` and \`p99_itl_ms\`. Median of $RUNS runs (each figure)."
echo
echo "| stamps | streams | server gap mean ms | client ITL mean ms | mean off by | server gap p99 ms | client ITL p99 ms | p99 off by ms | targets (1 %, 0.3 ms) |"
echo "|---|---|---|---|---|---|---|---|---|"
fidelity_row() {
  local label=$1 streams=$2
  shift 2
  local sm=() cm=() sp=() cp=()
  for r in $(seq "$RUNS"); do
    start_server "${PIN_SERVER[@]}" -- --itl-ms 1 --max-tokens 256
    local d="$WORK/b-$NSERVER"
    tb "${PIN_CLIENT[@]}" -- "$d" "$streams" $((streams * 4)) 256 1 "$@"
    stop_server
    sm+=("$(kv "$SERVER_SUMMARY" gap_mean_ms)") sp+=("$(kv "$SERVER_SUMMARY" gap_p99_ms)")
    cm+=("$(json "$d/summary.json" mean_itl_ms)") cp+=("$(json "$d/summary.json" p99_itl_ms)")
  done
  local a b c e
  a=$(median "${sm[@]}") b=$(median "${cm[@]}") c=$(median "${sp[@]}") e=$(median "${cp[@]}")
  local dm dp verdict
  dm=$(calc %.2f "($b - $a) / $a * 100")
  dp=$(calc %.3f "$e - $c")
  verdict=$(awk -v dm="$dm" -v dp="$dp" 'BEGIN {
    m = (dm < 0 ? -dm : dm) <= 1; p = (dp < 0 ? -dp : dp) <= 0.3
    print (m ? "mean met" : "mean not met") ", " (p ? "p99 met" : "p99 not met") }')
  printf '| %s | %s | %.3f | %.3f | %+.2f %% | %.3f | %.3f | %+.3f | %s |\n' "$label" "$streams" \
    "$a" "$b" "$dm" "$c" "$e" "$dp" "$verdict"
}
for streams in 256 64; do
  if [ "$HAS_STAMPS" = 1 ]; then
    fidelity_row "user-space stamps" "$streams" --stamps user
    fidelity_row "kernel stamps" "$streams" --stamps kernel
  else
    fidelity_row "user-space stamps" "$streams"
    echo "| kernel stamps | $streams | n/a (needs --stamps) | | | | | | |"
  fi
done
echo
fi
# ---------------------------------------------------------------------------------------------
if [[ $PARTS == *c* ]]; then
echo "### c. Memory per stream: 10,000 concurrent streams on one worker"
echo
echo "tokenbench --workers 1 --max-concurrency 10000 --num-prompts 10000 --output-len 16 against"
echo "the server with --ttft-ms 2000 --itl-ms 200 (every request lasts about 5 s, so all 10,000"
echo "are open together; the server's max_conns shows it), minus the same command with"
echo "--max-concurrency 10 against a server without delays (10,000 requests, 10 at a time)."
echo "Peak RSS is /usr/bin/time's %M. Median of $RUNS runs."
echo
echo "| streams | peak RSS MiB | failed | server max connections | wall s |"
echo "|---|---|---|---|---|"
rss_big=() rss_small=() fail_big=() fail_small=() conns_big=() wall_big=() wall_small=()
for r in $(seq "$RUNS"); do
  start_server -- --ttft-ms 2000 --itl-ms 200
  d="$WORK/c-big-$r"
  tb -- "$d" 10000 10000 16 1 || true
  stop_server
  rss_big+=("$(rss_of "$WORK/tb.time")") wall_big+=("$(awk '{print $1}' "$WORK/tb.time")")
  conns_big+=("$(kv "$SERVER_SUMMARY" max_conns)")
  if [ -f "$d/summary.json" ]; then
    fail_big+=("$(json "$d/summary.json" failed)")
  else
    fail_big+=("run-failed")
    echo "bench-fidelity: the 10,000-stream run failed: $(tail -3 "$d.log")" >&2
  fi
  start_server -- --itl-ms 0
  d="$WORK/c-small-$r"
  tb -- "$d" 10 10000 16 1 || true
  stop_server
  rss_small+=("$(rss_of "$WORK/tb.time")") wall_small+=("$(awk '{print $1}' "$WORK/tb.time")")
  fail_small+=("$(json "$d/summary.json" failed 2>/dev/null || echo run-failed)")
done
big=$(median "${rss_big[@]}") small=$(median "${rss_small[@]}")
echo "| 10 | $(calc %.1f "$small / 1024") | $(median "${fail_small[@]}") | | $(median "${wall_small[@]}") |"
echo "| 10,000 | $(calc %.1f "$big / 1024") | $(median "${fail_big[@]}") | $(median "${conns_big[@]}") | $(median "${wall_big[@]}") |"
per=$(calc %.1f "($big - $small) / 9990")
verdict=$(awk "BEGIN {print ($per <= 16) ? \"met\" : \"not met\"}")
echo
echo "KiB per stream: ($big - $small) KiB / 9,990 = **$per** (target <= 16: $verdict)."
echo
fi
# ---------------------------------------------------------------------------------------------
if [[ $PARTS == *d* ]]; then
echo "### d. Workers: tokens/s with 2 workers over 1, the client the bottleneck"
echo
echo "Server \`--burst 16 --itl-ms 0\` (16 tokens per write, no delay), 256 streams, 4,096"
echo "requests of 256 tokens; summary.json \`output_throughput\`. The server shares the two CPUs"
echo "with the client. Median of $RUNS runs."
echo
echo "| workers | tokens/s | client CPU s | worker busy %, each run (each worker) |"
echo "|---|---|---|---|"
start_server -- --burst 16 --itl-ms 0 --max-tokens 256
declare -A TPUT
for w in 1 2; do
  tp=() cpu=() busy=()
  for r in $(seq "$RUNS"); do
    d="$WORK/d-$w-$r"
    tb -- "$d" 256 4096 256 "$w"
    tp+=("$(json "$d/summary.json" output_throughput)") cpu+=("$(cpu_of "$WORK/tb.time")")
    # The workers' own busy share (summary.json checks.client): is the client the bottleneck?
    busy+=("$(python3 -c 'import json,sys
w = json.load(open(sys.argv[1]))["tokenbench"]["checks"]["client"]["workers"]
print("/".join("%.0f" % x["busy_mean_pct"] for x in w))' "$d/summary.json")")
  done
  TPUT[$w]=$(median "${tp[@]}")
  printf '| %s | %.0f | %s | %s |\n' "$w" "${TPUT[$w]}" "$(median "${cpu[@]}")" "${busy[*]}"
done
stop_server
ratio=$(calc %.2f "${TPUT[2]} / ${TPUT[1]}")
verdict=$(awk "BEGIN {print ($ratio >= 1.8) ? \"met\" : \"not met\"}")
echo
echo "2 workers / 1 worker: **$ratio** (target >= 1.8: $verdict)."
fi
echo
echo "Load average after: $(cut -d' ' -f1-3 /proc/loadavg)."
