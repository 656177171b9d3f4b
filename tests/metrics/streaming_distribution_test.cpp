#include "tokenbench/metrics/streaming_distribution.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "sketch_samples.h"
#include "tokenbench/metrics/percentile.h"

namespace tokenbench::metrics {
namespace {

using testing::make_sample;
using testing::Sample;

std::vector<double> grid() {
  std::vector<double> ps{0.1, 99.9};
  for (int i = 0; i <= 200; ++i) ps.push_back(i * 0.5);
  return ps;
}

TEST(StreamingDistributionTest, ExactIsBitIdenticalToPercentile) {
  const std::vector<double> values = make_sample(Sample::kBimodal, 50'000, 1);
  StreamingDistribution d(50'000);
  for (double v : values) d.add(v);
  ASSERT_TRUE(d.exact());
  EXPECT_EQ(d.relative_error(), 0.0);
  for (double p : grid()) EXPECT_EQ(d.quantile(p), percentile(values, p)) << p;
  EXPECT_EQ(d.count(), values.size());
  EXPECT_EQ(d.mean(), mean(values));
  EXPECT_NEAR(d.stddev(), population_std(values), 1e-12 * population_std(values));
  EXPECT_EQ(d.min(), *std::min_element(values.begin(), values.end()));
  EXPECT_EQ(d.max(), *std::max_element(values.begin(), values.end()));
  d.add(1.0);  // one past the limit: the values are dropped
  EXPECT_FALSE(d.exact());
  EXPECT_EQ(d.relative_error(), kDefaultRelativeError);
}

TEST(StreamingDistributionTest, SwitchesToTheSketchPastTheLimit) {
  const std::vector<double> values = make_sample(Sample::kLognormal, 2'000'000, 2);
  StreamingDistribution d(100'000);
  std::size_t added = 0;
  for (double v : values) {
    d.add(v);
    ++added;
    if (added == 100'000) {
      EXPECT_TRUE(d.exact());
    }
    if (added == 100'001) {
      EXPECT_FALSE(d.exact());
    }
  }
  std::vector<double> sorted = values;
  std::sort(sorted.begin(), sorted.end());
  for (double p : grid()) {
    const double exact = percentile_sorted(sorted, p);
    EXPECT_LE(std::abs(d.quantile(p) - exact), (kDefaultRelativeError + 1e-12) * exact) << p;
  }
  EXPECT_EQ(d.quantile(0), sorted.front());
  EXPECT_EQ(d.quantile(100), sorted.back());
  EXPECT_EQ(d.count(), values.size());
  EXPECT_EQ(d.mean(), mean(values));
}

TEST(StreamingDistributionTest, MergeStaysExactWhileTheUnionFits) {
  const std::vector<double> a = make_sample(Sample::kMixedSigns, 3'000, 3);
  const std::vector<double> b = make_sample(Sample::kDuplicatesAndZeros, 2'000, 4);
  StreamingDistribution da(5'000);
  StreamingDistribution db(5'000);
  for (double v : a) da.add(v);
  (void)da.quantile(50);  // sorts a's values; the merge must sort again
  for (double v : b) db.add(v);
  da.merge(db);
  ASSERT_TRUE(da.exact());
  std::vector<double> both = a;
  both.insert(both.end(), b.begin(), b.end());
  for (double p : grid()) EXPECT_EQ(da.quantile(p), percentile(both, p)) << p;
  EXPECT_EQ(da.count(), 5'000U);

  da.merge(db);  // 7,000 > 5,000: a sketch
  EXPECT_FALSE(da.exact());
  EXPECT_EQ(da.count(), 7'000U);
  StreamingDistribution sketch_only(0);
  EXPECT_FALSE(sketch_only.exact());
  db.merge(sketch_only);  // a sketch merged in: no longer exact
  EXPECT_FALSE(db.exact());
  EXPECT_THROW(db.merge(StreamingDistribution(10, 0.01)), std::invalid_argument);
}

TEST(StreamingDistributionTest, EmptyAndRefused) {
  StreamingDistribution d(10);
  EXPECT_FALSE(is_defined(d.quantile(50)));
  EXPECT_FALSE(is_defined(d.mean()));
  d.add(std::nan(""));
  EXPECT_EQ(d.refused(), 1U);
  EXPECT_EQ(d.count(), 0U);
  EXPECT_TRUE(d.exact());
  EXPECT_THROW((void)d.quantile(-1), std::invalid_argument);
  StreamingDistribution zero(0);
  zero.add(5.0);
  EXPECT_FALSE(zero.exact());
  EXPECT_EQ(zero.quantile(50), 5.0);
}

}  // namespace
}  // namespace tokenbench::metrics
