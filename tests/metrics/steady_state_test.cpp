// --steady-state auto on a schedule with a ramp: the window starts once the load is full and the
// output steady, and ends when the queue starts draining.

#include "tokenbench/metrics/steady_state.h"

#include <gtest/gtest.h>

#include "test_records.h"

namespace tokenbench::metrics {
namespace {

using test_records::kMs;

// Eight slots (a closed loop at concurrency 8) that join 250 ms apart (a ramp over 1.75 s), each
// sending back-to-back requests of 500 ms with a token every 10 ms, until `stop_ms`: then the
// requests in flight finish (the drain).
std::vector<core::RequestRecord> ramped_run(double stop_ms) {
  std::vector<core::RequestRecord> out;
  std::uint64_t id = 0;
  for (int slot = 0; slot < 8; ++slot) {
    for (double t = 250.0 * slot; t < stop_ms; t += 500) {
      std::vector<std::pair<double, int>> chunks;
      for (double c = t + 10; c <= t + 500; c += 10) chunks.emplace_back(c, 1);
      out.push_back(test_records::streamed_record(id++, t, t, chunks, t + 500, 16));
    }
  }
  return out;
}

TEST(SteadyState, TheWindowSkipsTheRampAndTheDrain) {
  SteadyStateBuilder builder(8);
  for (const auto& r : ramped_run(10'000)) builder.add(r);
  const auto w = builder.finish();
  ASSERT_TRUE(w.has_value()) << builder.why_none();
  EXPECT_EQ(w->target_in_flight, 8);
  // Full from the 8th slot's start at 1.75 s (7 in flight from 1.5 s: 88% < 90%).
  EXPECT_GE(w->start, 1700 * kMs);
  EXPECT_LE(w->start, 2000 * kMs);
  // Full until the last requests begin ending, at 10 s.
  EXPECT_GE(w->end, 9800 * kMs);
  EXPECT_LE(w->end, 10'300 * kMs);
  EXPECT_EQ(builder.why_none(), "");
}

TEST(SteadyState, AnOpenLoopTargetsItsMedianInFlight) {
  SteadyStateBuilder builder(0);  // no concurrency limit: the median in flight is the target
  for (const auto& r : ramped_run(10'000)) builder.add(r);
  const auto w = builder.finish();
  ASSERT_TRUE(w.has_value());
  EXPECT_EQ(w->target_in_flight, 8);
}

TEST(SteadyState, TooShortOrNeverFullHasNone) {
  SteadyStateBuilder short_run(8);
  for (const auto& r : ramped_run(300)) short_run.add(r);
  EXPECT_FALSE(short_run.finish().has_value());
  EXPECT_FALSE(short_run.why_none().empty());
  SteadyStateBuilder never_full(64);  // a limit the load never reached
  for (const auto& r : ramped_run(10'000)) never_full.add(r);
  EXPECT_FALSE(never_full.finish().has_value());
}

TEST(SteadyState, BucketsWidenAndKeepTheWindowOfALongRun) {
  // 10 minutes at 100 ms would be 6,000 buckets: they double to 200 ms, the window stays.
  SteadyStateBuilder builder(8);
  for (const auto& r : ramped_run(600'000)) builder.add(r);
  const auto w = builder.finish();
  ASSERT_TRUE(w.has_value());
  EXPECT_LE(w->start, 2400 * kMs);
  EXPECT_GE(w->end, 599'000 * kMs);
}

}  // namespace
}  // namespace tokenbench::metrics
