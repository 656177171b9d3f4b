#!/usr/bin/env bash
# make demo: start serve-sim on a free loopback port, run a real benchmark against it, stop it.
# README.md shows these commands beside their output: change both together (a test compares
# SIM_FLAGS and RUN_FLAGS with the README).
set -euo pipefail
BIN=${1:-build/tokenbench}
LOG=$(mktemp)
# The preset models Llama-3.1-8B on one A100 (continuous batching, KV cache, chunked prefill), so
# queueing and batching effects are real; see docs/SIMULATOR.md.
SIM_FLAGS=(--preset llama3.1-8b-a100 --seed 1)
RUN_FLAGS=(--num-prompts 200 --max-concurrency 16 --warmup 8 --input-len 512 --output-len 128
  --range-ratio 0.25 --seed 1 --goodput ttft:200 tpot:6 --output-dir results/demo --overwrite)
"$BIN" serve-sim --port 0 "${SIM_FLAGS[@]}" >"$LOG" 2>&1 &
SIM_PID=$!
trap 'kill $SIM_PID 2>/dev/null || true; wait $SIM_PID 2>/dev/null || true; rm -f "$LOG"' EXIT
for _ in $(seq 1 100); do
  grep -q "listening on" "$LOG" && break
  sleep 0.05
done
URL=$(grep -o 'http://[0-9.]*:[0-9]*' "$LOG" | head -1)
if [ -z "$URL" ]; then
  echo "demo: serve-sim did not start:" >&2
  cat "$LOG" >&2
  exit 1
fi
echo "demo: serve-sim is listening on $URL"
echo "demo: tokenbench run --base-url $URL ${RUN_FLAGS[*]}"
"$BIN" run --base-url "$URL" "${RUN_FLAGS[@]}"
