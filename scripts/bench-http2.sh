#!/usr/bin/env bash
# bench-http2.sh BUILD: tokenbench --http2 against h2load, nghttp2's own load generator (the
# anchor for HTTP/2 clients), on the same independent server (bench/h2_server.cpp, h2c, one
# thread). Run by scripts/bench.sh; documented in docs/PERFORMANCE.md "HTTP/2".
#
# For each regime, both clients drive STREAMS streams over CONNS connections (h2load -c CONNS
# -m STREAMS/CONNS; tokenbench --max-concurrency STREAMS --http2-streams STREAMS/CONNS --workers 1)
# through the same number of requests of the same length. Printed: client CPU per token (user +
# system of the whole process, /usr/bin/time; tokens = what the server wrote), tokenbench's
# engine thread alone, the ratio, and tokenbench's ITL against the server's own write gaps.
# Each figure is the median of HTTP2_RUNS runs (default 3). h2load comes from Debian's
# nghttp2-client (scripts/install-deps.sh).
set -euo pipefail
BUILD=${1:-build}
RUNS=${HTTP2_RUNS:-3}
TB="$BUILD/tokenbench"
SERVER="$BUILD/bench/tokenbench_h2_server"
for exe in "$TB" "$SERVER" /usr/bin/time "$(command -v h2load || echo h2load)"; do
  if [ ! -x "$exe" ]; then
    echo "bench-http2: $exe is missing (build the tree; h2load and /usr/bin/time: scripts/install-deps.sh)" >&2
    exit 1
  fi
done
WORK=$(mktemp -d "${TMPDIR:-/tmp}/tokenbench-http2.XXXXXX")
SERVER_PID=""
cleanup() {
  if [ -n "$SERVER_PID" ]; then kill -TERM "$SERVER_PID" 2>/dev/null || true; fi
  rm -rf "$WORK"
}
trap cleanup EXIT

SERVER_OUT="" SERVER_PORT="" SERVER_SUMMARY="" N=0
start_server() {
  N=$((N + 1))
  SERVER_OUT="$WORK/server.$N.out"
  "$SERVER" --port 0 --max-seconds 300 "$@" >"$SERVER_OUT" 2>&1 &
  SERVER_PID=$!
  for _ in $(seq 200); do
    grep -q '^port=' "$SERVER_OUT" && break
    sleep 0.05
  done
  SERVER_PORT=$(sed -n 's/^port=//p' "$SERVER_OUT" | head -1)
  [ -n "$SERVER_PORT" ] || { echo "bench-http2: the server did not start: $(cat "$SERVER_OUT")" >&2; exit 1; }
}
stop_server() {
  kill -TERM "$SERVER_PID"
  wait "$SERVER_PID" || true
  SERVER_PID=""
  SERVER_SUMMARY=$(grep '^h2_server:' "$SERVER_OUT" || true)
}
# shellcheck source=scripts/bench-lib.sh
source "$(dirname "$0")/bench-lib.sh"

echo "Load average before: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs."
echo
echo "| regime | streams / connections | requests x tokens | h2load µs/token | tokenbench µs/token | tokenbench/h2load | engine thread µs/token | server gap mean / p99 ms | tokenbench ITL mean / p99 ms |"
echo "|---|---|---|---|---|---|---|---|---|"
BODY="$WORK/body.json"
# regime label | server flags | streams | connections | requests | tokens per request
REGIMES=(
  "one token per read, 1 ms|--itl-ms 1|256|4|1024|128"
  "one token per read, 10 ms|--itl-ms 10|1000|10|2000|64"
  "all tokens at once|--itl-ms 0|64|1|2048|256"
)
for regime in "${REGIMES[@]}"; do
  IFS='|' read -r label sflags streams conns requests tokens <<<"$regime"
  per=$((streams / conns))
  printf '{"model":"m","messages":[{"role":"user","content":"hi"}],"max_tokens":%d,"stream":true}' \
    "$tokens" >"$BODY"
  h2=() tbc=() wk=() sg=() sp=() cm=() cp=()
  for r in $(seq "$RUNS"); do
    # shellcheck disable=SC2086
    start_server $sflags --max-tokens "$tokens" --max-streams "$per"
    timed "$WORK/h2load.time" timeout 240 h2load -c "$conns" \
      -m "$per" -n "$requests" -d "$BODY" -H 'content-type: application/json' \
      "http://127.0.0.1:$SERVER_PORT/v1/chat/completions" >"$WORK/h2load.out" 2>&1
    stop_server
    got=$(kv "$SERVER_SUMMARY" tokens)
    grep -q "$requests succeeded" "$WORK/h2load.out" ||
      { echo "bench-http2: h2load did not finish: $(tail -5 "$WORK/h2load.out")" >&2; exit 1; }
    h2+=("$(calc %.3f "$(cpu_of "$WORK/h2load.time") * 1e6 / $got")")

    # shellcheck disable=SC2086
    start_server $sflags --max-tokens "$tokens" --max-streams "$per"
    d="$WORK/tb-$N"
    timed "$WORK/tb.time" timeout 240 "$TB" run \
      --base-url "http://127.0.0.1:$SERVER_PORT" --model m --no-preflight --dataset random \
      --input-len 16 --output-len "$tokens" --max-concurrency "$streams" --num-prompts "$requests" \
      --workers 1 --warmup 0 --http2 --http2-streams "$per" --output-dir "$d" --quiet >"$d.log" 2>&1 ||
      { echo "bench-http2: tokenbench failed: $(tail -3 "$d.log")" >&2; exit 1; }
    stop_server
    got=$(json "$d/summary.json" total_output_tokens)
    tbc+=("$(calc %.3f "$(cpu_of "$WORK/tb.time") * 1e6 / $got")")
    wk+=("$(engine_us_per_token "$d/summary.json")")
    sg+=("$(kv "$SERVER_SUMMARY" gap_mean_ms)") sp+=("$(kv "$SERVER_SUMMARY" gap_p99_ms)")
    cm+=("$(json "$d/summary.json" mean_itl_ms)") cp+=("$(json "$d/summary.json" p99_itl_ms)")
  done
  a=$(median "${h2[@]}") b=$(median "${tbc[@]}")
  printf '| %s | %s / %s | %s x %s | %s | %s | %.2f | %s | %.3f / %.3f | %.3f / %.3f |\n' \
    "$label" "$streams" "$conns" "$requests" "$tokens" "$a" "$b" "$(calc %.4f "$b / $a")" \
    "$(median "${wk[@]}")" "$(median "${sg[@]}")" "$(median "${sp[@]}")" \
    "$(median "${cm[@]}")" "$(median "${cp[@]}")"
done
echo
echo "Load average after: $(cut -d' ' -f1-3 /proc/loadavg)."
