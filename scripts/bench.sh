#!/usr/bin/env bash
# make bench: micro-benchmarks (Google Benchmark), the end-to-end load benchmark, the tokenizers,
# then the fidelity tables (scripts/bench-fidelity.sh: tokenbench against its own instruments) and
# HTTP/2 against h2load (scripts/bench-http2.sh).
set -euo pipefail
BUILD=${1:-build}
echo "== micro-benchmarks =="
"$BUILD/bench/tokenbench_micro_bench" --benchmark_repetitions=3 --benchmark_report_aggregates_only=true
echo
echo "== end-to-end load: serve-sim with zero delays, one client worker thread =="
"$BUILD/bench/tokenbench_load_bench" --streams 1,64,512 --tokens 256 --repeat 3
echo
echo "== end-to-end load: serve-sim with 1 ms between tokens (events arrive one by one) =="
"$BUILD/bench/tokenbench_load_bench" --streams 1,64,512,1000 --tokens 256 --repeat 3 --itl-ms 1
echo
echo "== the floor of that: a minimal epoll server, one event per stream per 1 ms tick =="
"$BUILD/bench/tokenbench_load_bench" --streams 64,1000 --tokens 256 --repeat 3 --itl-ms 1 --floor
echo
echo "== serve-sim through its engine model with zero costs (docs/PERFORMANCE.md, serve-sim) =="
"$BUILD/bench/tokenbench_load_bench" --streams 1,64,512 --tokens 256 --repeat 3 --preset zero
echo
echo "== serve-sim engine model, 10,000 concurrent streams =="
"$BUILD/bench/tokenbench_load_bench" --streams 10000 --tokens 64 --per-stream 2 --repeat 3 --preset zero
echo
echo "== tokenizers: encode throughput, one thread, MB/s (tokenbench, then the references in Node) =="
# Fixed corpus: Debian's license texts (English prose) and the tokenizer test corpus (many
# scripts, code, emoji, whitespace runs, special-token strings), one encode call per file.
TOKENIZER_CORPUS=(/usr/share/common-licenses/{GPL-3,Apache-2.0,LGPL-2.1,MPL-2.0,GFDL-1.3}
  tests/data/tokenizer/corpus.json)
bash scripts/fetch-tokenizer-fixtures.sh "$BUILD/tokenizer-fixtures"
bash scripts/install-tokenizer-refs.sh "$BUILD/tokenizer-refs"
"$BUILD/bench/tokenbench_tokenizer_bench" "$BUILD/tokenizer-fixtures" "${TOKENIZER_CORPUS[@]}"
node scripts/bench-tokenizers-ref.mjs "$BUILD/tokenizer-fixtures" "$BUILD/tokenizer-refs" \
  "${TOKENIZER_CORPUS[@]}"
echo
echo "== fidelity and the floor: tokenbench against bench/fidelity_server.cpp and bench/min_client.cpp =="
bash scripts/bench-fidelity.sh "$BUILD"
echo
echo "== HTTP/2: tokenbench --http2 against h2load on bench/h2_server.cpp =="
bash scripts/bench-http2.sh "$BUILD"
