#include "tokenbench/telemetry/timings_account.h"

#include <gtest/gtest.h>

#include "../metrics/test_records.h"

namespace tokenbench::telemetry {
namespace {

using test_records::streamed_record;

core::RequestRecord with_timings(core::RequestRecord r, double prompt_ms, std::int64_t predicted_n,
                                 double predicted_ms) {
  r.server_timings = core::ServerTimings{2, 30, prompt_ms, predicted_n, predicted_ms};
  return r;
}

TEST(TimingsAccountTest, ExactFiguresFromThreeRequests) {
  // Client TTFTs 100, 60 and 80 ms (first chunk minus send); server prompt_ms 90, 50 and 75:
  // remainders 10, 10 and 5 ms. Decode per token: 90 / (10 - 1) = 10, 40 / (5 - 1) = 10,
  // 24 / (4 - 1) = 8 ms.
  std::vector<core::RequestRecord> records{
      with_timings(streamed_record(0, 0, 0, {{100, 1}, {200, 9}}, 200, 30), 90, 10, 90),
      with_timings(streamed_record(1, 0, 10, {{70, 1}, {110, 4}}, 110, 30), 50, 5, 40),
      with_timings(streamed_record(2, 0, 20, {{100, 1}, {124, 3}}, 124, 30), 75, 4, 24),
      streamed_record(3, 0, 0, {{50, 1}}, 50, 30),  // no timings: not counted
  };
  records.push_back(records[0]);
  records.back().phase = core::Phase::kWarmup;  // not measured
  records.push_back(records[1]);
  records.back().id = 9;
  records.back().retried = true;  // a replaced attempt
  const auto a = timings_account(records);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->requests, 3);
  EXPECT_EQ(a->prompt_tokens, 90);
  EXPECT_EQ(a->cached_tokens, 6);
  EXPECT_DOUBLE_EQ(a->prefill.mean_ms, (90.0 + 50 + 75) / 3);
  EXPECT_DOUBLE_EQ(a->prefill.p50_ms, 75);
  EXPECT_DOUBLE_EQ(a->prefill.p95_ms, 75 + 0.9 * 15);  // numpy linear between 75 and 90
  EXPECT_DOUBLE_EQ(a->decode_per_token.mean_ms, 28.0 / 3);
  EXPECT_DOUBLE_EQ(a->decode_per_token.p50_ms, 10);
  EXPECT_DOUBLE_EQ(a->ttft_remainder.mean_ms, 25.0 / 3);
  EXPECT_DOUBLE_EQ(a->ttft_remainder.p50_ms, 10);
  EXPECT_DOUBLE_EQ(a->client_ttft_mean_ms, 80);
  EXPECT_DOUBLE_EQ(a->remainder_share, 25.0 / 3 / 80);
  EXPECT_EQ(a->reading, "a visible share of TTFT is outside the engine");  // 10.4%
  const auto json = timings_account_to_json(*a);
  EXPECT_EQ(json["source"], "timings");
  EXPECT_EQ(json["prefill"]["count"], 3);
  EXPECT_NE(render_timings_account(*a).find("source: timings"), std::string::npos);
}

TEST(TimingsAccountTest, NoneWithoutTimings) {
  EXPECT_FALSE(timings_account({streamed_record(0, 0, 0, {{50, 1}}, 50, 30)}));
}

TEST(TimingsAccountTest, ReadingsFollowTheShare) {
  EXPECT_EQ(ttft_share_reading(0.05), "TTFT is the engine's own");
  EXPECT_EQ(ttft_share_reading(0.2), "a visible share of TTFT is outside the engine");
  EXPECT_EQ(ttft_share_reading(0.5).substr(0, 35), "most of TTFT is spent outside the e");
}

}  // namespace
}  // namespace tokenbench::telemetry
