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
# shellcheck source=scripts/serve_sim.sh
source "$(dirname "$0")/serve_sim.sh"
trap 'stop_sim; rm -f "$LOG"' EXIT
start_sim "$BIN" "$LOG" "${SIM_FLAGS[@]}"
URL=$SIM_URL
echo "demo: serve-sim is listening on $URL"
echo "demo: tokenbench run --base-url $URL ${RUN_FLAGS[*]}"
"$BIN" run --base-url "$URL" "${RUN_FLAGS[@]}"
