// Micro-benchmarks of the hot path: SSE framing, event parsing, and the metrics of a run.

#include <benchmark/benchmark.h>

#include <cmath>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "tokenbench/client/api_adapter.h"
#include "tokenbench/client/sse_parser.h"
#include "tokenbench/core/read_lag.h"
#include "tokenbench/metrics/quantile_sketch.h"
#include "tokenbench/metrics/summary.h"

namespace {

using tokenbench::client::OpenAIAdapter;
using tokenbench::client::SseParser;

std::string fixture(const std::string& name) {
  std::ifstream in(std::string(TOKENBENCH_FIXTURES_DIR) + "/" + name, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// A captured llama.cpp stream fed in pieces of `range(0)` bytes, as sockets deliver it.
void BM_SseFraming(benchmark::State& state) {
  const std::string bytes = fixture("llama-server-chat-usage.sse");
  const auto piece = static_cast<std::size_t>(state.range(0));
  SseParser parser;
  std::int64_t events = 0;
  for (auto _ : state) {
    for (std::size_t off = 0; off < bytes.size(); off += piece) {
      parser.feed(std::string_view(bytes).substr(off, piece), [&](std::string_view e) {
        benchmark::DoNotOptimize(e.data());
        ++events;
      });
    }
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * bytes.size()));
  state.SetItemsProcessed(events);  // items/s = events/s
}
BENCHMARK(BM_SseFraming)->Arg(16)->Arg(256)->Arg(4096);

// Framing plus JSON interpretation of every event: the per-token work of the client.
void BM_SseFramingAndParsing(benchmark::State& state) {
  const std::string bytes = fixture("llama-server-chat-usage.sse");
  SseParser parser;
  OpenAIAdapter adapter(tokenbench::core::ApiKind::kOpenAIChat);
  std::int64_t events = 0;
  for (auto _ : state) {
    parser.feed(bytes, [&](std::string_view e) {
      benchmark::DoNotOptimize(adapter.parse_event(e).content_bytes);
      ++events;
    });
  }
  state.SetItemsProcessed(events);  // items/s = events/s
}
BENCHMARK(BM_SseFramingAndParsing);

std::vector<tokenbench::core::RequestRecord> synthetic_records(std::size_t n, int tokens) {
  std::mt19937_64 rng(1);
  std::uniform_int_distribution<int> gap(5'000'000, 15'000'000);
  std::vector<tokenbench::core::RequestRecord> records(n);
  for (std::size_t i = 0; i < n; ++i) {
    auto& r = records[i];
    r.id = i;
    r.scheduled = static_cast<tokenbench::core::Nanos>(i) * 1'000'000;
    r.sent = r.scheduled + 10'000;
    r.headers = r.sent + 1'000'000;
    tokenbench::core::Nanos t = r.sent + 50'000'000;
    for (int k = 0; k < tokens; ++k) {
      r.chunks.push_back({t, 1});
      t += gap(rng);
    }
    r.first_token = r.chunks.front().t;
    r.last_token = r.chunks.back().t;
    r.done = r.last_token + 100'000;
    r.prompt_tokens = 512;
    r.output_tokens = tokens;
    r.http_status = 200;
  }
  return records;
}

// The whole summary of a run of `range(0)` requests of 256 tokens.
void BM_Summarize(benchmark::State& state) {
  const auto records = synthetic_records(static_cast<std::size_t>(state.range(0)), 256);
  tokenbench::metrics::SummaryOptions options;
  for (auto _ : state) {
    benchmark::DoNotOptimize(tokenbench::metrics::summarize(records, options).completed);
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_Summarize)->Arg(1000)->Arg(10000)->Unit(benchmark::kMillisecond);

// Latency-like values in seconds: lognormal, median 50 ms, sigma 1.5.
std::vector<double> lognormal_values(std::size_t n) {
  std::mt19937_64 rng(27);
  std::lognormal_distribution<double> dist(std::log(0.05), 1.5);
  std::vector<double> v(n);
  for (double& x : v) x = dist(rng);
  return v;
}

// One add() to a sketch that has seen the values before (its steady state: no allocation).
void BM_QuantileSketchAdd(benchmark::State& state) {
  const std::vector<double> values = lognormal_values(1 << 16);
  tokenbench::metrics::QuantileSketch sketch;
  for (double v : values) sketch.add(v);
  std::size_t i = 0;
  for (auto _ : state) {
    sketch.add(values[i++ & (values.size() - 1)]);
  }
  benchmark::DoNotOptimize(sketch.count());
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_QuantileSketchAdd);

// One quantile() of a sketch of 10^6 values, cycling through p50, p90, p99 and p99.9; the
// counters are the sketch's bytes in memory and encoded.
void BM_QuantileSketchQuantile(benchmark::State& state) {
  tokenbench::metrics::QuantileSketch sketch;
  for (double v : lognormal_values(1'000'000)) sketch.add(v);
  constexpr double kPs[] = {50.0, 90.0, 99.0, 99.9};
  std::size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(sketch.quantile(kPs[i++ & 3]));
  }
  state.SetItemsProcessed(state.iterations());
  state.counters["memory_bytes"] = static_cast<double>(sketch.memory_bytes());
  state.counters["encoded_bytes"] = static_cast<double>(sketch.encode().size());
}
BENCHMARK(BM_QuantileSketchQuantile);

// One read's lag counted, as Worker::note_read does for every kernel-stamped read: a bucket
// index and two counter updates (in the run's histogram and its window's), no syscall.
void BM_ReadLagAdd(benchmark::State& state) {
  std::vector<tokenbench::core::Nanos> lags;
  for (double v : lognormal_values(1 << 16)) {
    lags.push_back(static_cast<tokenbench::core::Nanos>(v * 1e6));  // median 50 us
  }
  tokenbench::core::ReadLagHistogram total, window;
  std::size_t i = 0;
  for (auto _ : state) {
    const tokenbench::core::Nanos lag = lags[i++ & (lags.size() - 1)];
    total.add(lag);
    window.add(lag);
  }
  benchmark::DoNotOptimize(total.count() + window.count());
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_ReadLagAdd);

}  // namespace

BENCHMARK_MAIN();
