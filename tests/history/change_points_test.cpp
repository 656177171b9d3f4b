#include "tokenbench/history/change_points.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <random>
#include <vector>

namespace tokenbench::history {
namespace {

// A nightly benchmark's figure: normal noise of `cv` around `mean`, times `step` from `at` on.
std::vector<double> series(std::uint64_t seed, std::size_t n, double cv, std::size_t at = 0,
                           double step = 1) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> noise(0, cv);
  std::vector<double> out;
  for (std::size_t i = 0; i < n; ++i) {
    const double mean = 100 * (at > 0 && i >= at ? step : 1);
    out.push_back(mean * (1 + noise(rng)));
  }
  return out;
}

TEST(ChangePoints, BestSplitOfAStepIsTheStep) {
  const std::vector<double> x{1, 1, 1, 1, 5, 5, 5, 5, 5};
  const Split s = best_split(x, 2);
  EXPECT_EQ(s.index, 4u);
  // Q = t(n-t)/n * (2/(t(n-t)) * B - WX/C(t,2) - WY/C(n-t,2)) with WX = WY = 0 and B = 4*5*4.
  EXPECT_NEAR(s.statistic, 4.0 * 5 / 9 * (2.0 / 20 * 80), 1e-12);
  EXPECT_EQ(best_split(std::vector<double>{1, 2, 3}, 2).index, 0u);  // too short to split
}

TEST(ChangePoints, FindsAPlantedEightPercentStepAtRunTwenty) {
  // 30 runs, 2 % noise, +8 % from run 20 (index 19, the 20th run): found at 20 +- 1, over seeds.
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    const auto x = series(seed, 30, 0.02, 19, 1.08);
    const auto found = e_divisive(x);
    ASSERT_EQ(found.size(), 1u) << "seed " << seed;
    EXPECT_NEAR(static_cast<double>(found[0].index), 19.0, 1.0) << "seed " << seed;
    EXPECT_LE(found[0].p_value, 0.01);
    EXPECT_NEAR(found[0].mean_after / found[0].mean_before, 1.08, 0.03) << "seed " << seed;
  }
}

TEST(ChangePoints, NoChangeInOneDistributionAtTheStatedRate) {
  // 30 runs of one distribution: the significance (0.01) is the chance of a false change per
  // series; over 20 seeds that is 0.2 expected, so more than one would break the stated rate.
  int false_changes = 0;
  for (std::uint64_t seed = 100; seed < 120; ++seed) {
    false_changes += static_cast<int>(e_divisive(series(seed, 30, 0.03)).size());
  }
  EXPECT_LE(false_changes, 1);
  // And over 200 series (2 expected at 0.01): more than 6 has a chance under 0.5 %.
  int over_200 = 0;
  for (std::uint64_t seed = 1000; seed < 1200; ++seed) {
    over_200 += e_divisive(series(seed, 30, 0.03)).empty() ? 0 : 1;
  }
  EXPECT_LE(over_200, 6);
  std::printf("false changes: %d of 20 series, %d of 200\n", false_changes, over_200);
}

TEST(ChangePoints, TwoStepsAreBothFound) {
  std::vector<double> x = series(7, 45, 0.01);
  for (std::size_t i = 15; i < 30; ++i) x[i] *= 1.10;
  for (std::size_t i = 30; i < 45; ++i) x[i] *= 0.95;
  const auto found = e_divisive(x);
  ASSERT_EQ(found.size(), 2u);
  EXPECT_NEAR(static_cast<double>(found[0].index), 15.0, 1.0);
  EXPECT_NEAR(static_cast<double>(found[1].index), 30.0, 1.0);
  EXPECT_GT(found[0].mean_after, found[0].mean_before);
  EXPECT_LT(found[1].mean_after, found[1].mean_before);
}

TEST(ChangePoints, DeterministicAndTolerantOfShortSeries) {
  const auto x = series(3, 30, 0.02, 19, 1.08);
  const auto a = e_divisive(x);
  const auto b = e_divisive(x);
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) EXPECT_EQ(a[i].p_value, b[i].p_value);
  EXPECT_TRUE(e_divisive(std::vector<double>{}).empty());
  EXPECT_TRUE(e_divisive(std::vector<double>{1, 2, 3, 4, 5}).empty());
  EXPECT_TRUE(e_divisive(std::vector<double>(30, 42.0)).empty());  // a constant series
}

}  // namespace
}  // namespace tokenbench::history
