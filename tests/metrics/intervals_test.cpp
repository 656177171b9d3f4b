#include "tokenbench/metrics/intervals.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

namespace tokenbench::metrics {
namespace {

TEST(QuantileInterval, RanksOfTheBinomialIntervalOfAMedian) {
  // n = 100, q = 0.5: the classic distribution-free 95% interval is [x(40), x(61)].
  std::vector<double> v;
  for (int i = 1; i <= 100; ++i) v.push_back(i);
  const auto ci = quantile_interval(v, 0.5);
  ASSERT_TRUE(ci);
  EXPECT_DOUBLE_EQ(ci->estimate, 50.5);
  EXPECT_DOUBLE_EQ(ci->lo, 40);
  EXPECT_DOUBLE_EQ(ci->hi, 61);
}

TEST(QuantileInterval, ATailTooThinToBoundIsUnbounded) {
  // p99 of 100 values: no order statistic above bounds it at 95%.
  std::vector<double> v;
  for (int i = 1; i <= 100; ++i) v.push_back(i);
  const auto ci = quantile_interval(v, 0.99);
  ASSERT_TRUE(ci);
  EXPECT_TRUE(std::isinf(ci->hi));
  EXPECT_LT(ci->lo, 99);
  EXPECT_FALSE(quantile_interval({}, 0.5));
}

TEST(QuantileInterval, CoversTheTrueP95AtLeastNinetyFivePercentOfTheTime) {
  // Exponential(1): the true p95 is ln(20). 400 samples of 300 values each.
  std::mt19937_64 rng(7);
  std::exponential_distribution<double> exp(1.0);
  const double truth = std::log(20.0);
  int covered = 0;
  for (int trial = 0; trial < 400; ++trial) {
    std::vector<double> v(300);
    for (double& x : v) x = exp(rng);
    const auto ci = quantile_interval(v, 0.95);
    if (ci && ci->contains(truth)) ++covered;
  }
  EXPECT_GE(covered, 372);  // 93%: the exact coverage is >= 95%, less its sampling noise
}

TEST(MeanInterval, StudentT) {
  const auto ci = mean_interval({1, 2, 3, 4, 5});
  ASSERT_TRUE(ci);
  EXPECT_DOUBLE_EQ(ci->estimate, 3);
  // sd = sqrt(2.5), t(4) = 2.776: half-width 2.776 * 1.5811 / 2.2361 = 1.963.
  EXPECT_NEAR(ci->hi - 3, 1.963, 1e-3);
  EXPECT_FALSE(mean_interval({1}));
  EXPECT_TRUE(ci->overlaps(Interval{4, 4.5, 6}));
  EXPECT_FALSE(ci->overlaps(Interval{6, 5.5, 7}));
}

core::RequestRecord done_at(double seconds, bool ok = true) {
  core::RequestRecord r;
  r.phase = core::Phase::kMeasure;
  r.scheduled = 0;
  r.sent = 0;
  r.done = static_cast<core::Nanos>(seconds * 1e9);
  if (!ok) r.error = core::ErrorClass::kServerError;
  return r;
}

TEST(ThroughputInterval, BatchMeansAroundCompletedOverDuration) {
  // 10 completions a second, evenly (the last at 9.95 s ends the phase): the interval collapses
  // on 100 / 9.95 req/s.
  std::vector<core::RequestRecord> records;
  for (int i = 1; i <= 100; ++i) records.push_back(done_at((i - 0.5) * 0.1));
  auto ci = throughput_interval(records, 10);
  ASSERT_TRUE(ci);
  EXPECT_NEAR(ci->estimate, 100 / 9.95, 1e-9);
  EXPECT_NEAR(ci->lo, ci->estimate, 1e-6);
  EXPECT_NEAR(ci->hi, ci->estimate, 1e-6);
  // Bursty completions widen it; failures do not count.
  records.clear();
  for (int s = 0; s < 10; ++s) {
    for (int k = 0; k < (s % 2 == 0 ? 18 : 2); ++k) records.push_back(done_at(s + 0.5));
  }
  records.push_back(done_at(10));
  records.push_back(done_at(9.9, false));
  ci = throughput_interval(records, 10);
  ASSERT_TRUE(ci);
  EXPECT_NEAR(ci->estimate, 10.1, 1e-9);
  EXPECT_LT(ci->lo, 7);
  EXPECT_GT(ci->hi, 13);
  EXPECT_FALSE(throughput_interval({done_at(0.2)}));
}

}  // namespace
}  // namespace tokenbench::metrics
