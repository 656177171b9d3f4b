#include "tokenbench/load/arrival_schedule.h"

#include <gtest/gtest.h>

#include <cmath>
#include <thread>
#include <vector>

#include "tokenbench/load/work_queue.h"

namespace tokenbench::load {
namespace {

struct GapStats {
  double mean = 0;
  double variance = 0;
};

GapStats gap_stats(const ArrivalSchedule& s) {
  std::vector<double> gaps;
  for (std::size_t i = 1; i < s.size(); ++i) {
    gaps.push_back(static_cast<double>(s.offset(i) - s.offset(i - 1)) / 1e9);
  }
  GapStats st;
  for (double g : gaps) st.mean += g;
  st.mean /= static_cast<double>(gaps.size());
  for (double g : gaps) st.variance += (g - st.mean) * (g - st.mean);
  st.variance /= static_cast<double>(gaps.size());
  return st;
}

// For gamma gaps with shape k and mean 1/r: variance = 1/(k r^2). Poisson: k = 1.
TEST(ArrivalSchedule, PoissonGapsHaveMeanAndVarianceOfExponential) {
  const double rate = 20.0;
  const auto s = ArrivalSchedule::open_loop(20001, 0, rate, core::ArrivalKind::kGamma, 1.0, 42);
  ASSERT_EQ(s.size(), 20001u);
  EXPECT_EQ(s.offset(0), 0);
  const auto st = gap_stats(s);
  EXPECT_NEAR(st.mean, 1.0 / rate, 0.02 / rate);
  EXPECT_NEAR(st.variance, 1.0 / (rate * rate), 0.05 / (rate * rate));
}

TEST(ArrivalSchedule, GammaBurstinessScalesTheVariance) {
  const double rate = 10.0;
  for (double k : {0.25, 4.0}) {
    const auto s = ArrivalSchedule::open_loop(20001, 0, rate, core::ArrivalKind::kGamma, k, 7);
    const auto st = gap_stats(s);
    const double var = 1.0 / (k * rate * rate);
    EXPECT_NEAR(st.mean, 1.0 / rate, 0.03 / rate) << "burstiness " << k;
    EXPECT_NEAR(st.variance, var, 0.08 * var) << "burstiness " << k;
  }
}

TEST(ArrivalSchedule, ConstantArrivalsAreEvenlySpaced) {
  const auto s = ArrivalSchedule::open_loop(5, 0, 4.0, core::ArrivalKind::kConstant, 1.0, 0);
  ASSERT_EQ(s.size(), 5u);
  for (std::size_t i = 0; i < 5; ++i)
    EXPECT_EQ(s.offset(i), static_cast<core::Nanos>(i) * 250'000'000);
}

TEST(ArrivalSchedule, SameSeedSameSchedule) {
  const auto a = ArrivalSchedule::open_loop(100, 0, 5.0, core::ArrivalKind::kGamma, 0.5, 3);
  const auto b = ArrivalSchedule::open_loop(100, 0, 5.0, core::ArrivalKind::kGamma, 0.5, 3);
  const auto c = ArrivalSchedule::open_loop(100, 0, 5.0, core::ArrivalKind::kGamma, 0.5, 4);
  bool differs = false;
  for (std::size_t i = 0; i < 100; ++i) {
    EXPECT_EQ(a.offset(i), b.offset(i));
    differs |= a.offset(i) != c.offset(i);
  }
  EXPECT_TRUE(differs);
}

TEST(ArrivalSchedule, DurationBoundsAnUnboundedSchedule) {
  const auto s = ArrivalSchedule::open_loop(ArrivalSchedule::kUnbounded, 2.0, 10.0,
                                            core::ArrivalKind::kConstant, 1.0, 0);
  EXPECT_EQ(s.size(), 20u);  // 0.0, 0.1, ..., 1.9
  EXPECT_LT(s.offset(s.size() - 1), 2'000'000'000);
}

TEST(ArrivalSchedule, RejectsBadRates) {
  EXPECT_THROW(ArrivalSchedule::open_loop(10, 0, 0.0, core::ArrivalKind::kGamma, 1, 0),
               std::invalid_argument);
  EXPECT_THROW(ArrivalSchedule::open_loop(10, 0, 1.0, core::ArrivalKind::kGamma, 0, 0),
               std::invalid_argument);
}

TEST(WorkQueue, HandsOutEveryIndexOnceAcrossThreads) {
  const auto s = ArrivalSchedule::immediate(10000);
  WorkQueue q(s, 0);
  std::vector<std::vector<std::size_t>> got(4);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      std::size_t i = 0;
      core::Nanos due = 0;
      while (q.peek(0, i, due)) {
        if (q.try_claim(i)) got[t].push_back(i);
      }
    });
  }
  for (auto& th : threads) th.join();
  std::vector<int> seen(10000, 0);
  for (const auto& v : got) {
    for (auto i : v) ++seen[i];
  }
  for (int c : seen) ASSERT_EQ(c, 1);
  EXPECT_EQ(q.claimed(), 10000u);
}

TEST(WorkQueue, DueTimesAndDeadline) {
  const auto s = ArrivalSchedule::open_loop(3, 0, 1.0, core::ArrivalKind::kConstant, 1, 0);
  WorkQueue q(s, 500, 1'500'000'500);  // phase starts at 500 ns, deadline 1.5 s later
  std::size_t i = 0;
  core::Nanos due = 0;
  ASSERT_TRUE(q.peek(0, i, due));
  EXPECT_EQ(due, 500);
  ASSERT_TRUE(q.try_claim(i));
  ASSERT_TRUE(q.peek(0, i, due));
  EXPECT_EQ(due, 1'000'000'500);
  ASSERT_TRUE(q.try_claim(i));
  EXPECT_FALSE(q.peek(0, i, due));  // the third arrival (2 s) is past the deadline
  const auto u = ArrivalSchedule::immediate(ArrivalSchedule::kUnbounded);
  WorkQueue unbounded(u, 0, 100);
  EXPECT_TRUE(unbounded.peek(99, i, due));
  EXPECT_FALSE(unbounded.peek(100, i, due));
  unbounded.stop();
  EXPECT_FALSE(unbounded.peek(0, i, due));
}

}  // namespace
}  // namespace tokenbench::load
