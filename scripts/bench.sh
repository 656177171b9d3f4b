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
