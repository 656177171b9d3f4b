#include "tokenbench/load/arrival_schedule.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <stdexcept>
#include <string>
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

// A rate so small that later arrivals fall past any horizon: their offsets saturate, never wrap
// into negative durations.
TEST(ArrivalSchedule, TinyRateSaturatesInsteadOfOverflowing) {
  for (const auto kind : {core::ArrivalKind::kConstant, core::ArrivalKind::kGamma}) {
    const auto s = ArrivalSchedule::open_loop(4, 0, 1e-300, kind, 1.0, 7);
    ASSERT_EQ(s.size(), 4u);
    EXPECT_EQ(s.offset(0), 0);
    for (std::size_t i = 1; i < s.size(); ++i) {
      EXPECT_GE(s.offset(i), s.offset(i - 1));
      EXPECT_LE(s.offset(i), core::kSaturatedNanos);
    }
    EXPECT_EQ(s.offset(3), core::kSaturatedNanos);
  }
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

// Ramps. References are computed here in long double from the closed forms of Λ⁻¹, in a different
// form from the implementation's.

// Linear from 2 to 10 requests/s over 4 s: Λ(t) = 2t + t² for t <= 4, so Λ⁻¹(u) = √(1 + u) − 1 up
// to Λ(4) = 24, then 4 + (u − 24)/10.
long double linear_2_to_10_over_4_inverse(long double u) {
  return u <= 24 ? std::sqrt(1 + u) - 1 : 4 + (u - 24) / 10;
}

// Exponential from 1 to 8 requests/s over 3 s: λ(t) = 2^t, Λ(t) = (2^t − 1)/ln 2, so
// Λ⁻¹(u) = log2(1 + u·ln 2) up to Λ(3) = 7/ln 2, then 3 + (u − 7/ln 2)/8.
long double exponential_1_to_8_over_3_inverse(long double u) {
  const long double ln2 = std::log(2.0L);
  return u <= 7 / ln2 ? std::log2(1 + u * ln2) : 3 + (u - 7 / ln2) / 8;
}

void expect_offsets_at_inverse(const ArrivalSchedule& s,
                               const std::function<long double(long double)>& inverse) {
  for (std::size_t k = 0; k < s.size(); ++k) {
    const long double want_ns = inverse(static_cast<long double>(k)) * 1e9L;
    EXPECT_NEAR(static_cast<double>(s.offset(k)), static_cast<double>(want_ns), 1.0)
        << "arrival " << k;
  }
}

TEST(ArrivalScheduleRamp, LinearConstantArrivalsSitWhereTheIntensityReachesK) {
  const Ramp ramp{core::RampKind::kLinear, 2.0, 4.0};
  const auto s =
      ArrivalSchedule::open_loop(60, 0, 10.0, core::ArrivalKind::kConstant, 1.0, 0, ramp);
  ASSERT_EQ(s.size(), 60u);
  expect_offsets_at_inverse(s, linear_2_to_10_over_4_inverse);
  // Hand-checked points inside the ramp (Λ(1) = 3, Λ(2) = 8, Λ(3) = 15), at its end and past it.
  EXPECT_EQ(s.offset(0), 0);
  EXPECT_NEAR(s.offset(1), 414'213'562, 1);  // √2 − 1 s
  EXPECT_NEAR(s.offset(3), 1'000'000'000, 1);
  EXPECT_NEAR(s.offset(8), 2'000'000'000, 1);
  EXPECT_NEAR(s.offset(15), 3'000'000'000, 1);
  EXPECT_NEAR(s.offset(24), 4'000'000'000, 1);
  EXPECT_NEAR(s.offset(25), 4'100'000'000, 1);
  EXPECT_NEAR(s.offset(59), 7'500'000'000, 1);
}

TEST(ArrivalScheduleRamp, ExponentialConstantArrivalsSitWhereTheIntensityReachesK) {
  const Ramp ramp{core::RampKind::kExponential, 1.0, 3.0};
  const auto s = ArrivalSchedule::open_loop(40, 0, 8.0, core::ArrivalKind::kConstant, 1.0, 0, ramp);
  ASSERT_EQ(s.size(), 40u);
  expect_offsets_at_inverse(s, exponential_1_to_8_over_3_inverse);
  EXPECT_EQ(s.offset(0), 0);
  // Λ(1) = 1/ln 2 ≈ 1.44: arrival 1 is before 1 s, arrival 2 after it.
  EXPECT_NEAR(s.offset(1), 1e9 * std::log2(1 + std::log(2.0)), 1);
  EXPECT_LT(s.offset(1), 1'000'000'000);
  EXPECT_GT(s.offset(2), 1'000'000'000);
  // Past the ramp (Λ(3) = 10.099) arrivals are 1/8 s apart.
  for (std::size_t k = 12; k < 40; ++k) EXPECT_NEAR(s.offset(k) - s.offset(k - 1), 125'000'000, 1);
}

TEST(ArrivalScheduleRamp, RampFromTheTargetRateIsNoRamp) {
  for (auto kind : {core::RampKind::kLinear, core::RampKind::kExponential}) {
    const auto s = ArrivalSchedule::open_loop(50, 0, 5.0, core::ArrivalKind::kConstant, 1.0, 0,
                                              Ramp{kind, 5.0, 4.0});
    ASSERT_EQ(s.size(), 50u);
    for (std::size_t k = 0; k < 50; ++k) {
      EXPECT_NEAR(s.offset(k), static_cast<double>(k) * 200'000'000, 1)
          << core::to_string(kind) << " arrival " << k;
    }
  }
}

std::size_t count_before(const ArrivalSchedule& s, double t_s) {
  std::size_t n = 0;
  for (std::size_t i = 0; i < s.size(); ++i) n += s.offset(i) < static_cast<core::Nanos>(t_s * 1e9);
  return n;
}

// The constant kind puts one arrival at each u = 0, 1, 2, ... so the ramp window [0, D) holds
// floor(Λ(D)) + 1 of them when Λ(D) is not an integer.
TEST(ArrivalScheduleRamp, ConstantArrivalsInTheRampWindow) {
  // Linear 1.5 -> 10 over 3 s: Λ(3) = (1.5 + 10)/2 · 3 = 17.25.
  const auto lin = ArrivalSchedule::open_loop(100, 0, 10.0, core::ArrivalKind::kConstant, 1.0, 0,
                                              Ramp{core::RampKind::kLinear, 1.5, 3.0});
  EXPECT_EQ(count_before(lin, 3.0), 18u);
  // Exponential 1 -> 8 over 3 s: Λ(3) = 7/ln 2 = 10.099.
  const auto expo = ArrivalSchedule::open_loop(100, 0, 8.0, core::ArrivalKind::kConstant, 1.0, 0,
                                               Ramp{core::RampKind::kExponential, 1.0, 3.0});
  EXPECT_EQ(count_before(expo, 3.0), 11u);
}

TEST(ArrivalScheduleRamp, DurationBoundsAnUnboundedRampedSchedule) {
  const Ramp ramp{core::RampKind::kLinear, 1.5, 3.0};
  // Λ(10) = 17.25 + 10 · 7 = 87.25: arrivals at u = 0..87.
  const auto past = ArrivalSchedule::open_loop(ArrivalSchedule::kUnbounded, 10.0, 10.0,
                                               core::ArrivalKind::kConstant, 1.0, 0, ramp);
  EXPECT_EQ(past.size(), 88u);
  EXPECT_EQ(past.offset(0), 0);
  EXPECT_LT(past.offset(past.size() - 1), 10'000'000'000);
  // A run shorter than the ramp: Λ(2) = 1.5 · 2 + 8.5 · 4/6 = 8.67, arrivals at u = 0..8.
  const auto inside = ArrivalSchedule::open_loop(ArrivalSchedule::kUnbounded, 2.0, 10.0,
                                                 core::ArrivalKind::kConstant, 1.0, 0, ramp);
  EXPECT_EQ(inside.size(), 9u);
  EXPECT_LT(inside.offset(inside.size() - 1), 2'000'000'000);
}

// Λ for a ramp from r0 to R over D seconds, in long double.
long double cumulative_intensity(core::RampKind kind, long double r0, long double rate,
                                 long double d, long double t) {
  const long double in = std::min(t, d);
  long double at = 0;
  if (kind == core::RampKind::kLinear) {
    at = r0 * in + (rate - r0) * in * in / (2 * d);
  } else {
    const long double k = std::log(rate / r0) / d;
    at = r0 * (std::exp(k * in) - 1) / k;
  }
  return at + rate * std::max(t - d, 0.0L);
}

// With burstiness 1 the ramped schedule is an inhomogeneous Poisson process: the count in a window
// is Poisson with mean ∫λ over it (plus the deterministic first arrival at 0), and past the ramp
// gaps are exponential with mean 1/rate.
TEST(ArrivalScheduleRamp, PoissonCountsFollowTheRampedIntensity) {
  const double r0 = 20, rate = 200, d = 20;
  for (auto kind : {core::RampKind::kLinear, core::RampKind::kExponential}) {
    const auto s = ArrivalSchedule::open_loop(20000, 0, rate, core::ArrivalKind::kGamma, 1.0, 42,
                                              Ramp{kind, r0, d});
    ASSERT_EQ(s.size(), 20000u);
    EXPECT_EQ(s.offset(0), 0);
    std::vector<double> after;  // gaps that start at or after the ramp's end
    for (std::size_t i = 1; i < s.size(); ++i) {
      ASSERT_GE(s.offset(i), s.offset(i - 1));
      if (s.offset(i - 1) >= static_cast<core::Nanos>(d * 1e9)) {
        after.push_back(static_cast<double>(s.offset(i) - s.offset(i - 1)) / 1e9);
      }
    }
    for (double a = 0; a < d; a += 2) {
      std::size_t n = 0;
      for (std::size_t i = 0; i < s.size(); ++i) {
        n += s.offset(i) >= static_cast<core::Nanos>(a * 1e9) &&
             s.offset(i) < static_cast<core::Nanos>((a + 2) * 1e9);
      }
      const double mean = static_cast<double>(cumulative_intensity(kind, r0, rate, d, a + 2) -
                                              cumulative_intensity(kind, r0, rate, d, a));
      const double want = mean + (a == 0 ? 1 : 0);
      EXPECT_NEAR(static_cast<double>(n), want, 5 * std::sqrt(mean))
          << core::to_string(kind) << " bin [" << a << ", " << a + 2 << ")";
    }
    ASSERT_GT(after.size(), 15000u);
    double gap_mean = 0;
    for (double g : after) gap_mean += g;
    gap_mean /= static_cast<double>(after.size());
    double gap_var = 0;
    for (double g : after) gap_var += (g - gap_mean) * (g - gap_mean);
    gap_var /= static_cast<double>(after.size());
    // The mean of ~17,800 exponential gaps has a relative sd of 0.75 %; the variance of 2.1 %.
    EXPECT_NEAR(gap_mean, 1.0 / rate, 0.04 / rate) << core::to_string(kind);
    EXPECT_NEAR(gap_var, 1.0 / (rate * rate), 0.11 / (rate * rate)) << core::to_string(kind);
  }
}

TEST(ArrivalScheduleRamp, GammaBurstinessHoldsPastTheRamp) {
  const double rate = 100, k = 4;
  const auto s = ArrivalSchedule::open_loop(20000, 0, rate, core::ArrivalKind::kGamma, k, 9,
                                            Ramp{core::RampKind::kLinear, 10, 10});
  std::vector<double> after;
  for (std::size_t i = 1; i < s.size(); ++i) {
    if (s.offset(i - 1) >= 10'000'000'000) {
      after.push_back(static_cast<double>(s.offset(i) - s.offset(i - 1)) / 1e9);
    }
  }
  ASSERT_GT(after.size(), 19000u);  // Λ(10) = 550
  double mean = 0;
  for (double g : after) mean += g;
  mean /= static_cast<double>(after.size());
  double var = 0;
  for (double g : after) var += (g - mean) * (g - mean);
  var /= static_cast<double>(after.size());
  EXPECT_NEAR(mean, 1.0 / rate, 0.03 / rate);
  EXPECT_NEAR(var, 1.0 / (k * rate * rate), 0.08 / (k * rate * rate));
}

TEST(ArrivalScheduleRamp, RampedOffsetsNeverDecrease) {
  // Very bursty gaps put many arrivals within a rounding error of one another.
  const auto s = ArrivalSchedule::open_loop(50000, 0, 500.0, core::ArrivalKind::kGamma, 0.05, 5,
                                            Ramp{core::RampKind::kExponential, 0.5, 30.0});
  ASSERT_EQ(s.size(), 50000u);
  EXPECT_EQ(s.offset(0), 0);
  for (std::size_t i = 1; i < s.size(); ++i) ASSERT_GE(s.offset(i), s.offset(i - 1)) << i;
}

TEST(ArrivalScheduleRamp, NoneIsTheScheduleWithoutARamp) {
  // The fields of a kNone ramp are ignored, even invalid ones.
  for (const Ramp& none :
       {Ramp{}, Ramp{core::RampKind::kNone, 5.0, 3.0}, Ramp{core::RampKind::kNone, -1.0, 0.0}}) {
    for (auto kind : {core::ArrivalKind::kConstant, core::ArrivalKind::kGamma}) {
      const auto a = ArrivalSchedule::open_loop(500, 0, 7.0, kind, 0.5, 11);
      const auto b = ArrivalSchedule::open_loop(500, 0, 7.0, kind, 0.5, 11, none);
      ASSERT_EQ(a.size(), b.size());
      for (std::size_t i = 0; i < a.size(); ++i) ASSERT_EQ(a.offset(i), b.offset(i)) << i;
      const auto c =
          ArrivalSchedule::open_loop(ArrivalSchedule::kUnbounded, 30.0, 7.0, kind, 0.5, 11);
      const auto d =
          ArrivalSchedule::open_loop(ArrivalSchedule::kUnbounded, 30.0, 7.0, kind, 0.5, 11, none);
      ASSERT_EQ(c.size(), d.size());
      for (std::size_t i = 0; i < c.size(); ++i) ASSERT_EQ(c.offset(i), d.offset(i)) << i;
    }
  }
}

TEST(ArrivalScheduleRamp, SameSeedSameRampedSchedule) {
  const Ramp ramp{core::RampKind::kLinear, 1.0, 5.0};
  const auto a = ArrivalSchedule::open_loop(200, 0, 20.0, core::ArrivalKind::kGamma, 1.0, 3, ramp);
  const auto b = ArrivalSchedule::open_loop(200, 0, 20.0, core::ArrivalKind::kGamma, 1.0, 3, ramp);
  const auto c = ArrivalSchedule::open_loop(200, 0, 20.0, core::ArrivalKind::kGamma, 1.0, 4, ramp);
  bool differs = false;
  for (std::size_t i = 0; i < 200; ++i) {
    EXPECT_EQ(a.offset(i), b.offset(i));
    differs |= a.offset(i) != c.offset(i);
  }
  EXPECT_TRUE(differs);
}

std::string ramp_error(double rate, const Ramp& ramp) {
  try {
    ArrivalSchedule::open_loop(10, 0, rate, core::ArrivalKind::kGamma, 1.0, 0, ramp);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "no error";
}

TEST(ArrivalScheduleRamp, RejectsBadRamps) {
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (auto kind : {core::RampKind::kLinear, core::RampKind::kExponential}) {
    for (double start : {0.0, -1.0, nan, inf}) {
      EXPECT_EQ(ramp_error(10.0, Ramp{kind, start, 5.0}), "--ramp-up-start-rps must be > 0")
          << start;
    }
    EXPECT_EQ(ramp_error(10.0, Ramp{kind, 10.5, 5.0}),
              "--ramp-up-start-rps must not exceed --request-rate");
    for (double d : {0.0, -2.0, nan, inf}) {
      EXPECT_EQ(ramp_error(10.0, Ramp{kind, 1.0, d}), "--ramp-up needs --ramp-up-duration S > 0")
          << d;
    }
    EXPECT_EQ(ramp_error(10.0, Ramp{kind, 10.0, 5.0}), "no error");
    EXPECT_EQ(ramp_error(inf, Ramp{kind, 1.0, 5.0}),
              "open-loop schedule needs a finite request rate > 0");
  }
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
}

// A distributed run's rank takes the indices i with i mod ranks == its position, each at its
// own schedule time: together the shards are the whole schedule, once.
TEST(WorkQueue, ShardsTogetherHandOutTheWholeScheduleAtItsOwnTimes) {
  const auto s = ArrivalSchedule::open_loop(10, 0, 100.0, core::ArrivalKind::kGamma, 1.0, 7);
  std::vector<int> seen(10, 0);
  for (std::size_t first = 0; first < 4; ++first) {
    WorkQueue q(s, 1000, core::kNever, Shard{first, 4});
    std::vector<std::size_t> got;
    std::size_t i = 0;
    core::Nanos due = 0;
    while (q.peek(core::kSaturatedNanos, i, due)) {
      ASSERT_EQ(due, 1000 + s.offset(i));
      ASSERT_TRUE(q.try_claim(i));
      got.push_back(i);
    }
    for (std::size_t k = 0; k < got.size(); ++k) EXPECT_EQ(got[k], first + 4 * k);
    EXPECT_EQ(got.size(), first < 2 ? 3u : 2u);
    for (auto g : got) ++seen[g];
  }
  for (int c : seen) EXPECT_EQ(c, 1);
}

// Comparing 3 targets, index i is prompt i / 3 to target i % 3: a rank takes whole prompts, so
// that each rank sends every target the same prompts.
TEST(WorkQueue, AShardOfGroupsTakesWholePrompts) {
  const auto s = ArrivalSchedule::immediate(12);
  const Shard shard{1, 2, 3};
  WorkQueue q(s, 0, core::kNever, shard);
  std::vector<std::size_t> got;
  std::size_t i = 0;
  core::Nanos due = 0;
  while (q.peek(0, i, due)) {
    ASSERT_TRUE(q.try_claim(i));
    got.push_back(i);
  }
  EXPECT_EQ(got, (std::vector<std::size_t>{3, 4, 5, 9, 10, 11}));
  EXPECT_EQ(shard.size_of(12), 6u);
  EXPECT_EQ(Shard({0, 2, 3}).size_of(12), 6u);
  EXPECT_EQ(Shard({0, 4, 1}).size_of(10), 3u);
  EXPECT_EQ(Shard({3, 4, 1}).size_of(10), 2u);
  EXPECT_EQ(Shard({5, 8, 1}).size_of(4), 0u);
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

TEST(ArrivalSchedule, ReplayFollowsTheTraceFromItsFirstRequest) {
  const std::vector<double> trace = {100.0, 100.25, 101.0, 101.5, 103.0};
  const auto s = ArrivalSchedule::replay(trace, ArrivalSchedule::kUnbounded, 0, 1);
  ASSERT_EQ(s.size(), 5u);
  EXPECT_EQ(s.offset(0), 0);
  EXPECT_EQ(s.offset(1), 250'000'000);
  EXPECT_EQ(s.offset(4), 3'000'000'000);
  // Twice as fast; the first 3 (--num-prompts); cut at a duration.
  const auto fast = ArrivalSchedule::replay(trace, 3, 0, 2);
  ASSERT_EQ(fast.size(), 3u);
  EXPECT_EQ(fast.offset(2), 500'000'000);
  EXPECT_EQ(ArrivalSchedule::replay(trace, ArrivalSchedule::kUnbounded, 1.5, 1).size(), 3u);
  EXPECT_THROW(ArrivalSchedule::replay(trace, 5, 0, 0), std::invalid_argument);
  EXPECT_THROW(ArrivalSchedule::replay({1.0, 0.5}, 2, 0, 1), std::invalid_argument);
}

}  // namespace
}  // namespace tokenbench::load
