#include "tokenbench/metrics/percentile.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <stdexcept>
#include <vector>

namespace tokenbench::metrics {
namespace {

// Expected values are numpy's: np.percentile(a, p) (method "linear"), np.std(a) (ddof = 0).

TEST(PercentileTest, MatchesNumpyLinearOnFourValues) {
  const std::vector<double> a{1, 2, 3, 4};
  EXPECT_DOUBLE_EQ(percentile(a, 50), 2.5);
  EXPECT_DOUBLE_EQ(percentile(a, 90), 3.7);
  EXPECT_DOUBLE_EQ(percentile(a, 99), 3.97);
  EXPECT_DOUBLE_EQ(percentile(a, 99.9), 3.997);
  EXPECT_DOUBLE_EQ(percentile(a, 25), 1.75);
  EXPECT_DOUBLE_EQ(percentile(a, 0), 1.0);
  EXPECT_DOUBLE_EQ(percentile(a, 100), 4.0);
}

TEST(PercentileTest, SortsUnorderedInput) {
  // np.percentile([50, 15, 40, 20, 35], 40) == 29.0
  EXPECT_DOUBLE_EQ(percentile({50, 15, 40, 20, 35}, 40), 29.0);
  EXPECT_DOUBLE_EQ(percentile({50, 15, 40, 20, 35}, 50), 35.0);
}

TEST(PercentileTest, SingleElementIsEveryPercentile) {
  for (double p : {0.0, 10.0, 50.0, 99.0, 100.0}) EXPECT_DOUBLE_EQ(percentile({7.5}, p), 7.5);
}

TEST(PercentileTest, EmptyIsUndefined) {
  EXPECT_FALSE(is_defined(percentile({}, 50)));
  EXPECT_FALSE(is_defined(mean(std::vector<double>{})));
  EXPECT_FALSE(is_defined(population_std(std::vector<double>{})));
}

TEST(PercentileTest, RejectsOutOfRange) {
  EXPECT_THROW(percentile({1, 2}, -1), std::invalid_argument);
  EXPECT_THROW(percentile({1, 2}, 100.5), std::invalid_argument);
  EXPECT_THROW(percentile({1, 2}, std::nan("")), std::invalid_argument);
}

TEST(PercentileTest, MeanAndPopulationStd) {
  const std::vector<double> a{1, 2, 3, 4};
  EXPECT_DOUBLE_EQ(mean(a), 2.5);
  EXPECT_DOUBLE_EQ(population_std(a), std::sqrt(1.25));  // np.std -> 1.118033988749895
  const std::vector<double> b{2, 4, 4, 4, 5, 5, 7, 9};
  EXPECT_DOUBLE_EQ(population_std(b), 2.0);
  EXPECT_DOUBLE_EQ(population_std(std::vector<double>{3.0}), 0.0);
}

TEST(PercentileTest, DistributionHoldsEveryStatistic) {
  const std::vector<double> ps{99, 50, 90, 50};
  const Distribution d = make_distribution({4, 1, 3, 2}, ps);
  EXPECT_EQ(d.count, 4u);
  EXPECT_DOUBLE_EQ(d.mean, 2.5);
  EXPECT_DOUBLE_EQ(d.std, std::sqrt(1.25));
  EXPECT_DOUBLE_EQ(d.min, 1.0);
  EXPECT_DOUBLE_EQ(d.max, 4.0);
  EXPECT_DOUBLE_EQ(d.median, 2.5);
  ASSERT_EQ(d.percentiles.size(), 3u);  // sorted, duplicates dropped
  EXPECT_EQ(d.percentiles[0].first, 50);
  EXPECT_EQ(d.percentiles[2].first, 99);
  EXPECT_DOUBLE_EQ(d.at(90), 3.7);
  EXPECT_DOUBLE_EQ(d.at(99), 3.97);
  EXPECT_FALSE(is_defined(d.at(75)));  // not requested
}

TEST(PercentileTest, EmptyDistributionIsUndefined) {
  const std::vector<double> ps{50, 99};
  const Distribution d = make_distribution({}, ps);
  EXPECT_EQ(d.count, 0u);
  EXPECT_FALSE(is_defined(d.mean));
  EXPECT_FALSE(is_defined(d.std));
  EXPECT_FALSE(is_defined(d.min));
  EXPECT_FALSE(is_defined(d.max));
  EXPECT_FALSE(is_defined(d.median));
  ASSERT_EQ(d.percentiles.size(), 2u);
  EXPECT_FALSE(is_defined(d.at(99)));
}

TEST(QuantileCiTest, RanksMatchTheBinomialTables) {
  // The median of 100 values at 95%: x_(40)..x_(61), as every table of order-statistic
  // intervals gives (P(B <= 39) = 0.0176 <= 0.025 < P(B <= 40) = 0.0284, B ~ Bin(100, 0.5)).
  QuantileRanks r = quantile_ci_ranks(100, 50, 0.05);
  EXPECT_EQ(r.lower, 40u);
  EXPECT_EQ(r.upper, 61u);
  // p99 of 300 values: P(B = 300) = 0.99^300 = 0.049, so no upper rank below alpha / 2 = 0.025;
  // the lower rank is the largest l with P(B < l) <= 0.025 (B's mean 297, sd 1.72).
  r = quantile_ci_ranks(300, 99, 0.05);
  EXPECT_EQ(r.upper, 301u);
  EXPECT_EQ(r.lower, 293u);
  // p99 of 400: P(B = 400) = 0.018 <= 0.025, so the maximum bounds it.
  EXPECT_EQ(quantile_ci_ranks(400, 99, 0.05).upper, 400u);
  // Too few values for either side.
  r = quantile_ci_ranks(3, 50, 0.05);
  EXPECT_EQ(r.lower, 0u);
  EXPECT_EQ(r.upper, 4u);
  EXPECT_THROW(quantile_ci_ranks(10, 0, 0.05), std::invalid_argument);
  EXPECT_THROW(quantile_ci_ranks(10, 50, 1.0), std::invalid_argument);
}

TEST(QuantileCiTest, IntervalIsTheOrderStatistics) {
  std::vector<double> v(100);
  for (int i = 0; i < 100; ++i) v[i] = i + 1;  // x_(k) = k
  const auto [low, high] = quantile_ci(v, 50, 0.05);
  EXPECT_EQ(low, 40.0);
  EXPECT_EQ(high, 61.0);
  const auto [low99, high99] = quantile_ci(v, 99, 0.05);
  EXPECT_TRUE(std::isinf(high99) && high99 > 0);
  EXPECT_LT(low99, 100.0);
  EXPECT_FALSE(is_defined(quantile_ci({}, 50, 0.05).first));
}

TEST(QuantileCiTest, CoversTheTrueQuantileAtLeastAsOftenAsPromised) {
  // 2000 samples of 150 exponential values: the 95% interval of the p95 (true value ln 20) must
  // miss at most 5% of the time (plus 1.5 points of sampling slack: the miss count is binomial
  // with sd 0.5 points), and each side at most 2.5%.
  std::mt19937_64 rng(7);
  std::exponential_distribution<double> exp1(1.0);
  const double truth = std::log(20.0);
  int below = 0;
  int above = 0;
  std::vector<double> v(150);
  for (int trial = 0; trial < 2000; ++trial) {
    for (double& x : v) x = exp1(rng);
    std::sort(v.begin(), v.end());
    const auto [low, high] = quantile_ci(v, 95, 0.05);
    below += high < truth ? 1 : 0;
    above += low > truth ? 1 : 0;
  }
  EXPECT_LE(below, 2000 * 0.04);
  EXPECT_LE(above, 2000 * 0.04);
  EXPECT_LE(below + above, 2000 * 0.065);
  EXPECT_GT(below + above, 0);  // not vacuous: the interval is not everything
}

}  // namespace
}  // namespace tokenbench::metrics
