// Self-checks: the tail's reading and the load the client actually offered.

#include "tokenbench/metrics/checks.h"

#include <gtest/gtest.h>

#include "tokenbench/metrics/model_time.h"

namespace tokenbench::metrics {
namespace {

// `n` successful measured requests sent `gap_ms` apart, the i-th with TTFT ttft_ms(i).
template <typename Ttft>
std::vector<core::RequestRecord> records(int n, double gap_ms, Ttft ttft_ms) {
  std::vector<core::RequestRecord> out;
  for (int i = 0; i < n; ++i) {
    core::RequestRecord r;
    r.id = static_cast<std::uint64_t>(i);
    r.scheduled = r.sent = static_cast<core::Nanos>(i * gap_ms * 1e6);
    r.first_token = r.sent + static_cast<core::Nanos>(ttft_ms(i) * 1e6);
    r.chunks = {{r.first_token, 1}, {r.first_token + 1'000'000, 1}};
    r.last_token = r.chunks.back().t;
    r.done = r.last_token;
    r.output_tokens = 2;
    out.push_back(r);
  }
  return out;
}

TEST(Checks, TailReadings) {
  core::RunConfig config;
  const auto even = records(100, 10, [](int) { return 50.0; });
  const Checks a = run_checks(even, summarize(even, {}), config);
  ASSERT_TRUE(a.ttft);
  EXPECT_DOUBLE_EQ(a.ttft->p99_over_p50, 1.0);
  EXPECT_EQ(a.ttft->reading, "healthy");
  EXPECT_TRUE(a.findings.empty());
  // One request in ten waits 10x as long: p95 and p99 are 10x the median.
  const auto tailed = records(100, 10, [](int i) { return i % 10 == 0 ? 500.0 : 50.0; });
  const Checks b = run_checks(tailed, summarize(tailed, {}), config);
  EXPECT_EQ(b.ttft->reading, "long tail");
  ASSERT_FALSE(b.findings.empty());
  EXPECT_NE(b.findings[0].find("TTFT p95/p50 10.0x, p99/p50 10.0x: long tail"), std::string::npos)
      << b.findings[0];
}

TEST(Checks, AchievedRateBelowTheRequestedOneIsNamed) {
  core::RunConfig config;
  config.request_rate = 100;  // every 10 ms; the records went out every 20 ms
  const auto slow = records(41, 20, [](int) { return 5.0; });
  const Checks c = run_checks(slow, summarize(slow, {}), config);
  EXPECT_NEAR(c.offered.achieved_rate, 50.0, 1e-9);
  ASSERT_EQ(c.findings.size(), 1u);
  EXPECT_EQ(c.findings[0],
            "the client sent only 50.00 req/s of the 100 requested: the client, not the server, "
            "limited the test");
  // Held back by a concurrency limit that was reached: said so instead.
  config.max_concurrency = 1;
  const Checks limited = run_checks(slow, summarize(slow, {}), config);
  EXPECT_NE(limited.findings.at(0).find("waited for one of the 1 --max-concurrency slots"),
            std::string::npos);
  // On pace: nothing to say.
  config.request_rate = 50;
  EXPECT_TRUE(run_checks(slow, summarize(slow, {}), config).findings.empty());
}

TEST(Checks, WaitsForASlotAreShownFromTheIntendedArrival) {
  core::RunConfig config;
  config.request_rate = 100;
  config.max_concurrency = 1;
  // Intended every 10 ms; each request waited 5 ms per place in the line for its slot.
  auto waited = records(50, 10, [](int) { return 20.0; });
  for (std::size_t i = 0; i < waited.size(); ++i) {
    waited[i].intended = waited[i].scheduled - static_cast<core::Nanos>(i) * 5'000'000;
  }
  const Summary s = summarize(waited, {});
  // From the intended arrival, each latency grows by exactly that request's wait.
  EXPECT_NEAR(s.ttft_from_intended_ms.max - s.ttft_ms.max, 49 * 5.0, 1e-9);
  EXPECT_NEAR(s.e2el_from_intended_ms.mean - s.e2el_ms.mean, 24.5 * 5.0, 1e-9);
  const Checks c = run_checks(waited, s, config);
  ASSERT_TRUE(c.arrival_wait);
  EXPECT_EQ(c.arrival_wait->requests, 50);
  EXPECT_EQ(c.arrival_wait->waited, 49);
  EXPECT_NEAR(c.arrival_wait->wait_p50_ms, 122.5, 1e-9);
  bool named = false;
  for (const auto& f : c.findings) named |= f.find("coordinated omission") != std::string::npos;
  EXPECT_TRUE(named);
  EXPECT_NE(render_checks(c).find("from intended arrival: 49 of 50 waited for a slot"),
            std::string::npos)
      << render_checks(c);
  // A closed-loop run has no intended arrivals: no such section.
  const auto closed = records(50, 10, [](int) { return 20.0; });
  EXPECT_FALSE(run_checks(closed, summarize(closed, {}), config).arrival_wait);
}

TEST(Checks, SimTimeNeverScalesTheClientsOwnQueueTime) {
  // Against serve-sim --time-scale 10 with --sim-time: each request queued 1.3 ms in the client
  // (its own cost, real time) and waited 2 ms for a slot past its intended arrival (the server's
  // doing: 20 ms of model time).
  core::RunConfig config;
  config.sim_time = true;
  config.sim_time_scale = 10;
  config.request_rate = 100;
  auto real = records(50, 10, [](int) { return 20.0; });
  for (auto& r : real) {
    r.intended = r.scheduled - 2'000'000;
    r.sent = r.scheduled + 1'300'000;
    r.first_token += 1'300'000;
    for (auto& c : r.chunks) c.t += 1'300'000;
    r.last_token = r.done = r.chunks.back().t;
  }
  const Summary s = summarize(in_model_time(real, model_time_factor(config)), {});
  EXPECT_NEAR(s.ttft_ms.at(99), 200.0, 1e-6);  // the server's part: model time
  EXPECT_NEAR(s.queue_time_ms.at(99), 1.3, 1e-9);
  for (const auto& w : s.warnings) EXPECT_EQ(w.find("client lag"), std::string::npos) << w;
  const Checks c = run_checks(real, s, config);
  EXPECT_NEAR(c.offered.send_lag_p99_ms, 1.3, 1e-9);
  EXPECT_NE(render_checks(c).find("send lag p50 1.300 ms, p99 1.300 ms"), std::string::npos)
      << render_checks(c);
  EXPECT_NEAR(c.offered.achieved_rate, 100.0, 1e-6);  // the client's pace, as requested
  ASSERT_TRUE(c.arrival_wait);
  EXPECT_NEAR(c.arrival_wait->wait_p99_ms, 20.0, 1e-9);
  EXPECT_NEAR(c.arrival_wait->ttft_from_intended_p99_ms, 221.3, 1e-6);  // 20 + 1.3 + 200
}

TEST(Checks, StampSourcesAreCountedPerMeasuredRequest) {
  core::RunConfig config;
  auto rs = records(4, 10, [](int) { return 50.0; });
  rs[0].stamps = rs[1].stamps = rs[2].stamps = core::StampSource::kKernel;
  rs.push_back(rs[3]);
  rs.back().phase = core::Phase::kWarmup;  // not measured: not counted
  const Checks c = run_checks(rs, summarize(rs, {}), config);
  EXPECT_EQ(c.stamp_sources, (std::map<std::string, std::int64_t>{{"kernel", 3}, {"user", 1}}));
  EXPECT_NE(render_checks(c).find("  receive stamps: kernel 3, user 1\n"), std::string::npos)
      << render_checks(c);
  EXPECT_EQ(checks_to_json(c)["stamps"]["kernel"], 3);
}

TEST(Checks, ClientHealthFindsTheBusiestSecond) {
  // Worker 0: 40% busy throughout 3 s. Worker 1: idle except one second at 95%.
  std::vector<std::vector<core::CpuSample>> cpu(2);
  const core::Nanos step = 250'000'000;
  core::Nanos busy0 = 0;
  core::Nanos busy1 = 0;
  for (int i = 0; i <= 12; ++i) {
    cpu[0].push_back({i * step, busy0});
    cpu[1].push_back({i * step, busy1});
    busy0 += step * 2 / 5;
    busy1 += i >= 4 && i < 8 ? step * 19 / 20 : 0;
  }
  const ClientHealth h = client_health(cpu);
  ASSERT_EQ(h.workers.size(), 2u);
  EXPECT_NEAR(h.workers[0].busy_mean_pct, 40.0, 1e-9);
  EXPECT_NEAR(h.workers[0].busy_peak_pct, 40.0, 1e-9);
  EXPECT_NEAR(h.workers[0].cpu_s, 1.2, 1e-9);
  EXPECT_NEAR(h.workers[1].busy_mean_pct, 95.0 / 3, 1e-9);
  EXPECT_NEAR(h.workers[1].busy_peak_pct, 95.0, 1e-9);
  EXPECT_TRUE(h.saturated);

  core::RunConfig config;
  const auto rs = records(10, 10, [](int) { return 5.0; });
  const Checks c = run_checks(rs, summarize(rs, {}), config, cpu);
  ASSERT_EQ(c.findings.size(), 1u);
  EXPECT_EQ(c.findings[0],
            "client worker 1 was on the CPU 95% of its busiest second (mean 32%): the client may "
            "have bounded these figures; give it more --workers or a less loaded machine");
  EXPECT_NE(render_checks(c).find("client CPU per worker: 40% (peak 40%), 32% (peak 95%) - "
                                  "saturated"),
            std::string::npos)
      << render_checks(c);
}

TEST(Checks, ClientHealthFindsTheWorstWaitForACpu) {
  // Worker 0 waits for a CPU 2% of the time; worker 1 half of one second (another process held
  // its core); worker 2's kernel does not say (-1).
  std::vector<std::vector<core::CpuSample>> cpu(3);
  const core::Nanos step = 250'000'000;
  core::Nanos wait0 = 0;
  core::Nanos wait1 = 0;
  for (int i = 0; i <= 12; ++i) {
    cpu[0].push_back({i * step, i * step / 10, wait0});
    cpu[1].push_back({i * step, i * step / 10, wait1});
    cpu[2].push_back({i * step, i * step / 10, -1});
    wait0 += step / 50;
    wait1 += i >= 4 && i < 8 ? step / 2 : 0;
  }
  const ClientHealth h = client_health(cpu);
  ASSERT_EQ(h.workers.size(), 3u);
  EXPECT_NEAR(h.workers[0].wait_mean_pct, 2.0, 1e-9);
  EXPECT_NEAR(h.workers[0].wait_peak_pct, 2.0, 1e-9);
  EXPECT_NEAR(h.workers[1].wait_mean_pct, 50.0 / 3, 1e-9);
  EXPECT_NEAR(h.workers[1].wait_peak_pct, 50.0, 1e-9);
  EXPECT_FALSE(is_defined(h.workers[2].wait_mean_pct));
  EXPECT_TRUE(h.starved);
  EXPECT_FALSE(h.saturated);

  core::RunConfig config;
  const auto rs = records(10, 10, [](int) { return 5.0; });
  const Checks c = run_checks(rs, summarize(rs, {}), config, cpu);
  ASSERT_EQ(c.findings.size(), 1u);
  EXPECT_EQ(c.findings[0],
            "client worker 1 waited for a CPU 50% of its worst second (mean 17%): other processes "
            "held its core, so it read and sent late; give it a core of its own");
  EXPECT_NE(render_checks(c).find("waiting for a CPU per worker: 2% (peak 2%), 17% (peak 50%) - "
                                  "held back by other processes"),
            std::string::npos)
      << render_checks(c);
  const auto json = checks_to_json(c)["client"];
  EXPECT_EQ(json["starved"], true);
  EXPECT_TRUE(json["workers"][2]["wait_peak_pct"].is_null());
}

}  // namespace
}  // namespace tokenbench::metrics
