#!/usr/bin/env bash
# fidelity_smoke.sh SERVER MIN_CLIENT TOKENBENCH: the fidelity instruments work together (ctest
# `fidelity_instruments`): the server streams exactly max_tokens tokens per request in both
# shapes, one per write and in bursts; the min client counts them; tokenbench reads the stream
# and the server's own count agrees with every client's. Seconds, loopback only.
set -euo pipefail
SERVER=$1 MINC=$2 TB=$3
WORK=$(mktemp -d "${TMPDIR:-/tmp}/fidelity-smoke.XXXXXX")
PID=""
trap '[ -n "$PID" ] && kill -TERM "$PID" 2>/dev/null; rm -rf "$WORK"' EXIT
fail() {
  echo "fidelity_smoke: $*" >&2
  exit 1
}
start() {
  "$SERVER" --port 0 --max-seconds 60 --log "$WORK/log.bin" "$@" >"$WORK/server.out" 2>&1 &
  PID=$!
  for _ in $(seq 100); do
    grep -q '^port=' "$WORK/server.out" && break
    sleep 0.05
  done
  PORT=$(sed -n 's/^port=//p' "$WORK/server.out")
  [ -n "$PORT" ] || fail "the server did not start: $(cat "$WORK/server.out")"
}
stop() {
  kill -TERM "$PID"
  wait "$PID" || true
  PID=""
  SUMMARY=$(grep '^fidelity_server:' "$WORK/server.out") || fail "no summary: $(cat "$WORK/server.out")"
}
kv() { sed -n "s/.* $2=\([^ ]*\).*/\1/p" <<<"$1"; }

for flags in "--itl-ms 0.2" "--burst 16 --itl-ms 0"; do
  # shellcheck disable=SC2086
  start $flags
  for path in /v1/completions /v1/chat/completions; do
    out=$("$MINC" --port "$PORT" --streams 4 --requests 12 --max-tokens 40 --path "$path" \
      --max-seconds 30)
    [ "$(kv "$out" tokens)" = 480 ] || fail "$flags $path: min client counted: $out"
  done
  stop
  [ "$(kv "$SUMMARY" tokens)" = 960 ] || fail "$flags: the server wrote: $SUMMARY"
  [ "$(kv "$SUMMARY" responses)" = 24 ] || fail "$flags: responses: $SUMMARY"
  # One 24-byte record per token write.
  [ "$(stat -c %s "$WORK/log.bin")" = $((960 * 24)) ] || fail "$flags: log size"
done

start --itl-ms 0.2
timeout 60 "$TB" run --base-url "http://127.0.0.1:$PORT" --endpoint /v1/completions --model fidelity \
  --no-preflight --dataset random --input-len 8 --output-len 32 --max-concurrency 4 \
  --num-prompts 8 --workers 1 --warmup 0 --output-dir "$WORK/run" --quiet >"$WORK/run.log" 2>&1 ||
  fail "tokenbench: $(tail -5 "$WORK/run.log")"
stop
python3 - "$WORK/run/summary.json" <<'PY' || fail "tokenbench's summary: $(cat "$WORK/run/summary.json")"
import json, sys
s = json.load(open(sys.argv[1]))
assert s["completed"] == 8 and s["failed"] == 0 and s["total_output_tokens"] == 256, s
PY
[ "$(kv "$SUMMARY" tokens)" = 256 ] || fail "tokenbench run: the server wrote: $SUMMARY"
echo "fidelity_smoke: ok"
