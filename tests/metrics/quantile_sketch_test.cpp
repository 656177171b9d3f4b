#include "tokenbench/metrics/quantile_sketch.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "sketch_samples.h"
#include "tokenbench/metrics/percentile.h"
#include "tokenbench/metrics/streaming_distribution.h"

namespace tokenbench::metrics {
namespace {

using testing::make_sample;
using testing::Sample;
using testing::SampleSource;

constexpr double kAlpha = kDefaultRelativeError;
constexpr std::size_t kMillions = 2'000'000;
const std::vector<double> kReported{0, 0.1, 1, 5, 10, 25, 50, 75, 90, 95, 99, 99.9, 100};

// The bound quantile() promises against numpy's linear percentile of `sorted`: alpha times the
// interpolation of the two order statistics' magnitudes (alpha * |exact| when they share a sign),
// plus floating slack.
double allowed_error(const std::vector<double>& sorted, double p, double alpha) {
  const double r = static_cast<double>(sorted.size() - 1) * (p / 100.0);
  const auto lo = static_cast<std::size_t>(std::floor(r));
  const std::size_t hi = std::min(lo + 1, sorted.size() - 1);
  const double t = r - std::floor(r);
  const double exact = percentile_sorted(sorted, p);
  return alpha * ((1 - t) * std::abs(sorted[lo]) + t * std::abs(sorted[hi])) +
         1e-12 * std::abs(exact);
}

QuantileSketch sketch_of(const std::vector<double>& values, double alpha = kAlpha) {
  QuantileSketch s(alpha);
  for (double v : values) s.add(v);
  return s;
}

// Checks every reported percentile and a grid of 401 more against the exact ones.
void expect_within_bound(const std::vector<double>& values, const QuantileSketch& s) {
  std::vector<double> sorted = values;
  std::sort(sorted.begin(), sorted.end());
  std::vector<double> ps = kReported;
  for (int i = 0; i <= 400; ++i) ps.push_back(i * 0.25);
  for (double p : ps) {
    const double exact = percentile_sorted(sorted, p);
    EXPECT_LE(std::abs(s.quantile(p) - exact), allowed_error(sorted, p, kAlpha))
        << "p" << p << " exact " << exact << " sketch " << s.quantile(p);
  }
  EXPECT_EQ(s.quantile(0), sorted.front());
  EXPECT_EQ(s.quantile(100), sorted.back());
  EXPECT_EQ(s.count(), values.size());
  EXPECT_EQ(s.min(), sorted.front());
  EXPECT_EQ(s.max(), sorted.back());
  EXPECT_EQ(s.mean(), mean(values));  // the same sum in the same order
  EXPECT_NEAR(s.stddev(), population_std(values), 1e-9 * population_std(values));
}

class SketchOnSample : public ::testing::TestWithParam<Sample> {};

TEST_P(SketchOnSample, TwoMillionValuesWithinTheRelativeError) {
  const std::vector<double> values = make_sample(GetParam(), kMillions, 27);
  expect_within_bound(values, sketch_of(values));
}

std::string sample_name(const ::testing::TestParamInfo<Sample>& info) {
  constexpr const char* kNames[] = {"Lognormal", "Pareto", "Bimodal", "DuplicatesAndZeros",
                                    "MixedSigns"};
  return kNames[static_cast<int>(info.param)];
}

INSTANTIATE_TEST_SUITE_P(QuantileSketchTest, SketchOnSample,
                         ::testing::Values(Sample::kLognormal, Sample::kPareto, Sample::kBimodal,
                                           Sample::kDuplicatesAndZeros, Sample::kMixedSigns),
                         sample_name);

TEST(QuantileSketchTest, EmptyIsUndefined) {
  const QuantileSketch s;
  EXPECT_EQ(s.count(), 0U);
  EXPECT_EQ(s.sum(), 0.0);
  for (double v : {s.quantile(50), s.mean(), s.min(), s.max(), s.stddev(), s.sample_stddev()}) {
    EXPECT_FALSE(is_defined(v));
  }
  EXPECT_THROW((void)s.quantile(101), std::invalid_argument);
  EXPECT_THROW((void)s.quantile(std::nan("")), std::invalid_argument);
}

// A value counted n times at once is n calls of add(): the same buckets, count, min, max and
// quantiles; the same moments up to rounding. Likewise a StreamingDistribution, exact or not.
TEST(QuantileSketchTest, AValueCountedNTimesIsNAdds) {
  QuantileSketch one_by_one, at_once;
  const std::vector<std::pair<double, std::uint64_t>> values{
      {2.5, 16}, {0.125, 3}, {2.5, 1}, {-4.0, 7}, {0.0, 2}, {1e6, 5}, {std::nan(""), 4}};
  for (const auto& [v, n] : values) {
    for (std::uint64_t i = 0; i < n; ++i) one_by_one.add(v);
    at_once.add(v, n);
  }
  at_once.add(9.0, 0);  // nothing
  EXPECT_EQ(at_once.count(), one_by_one.count());
  EXPECT_EQ(at_once.refused(), 4u);
  EXPECT_EQ(at_once.min(), one_by_one.min());
  EXPECT_EQ(at_once.max(), one_by_one.max());
  EXPECT_NEAR(at_once.sum(), one_by_one.sum(), 1e-9);
  EXPECT_NEAR(at_once.mean(), one_by_one.mean(), 1e-9);
  EXPECT_NEAR(at_once.stddev(), one_by_one.stddev(), 1e-9);
  for (double p : {0.0, 10.0, 37.5, 50.0, 90.0, 99.0, 100.0}) {
    EXPECT_EQ(at_once.quantile(p), one_by_one.quantile(p)) << p;
  }
  for (const std::size_t limit : {std::size_t{0}, std::size_t{20}, std::size_t{1000}}) {
    StreamingDistribution a(limit), b(limit);
    for (const auto& [v, n] : values) {
      for (std::uint64_t i = 0; i < n; ++i) a.add(v);
      b.add(v, n);
    }
    EXPECT_EQ(a.exact(), b.exact()) << limit;
    EXPECT_EQ(a.count(), b.count()) << limit;
    EXPECT_NEAR(a.mean(), b.mean(), 1e-9) << limit;
    for (double p : {0.0, 25.0, 50.0, 99.0, 100.0}) {
      EXPECT_EQ(a.quantile(p), b.quantile(p)) << limit << " " << p;
    }
  }
}

TEST(QuantileSketchTest, RefusesNanAndInfinities) {
  QuantileSketch s;
  s.add(std::nan(""));
  s.add(std::numeric_limits<double>::infinity());
  s.add(-std::numeric_limits<double>::infinity());
  s.add(2.0);
  EXPECT_EQ(s.refused(), 3U);
  EXPECT_EQ(s.count(), 1U);
  EXPECT_EQ(s.quantile(50), 2.0);
}

TEST(QuantileSketchTest, SmallSamplesAndMoments) {
  QuantileSketch s;
  for (double v : {1.0, 2.0, 3.0, 4.0}) s.add(v);
  EXPECT_NEAR(s.quantile(50), 2.5, 2.5 * kAlpha);
  EXPECT_NEAR(s.quantile(90), 3.7, 3.7 * kAlpha);
  EXPECT_EQ(s.sum(), 10.0);
  EXPECT_DOUBLE_EQ(s.variance(), 1.25);            // np.var([1, 2, 3, 4])
  EXPECT_DOUBLE_EQ(s.sample_variance(), 5.0 / 3);  // ddof = 1
  QuantileSketch one;
  one.add(7.5);
  for (double p : {0.0, 10.0, 50.0, 100.0}) EXPECT_EQ(one.quantile(p), 7.5);
  EXPECT_FALSE(is_defined(one.sample_variance()));
}

TEST(QuantileSketchTest, TinyValuesCountAsZero) {
  QuantileSketch s;
  s.add(std::numeric_limits<double>::denorm_min());
  s.add(-std::numeric_limits<double>::denorm_min());
  s.add(0.0);
  s.add(1.0);
  EXPECT_EQ(s.quantile(50), 0.0);
  EXPECT_GT(s.min_indexable(), 0.0);
  EXPECT_LT(s.min_indexable(), 1e-300);
}

TEST(QuantileSketchTest, ExtremeMagnitudesStayFinite) {
  QuantileSketch s;
  for (double v : {std::numeric_limits<double>::max(), -std::numeric_limits<double>::max(),
                   std::numeric_limits<double>::min(), 1.0}) {
    s.add(v);
  }
  for (double p = 0; p <= 100; p += 5) EXPECT_TRUE(std::isfinite(s.quantile(p))) << p;
  EXPECT_EQ(s.quantile(100), std::numeric_limits<double>::max());
}

TEST(QuantileSketchTest, RejectsBadSettings) {
  EXPECT_THROW(QuantileSketch(0.0), std::invalid_argument);
  EXPECT_THROW(QuantileSketch(0.6), std::invalid_argument);
  EXPECT_THROW(QuantileSketch(std::nan("")), std::invalid_argument);
  EXPECT_THROW(QuantileSketch(kAlpha, 8), std::invalid_argument);
  EXPECT_THROW(QuantileSketch(kAlpha, kMaxMaxBuckets + 1), std::invalid_argument);
}

}  // namespace
}  // namespace tokenbench::metrics
