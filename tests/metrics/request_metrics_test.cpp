#include "tokenbench/metrics/request_metrics.h"

#include <gtest/gtest.h>

#include "test_records.h"

namespace tokenbench::metrics {
namespace {

using test_records::kMs;
using test_records::streamed_record;

// Scheduled at 0, sent at 1 ms; chunks at 101 ms (1 token), 111 ms (2 tokens), 141 ms (3
// tokens); transfer end (after usage and [DONE]) at 150 ms; 94 prompt tokens, 6 output tokens.
core::RequestRecord multi_token_record() {
  return streamed_record(1, 0, 1, {{101, 1}, {111, 2}, {141, 3}}, 150, 94);
}

TEST(RequestMetricsTest, TtftIsFirstContentChunkMinusSend) {
  EXPECT_DOUBLE_EQ(*ttft_ms(multi_token_record()), 100.0);
}

TEST(RequestMetricsTest, E2elEndsAtLastContentChunkWhenStreamed) {
  EXPECT_DOUBLE_EQ(*e2el_ms(multi_token_record()), 140.0);  // not 149: [DONE] excluded
}

TEST(RequestMetricsTest, TpotExcludesFirstToken) {
  // (140 - 100) / (6 - 1)
  EXPECT_DOUBLE_EQ(*tpot_ms(multi_token_record()), 8.0);
}

TEST(RequestMetricsTest, TpotUndefinedForOneToken) {
  EXPECT_FALSE(tpot_ms(streamed_record(1, 0, 0, {{50, 1}}, 60, 5)).has_value());
}

TEST(RequestMetricsTest, ItlIsGapsBetweenChunks) {
  const std::vector<double> expected{10.0, 30.0};
  EXPECT_EQ(itl_ms(multi_token_record()), expected);
}

TEST(RequestMetricsTest, ItlPerTokenSplitsEachGapOverItsChunkTokens) {
  // 10 ms over a 2-token chunk, 30 ms over a 3-token chunk.
  const std::vector<double> expected{5.0, 5.0, 10.0, 10.0, 10.0};
  EXPECT_EQ(itl_per_token_ms(multi_token_record()), expected);
}

TEST(RequestMetricsTest, PerRequestRates) {
  // (6 - 1) tokens over 40 ms; (94 + 6) tokens over 140 ms.
  EXPECT_DOUBLE_EQ(*decode_tps(multi_token_record()), 125.0);
  EXPECT_DOUBLE_EQ(*total_tps(multi_token_record()), 100.0 / 0.140);
}

TEST(RequestMetricsTest, QueueTimeIsSentMinusScheduled) {
  EXPECT_DOUBLE_EQ(*queue_time_ms(multi_token_record()), 1.0);
  core::RequestRecord never_sent = multi_token_record();
  never_sent.sent = core::kNever;
  EXPECT_FALSE(queue_time_ms(never_sent).has_value());
}

TEST(RequestMetricsTest, NonStreamedHasNoTtftAndEndsAtDone) {
  core::RequestRecord r;
  r.streamed = false;
  r.scheduled = 0;
  r.sent = 2 * kMs;
  r.done = 502 * kMs;
  r.prompt_tokens = 50;
  r.output_tokens = 50;
  const RequestMetrics m = derive_request_metrics(r);
  EXPECT_FALSE(m.ttft_ms.has_value());
  EXPECT_DOUBLE_EQ(*m.e2el_ms, 500.0);
  EXPECT_FALSE(m.tpot_ms.has_value());
  EXPECT_TRUE(m.itl_ms.empty());
  EXPECT_FALSE(m.decode_tps.has_value());
  EXPECT_DOUBLE_EQ(*m.total_tps, 200.0);
  EXPECT_DOUBLE_EQ(*m.queue_time_ms, 2.0);
}

TEST(RequestMetricsTest, DeriveAgreesWithTheSingleFunctions) {
  const RequestMetrics m = derive_request_metrics(multi_token_record());
  EXPECT_DOUBLE_EQ(*m.ttft_ms, 100.0);
  EXPECT_DOUBLE_EQ(*m.e2el_ms, 140.0);
  EXPECT_DOUBLE_EQ(*m.tpot_ms, 8.0);
  EXPECT_EQ(m.itl_ms.size(), 2u);
  EXPECT_EQ(m.itl_per_token_ms.size(), 5u);
}

}  // namespace
}  // namespace tokenbench::metrics
