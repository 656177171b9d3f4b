// End to end: a concurrency sweep of the real client against serve-sim's calibrated preset, run
// ten times faster than real time. The engine model, not sleeps, must produce the shape of a real
// server: request throughput rises with concurrency, then falls once the KV cache thrashes;
// TTFT and TPOT grow. Loopback only; about 5 s of wall time.

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "../sim/prometheus_text.h"
#include "../sim/sim_test_client.h"
#include "process.h"

namespace tokenbench::e2e {
namespace {

using nlohmann::json;

constexpr double kTimeScale = 10;

struct Point {
  int concurrency = 0;
  double request_throughput = 0;  // requests per second of model time
  double median_ttft_ms = 0;
  double p95_ttft_ms = 0;
  double median_tpot_ms = 0;
};

Point measure(const std::string& url, int concurrency) {
  const std::string dir = make_temp_dir("c" + std::to_string(concurrency));
  const int prompts = std::max(8, concurrency * 4);
  const auto r = run_process(
      {TOKENBENCH_BINARY, "run", "--base-url", url, "--output-dir", dir, "--quiet", "--num-prompts",
       std::to_string(prompts), "--warmup", std::to_string(concurrency), "--max-concurrency",
       std::to_string(concurrency), "--input-len", "512", "--output-len", "256", "--seed", "1"},
      std::chrono::seconds(60));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const json s = json::parse(slurp(dir + "/summary.json"));
  EXPECT_EQ(s["completed"], prompts);
  EXPECT_EQ(s["failed"], 0);
  // Back to model time: throughput was kTimeScale times higher, latencies kTimeScale times lower.
  return {concurrency, s["request_throughput"].get<double>() / kTimeScale,
          s["median_ttft_ms"].get<double>() * kTimeScale,
          s["p95_ttft_ms"].get<double>() * kTimeScale,
          s["median_tpot_ms"].get<double>() * kTimeScale};
}

TEST(SimSweep, PresetThroughputRisesThenFallsAndTtftGrows) {
  SimProcess sim({"--preset", "llama3.1-8b-a100", "--time-scale", "10", "--seed", "1"});
  std::vector<Point> points;
  std::string table;  // shown with any failure
  for (const int c : {1, 8, 16, 32, 64}) {
    points.push_back(measure(sim.url(), c));
    const Point& p = points.back();
    table += fmt::format(
        "concurrency {:2}: {:6.2f} req/s, TTFT median {:7.1f} ms p95 {:7.1f} ms, TPOT median "
        "{:5.2f} ms (model time)\n",
        p.concurrency, p.request_throughput, p.median_ttft_ms, p.p95_ttft_ms, p.median_tpot_ms);
  }
  ASSERT_EQ(points.size(), 5u);
  SCOPED_TRACE(table);
  const Point &c1 = points[0], &c8 = points[1], &c16 = points[2], &c32 = points[3],
              &c64 = points[4];
  // Throughput rises steeply while the batch fills (1.2 req/s alone, about 18 at 32)...
  EXPECT_GT(c1.request_throughput, 0.9);
  EXPECT_LT(c1.request_throughput, 1.5);
  EXPECT_GT(c8.request_throughput, 4 * c1.request_throughput);
  EXPECT_GT(c16.request_throughput, c8.request_throughput);
  EXPECT_GT(c32.request_throughput, c16.request_throughput);
  EXPECT_GT(c32.request_throughput, 12 * c1.request_throughput);
  // ...and falls past saturation: at 64 the KV cache thrashes (preemption and recompute).
  EXPECT_LT(c64.request_throughput, c32.request_throughput);
  // TTFT grows with the queue; at 64 it is in seconds.
  EXPECT_LT(c1.median_ttft_ms, c32.median_ttft_ms);
  EXPECT_LT(c32.median_ttft_ms, c64.median_ttft_ms);
  EXPECT_GT(c64.p95_ttft_ms, 1000);
  EXPECT_GT(c64.p95_ttft_ms, 2 * c32.p95_ttft_ms);
  // TPOT grows with the batch (more sequences and more context per step).
  EXPECT_LT(c1.median_tpot_ms, c16.median_tpot_ms);
  EXPECT_LT(c16.median_tpot_ms, c64.median_tpot_ms);

  // The server's own account: preemptions happened, and every request finished.
  const auto port =
      static_cast<std::uint16_t>(std::stoi(sim.url().substr(sim.url().rfind(':') + 1)));
  sim::testing::TestConnection conn(port);
  conn.send_request("GET", "/metrics");
  const auto m = sim::testing::parse_prom_text(conn.read_reply().body);
  const std::string label = "{model_name=\"sim-model\"}";
  EXPECT_GT(m.at("vllm:num_preemptions_total" + label), 0);
  EXPECT_EQ(m.at("vllm:num_requests_running" + label), 0);
  EXPECT_EQ(m.at("vllm:e2e_request_latency_seconds_count" + label),
            (8 + 1) + 8 * 5 + 16 * 5 + 32 * 5 + 64 * 5);
}

}  // namespace
}  // namespace tokenbench::e2e
