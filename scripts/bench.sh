#!/usr/bin/env bash
# make bench: micro-benchmarks (Google Benchmark), then the end-to-end load benchmark.
set -euo pipefail
BUILD=${1:-build}
echo "== micro-benchmarks =="
"$BUILD/bench/tokenbench_micro_bench" --benchmark_repetitions=3 --benchmark_report_aggregates_only=true
echo
echo "== end-to-end load: serve-sim with zero delays, one client worker thread =="
"$BUILD/bench/tokenbench_load_bench" --streams 1,64,512 --tokens 256 --repeat 3
echo
echo "== end-to-end load: serve-sim with 1 ms between tokens (events arrive one by one) =="
"$BUILD/bench/tokenbench_load_bench" --streams 1,64,512 --tokens 256 --repeat 3 --itl-ms 1
echo
echo "== serve-sim through its engine model with zero costs (docs/PERFORMANCE.md, serve-sim) =="
"$BUILD/bench/tokenbench_load_bench" --streams 1,64,512 --tokens 256 --repeat 3 --preset zero
echo
echo "== serve-sim engine model, 10,000 concurrent streams =="
"$BUILD/bench/tokenbench_load_bench" --streams 10000 --tokens 64 --per-stream 2 --repeat 3 --preset zero
