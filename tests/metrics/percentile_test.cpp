#include "tokenbench/metrics/percentile.h"

#include <gtest/gtest.h>

#include <cmath>
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

}  // namespace
}  // namespace tokenbench::metrics
