// SummaryBuilder: the summary of records fed one at a time, without keeping them (issue 27). While
// no distribution passes its exact limit it is summarize's, bit for bit, in any order; past the
// limit its percentiles come from sketches within their stated relative error, and every count,
// total, mean, min and max stays exact.

#include "tokenbench/metrics/summary_builder.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "test_records.h"
#include "tokenbench/metrics/summary.h"

namespace tokenbench::metrics {
namespace {

using test_records::streamed_record;

// A run of `n` successful streamed requests with varied timings, a few failures and a warmup.
std::vector<core::RequestRecord> varied_run(std::size_t n) {
  std::mt19937_64 rng(7);
  std::vector<core::RequestRecord> records;
  for (std::size_t i = 0; i < n; ++i) {
    const double sent = static_cast<double>(i) * 3.0;
    const double ttft = 20.0 + static_cast<double>(rng() % 4000) / 10.0;
    std::vector<std::pair<double, int>> chunks;
    double t = sent + ttft;
    for (int k = 0; k < 4 + static_cast<int>(rng() % 5); ++k) {
      chunks.emplace_back(t, 1 + static_cast<int>(rng() % 2));
      t += 1.0 + static_cast<double>(rng() % 300) / 10.0;
    }
    records.push_back(streamed_record(i, sent, sent + 0.5, chunks, t, 64 + (rng() % 512)));
    if (i % 97 == 0) {
      records.push_back(test_records::failed_record(n + i, sent, sent + 5,
                                                    core::ErrorClass::kHttp5xx, 503, "busy"));
    }
  }
  core::RequestRecord warm = streamed_record(0, 0, 0, {{5, 1}}, 6, 10);
  warm.phase = core::Phase::kWarmup;
  records.push_back(warm);
  return records;
}

// Every Distribution of `s`, by name.
std::vector<std::pair<const char*, const Distribution*>> distributions(const Summary& s) {
  return {{"ttft", &s.ttft_ms},
          {"tpot", &s.tpot_ms},
          {"itl", &s.itl_ms},
          {"itl_per_token", &s.itl_per_token_ms},
          {"e2el", &s.e2el_ms},
          {"decode_tps", &s.decode_tps},
          {"output_tps", &s.output_tps},
          {"total_tps", &s.total_tps},
          {"queue", &s.queue_time_ms},
          {"input_tokens", &s.input_tokens},
          {"output_tokens", &s.output_tokens}};
}

void expect_same_bits(double a, double b, const char* what) {
  EXPECT_TRUE((std::isnan(a) && std::isnan(b)) || a == b) << what << ": " << a << " vs " << b;
}

TEST(SummaryBuilder, FedInAnyOrderItIsSummarizeBitForBit) {
  const auto records = varied_run(2000);
  const SummaryOptions options{{50, 99.9}, parse_slo({"ttft:300"})};
  const Summary whole = summarize(records, options);
  auto shuffled = records;
  std::shuffle(shuffled.begin(), shuffled.end(), std::mt19937_64(3));
  SummaryBuilder builder(options);
  for (const auto& r : shuffled) builder.add(r);
  const Summary fed = builder.finish();
  EXPECT_EQ(fed.measured, whole.measured);
  EXPECT_EQ(fed.completed, whole.completed);
  EXPECT_EQ(fed.failed, whole.failed);
  EXPECT_EQ(fed.warmup, 1);
  EXPECT_EQ(fed.good_completed, whole.good_completed);
  EXPECT_EQ(fed.total_output_tokens, whole.total_output_tokens);
  EXPECT_EQ(fed.max_concurrency_observed, whole.max_concurrency_observed);
  expect_same_bits(fed.duration_s, whole.duration_s, "duration");
  const auto a = distributions(fed);
  const auto b = distributions(whole);
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].second->relative_error, 0.0) << a[i].first;
    EXPECT_EQ(a[i].second->count, b[i].second->count) << a[i].first;
    // The mean is summed in sorted order either way: order-independent bits.
    expect_same_bits(a[i].second->mean, b[i].second->mean, a[i].first);
    ASSERT_EQ(a[i].second->percentiles.size(), b[i].second->percentiles.size());
    for (std::size_t k = 0; k < a[i].second->percentiles.size(); ++k) {
      expect_same_bits(a[i].second->percentiles[k].second, b[i].second->percentiles[k].second,
                       a[i].first);
    }
  }
  // finish() leaves the builder as it was.
  EXPECT_EQ(builder.finish().itl_ms.percentiles, fed.itl_ms.percentiles);
}

TEST(SummaryBuilder, PastTheExactLimitPercentilesAreWithinTheSketchBound) {
  const auto records = varied_run(6000);  // ~36,000 ITL values
  const SummaryOptions options{{1, 50, 99.9}, {}};
  const Summary exact = summarize(records, options);
  SummaryBuilder builder(options, 1000, 1000);
  for (const auto& r : records) builder.add(r);
  const Summary sketched = builder.finish();
  EXPECT_EQ(sketched.completed, exact.completed);
  EXPECT_EQ(sketched.total_input_tokens, exact.total_input_tokens);
  const auto a = distributions(sketched);
  const auto b = distributions(exact);
  for (std::size_t i = 0; i < a.size(); ++i) {
    const Distribution& got = *a[i].second;
    const Distribution& want = *b[i].second;
    EXPECT_EQ(got.relative_error, kDefaultRelativeError) << a[i].first;
    EXPECT_EQ(got.count, want.count) << a[i].first;
    EXPECT_EQ(got.min, want.min) << a[i].first;
    EXPECT_EQ(got.max, want.max) << a[i].first;
    EXPECT_NEAR(got.mean, want.mean, 1e-9 * std::abs(want.mean)) << a[i].first;
    for (std::size_t k = 0; k < got.percentiles.size(); ++k) {
      const double w = want.percentiles[k].second;
      EXPECT_NEAR(got.percentiles[k].second, w, kDefaultRelativeError * std::abs(w) + 1e-12)
          << a[i].first << " p" << want.percentiles[k].first;
    }
  }
}

// The engine's count at each send stands for the sweep: the most of it, measured requests only.
TEST(SummaryBuilder, MaxConcurrencyIsTheMostInFlightCounted) {
  SummaryBuilder builder(SummaryOptions{});
  for (std::int64_t i = 0; i < 10; ++i) {
    core::RequestRecord r;
    r.id = static_cast<std::uint64_t>(i);
    r.scheduled = r.sent = i * 1'000'000;
    r.done = r.sent + 500'000;  // never two at once by the stamps
    r.in_flight = i == 4 ? 7 : 1;
    builder.add(r);
  }
  core::RequestRecord warm;
  warm.phase = core::Phase::kWarmup;
  warm.in_flight = 99;
  builder.add(warm);
  EXPECT_EQ(builder.finish().max_concurrency_observed, 7);
}

TEST(SummaryBuilder, PeakInFlightCountsTouchingIntervalsOnce) {
  EXPECT_EQ(peak_in_flight({}, {}), 0);
  // [0, 10) and [10, 20) touch; [5, 15) overlaps both.
  EXPECT_EQ(peak_in_flight({10, 0}, {20, 10}), 1);
  EXPECT_EQ(peak_in_flight({0, 10, 5}, {10, 20, 15}), 2);
}

}  // namespace
}  // namespace tokenbench::metrics
