// --stop-on-saturation's rule: a wait for a first token that keeps growing, on hand-made records.

#include "tokenbench/measure/guards.h"

#include <gtest/gtest.h>

#include "../metrics/test_records.h"

namespace tokenbench::measure {
namespace {

// Requests every 100 ms for `seconds`, each waiting wait_ms(t) for its first token.
template <typename Wait>
std::string run_guard(double seconds, Wait wait_ms, double* stopped_at = nullptr) {
  SaturationGuard guard(true);
  for (double t = 0; t < seconds * 1000; t += 100) {
    const double first = t + wait_ms(t);
    const auto r = test_records::streamed_record(static_cast<std::uint64_t>(t), t, t,
                                                 {{first, 1}, {first + 5, 1}}, first + 10, 16);
    if (guard.observe(r)) {
      if (stopped_at != nullptr) *stopped_at = first + 10;
      return guard.verdict();
    }
  }
  return "";
}

TEST(SaturationGuard, AWaitGrowingWithoutBoundStopsTheRun) {
  // The queue grows by 50 ms every second: the wait rises 50 -> 450 ms over 8 s.
  double at = 0;
  const std::string why = run_guard(
      30, [](double t) { return 50 + 0.05 * t; }, &at);
  ASSERT_FALSE(why.empty());
  EXPECT_NE(why.find("the wait for a first token kept growing"), std::string::npos) << why;
  EXPECT_NE(why.find("the server cannot keep up with the request rate"), std::string::npos);
  // After 8 full windows whose last median is at least twice the first: within 10 s.
  EXPECT_LT(at, 10'000);
  EXPECT_GT(at, 8'000);
}

TEST(SaturationGuard, AFlatOrNoisyWaitNeverStops) {
  // Steady at 80 ms, with noise of +-60 ms (a busy but stable server).
  int i = 0;
  EXPECT_EQ(run_guard(60, [&i](double) { return 80.0 + ((i++ * 37) % 121) - 60; }), "");
  EXPECT_EQ(run_guard(60, [](double) { return 200.0; }), "");
  // A wait that rose and then levelled off (a warm-up) is not saturation once it is flat.
  EXPECT_EQ(run_guard(60, [](double t) { return t < 3000 ? 20 + 0.1 * t : 320.0; }), "");
}

TEST(SaturationGuard, JudgeNeedsBothASteadyRiseAndAGrowth) {
  std::vector<std::pair<double, double>> rising;
  for (int s = 0; s < 8; ++s) rising.emplace_back(s, 100 + 30 * s);  // 100 -> 310: x3.1
  EXPECT_FALSE(SaturationGuard::judge(rising).empty());
  std::vector<std::pair<double, double>> slow;
  for (int s = 0; s < 8; ++s) slow.emplace_back(s, 100 + 5 * s);  // steady, but +35% only
  EXPECT_EQ(SaturationGuard::judge(slow), "");
  rising.pop_back();  // 7 windows: too few to judge
  EXPECT_EQ(SaturationGuard::judge(rising), "");
  EXPECT_EQ(SaturationGuard(false).verdict(), "");
}

}  // namespace
}  // namespace tokenbench::measure
