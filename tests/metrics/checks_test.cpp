// Self-checks: the tail's reading and the load the client actually offered.

#include "tokenbench/metrics/checks.h"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace tokenbench::metrics
