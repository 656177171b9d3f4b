#include "tokenbench/metrics/stream_check.h"

#include <gtest/gtest.h>

#include "test_records.h"
#include "tokenbench/metrics/summary.h"

namespace tokenbench::metrics {
namespace {

using test_records::kMs;
using test_records::streamed_record;

// A successful non-streamed sample record: sent at `sent_ms`, done at `done_ms`, `tokens` out.
core::RequestRecord whole(std::uint64_t id, double sent_ms, double done_ms, std::int64_t tokens) {
  core::RequestRecord r;
  r.id = id;
  r.streamed = false;
  r.nonstream_sample = true;
  r.scheduled = static_cast<core::Nanos>(sent_ms * kMs);
  r.sent = r.scheduled;
  r.done = static_cast<core::Nanos>(done_ms * kMs);
  r.output_tokens = tokens;
  r.prompt_tokens = 10;
  r.http_status = 200;
  return r;
}

// Streamed E2ELs 100, 110, 120, 130 ms over 10 tokens each (per token 10, 11, 12, 13 ms).
std::vector<core::RequestRecord> streamed_four() {
  std::vector<core::RequestRecord> out;
  for (int i = 0; i < 4; ++i) {
    const double e2el = 100 + 10 * i;
    out.push_back(streamed_record(i, 0, 0, {{50, 1}, {e2el, 9}}, e2el + 1, 10));
  }
  return out;
}

TEST(StreamCheckTest, AgreeingSidesAreNotFlagged) {
  auto records = streamed_four();
  // Non-streamed 108, 117, 126 ms over 9 tokens: per token 12, 13, 14 ms; p50 13 vs 11.5.
  records.push_back(whole(10, 0, 108, 9));
  records.push_back(whole(11, 0, 117, 9));
  records.push_back(whole(12, 0, 126, 9));
  const auto c = stream_check(records);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->streamed.count, 4);
  EXPECT_EQ(c->non_streamed.count, 3);
  EXPECT_DOUBLE_EQ(c->streamed.e2el_p50_ms, 115);
  EXPECT_DOUBLE_EQ(c->streamed.e2el_mean_ms, 115);
  EXPECT_DOUBLE_EQ(c->streamed.e2el_p95_ms, 128.5);
  EXPECT_DOUBLE_EQ(c->non_streamed.e2el_p50_ms, 117);
  EXPECT_DOUBLE_EQ(c->streamed.per_token_p50_ms, 11.5);
  EXPECT_DOUBLE_EQ(c->non_streamed.per_token_p50_ms, 13);
  EXPECT_DOUBLE_EQ(c->e2el_p50_ratio, 117.0 / 115);
  EXPECT_DOUBLE_EQ(c->per_token_p50_ratio, 13 / 11.5);  // 1.13: within 20%
  EXPECT_FALSE(c->flagged);
  EXPECT_EQ(stream_check_to_json(*c)["flagged"], false);
}

TEST(StreamCheckTest, FlaggedOnlyOverBothThresholds) {
  auto records = streamed_four();
  // Per token 7, 7, 7 ms against 11.5: 0.61x, and E2EL p50 70 against 115 ms.
  for (int i = 0; i < 3; ++i) records.push_back(whole(10 + i, 0, 70, 10));
  auto c = stream_check(records);
  ASSERT_TRUE(c);
  EXPECT_TRUE(c->flagged);
  EXPECT_NE(c->reading.find("streamed requests are slower per token"), std::string::npos);
  EXPECT_NE(render_stream_check(*c).find("stream vs non-stream"), std::string::npos);

  // The same 0.6x on requests of a few ms: under the 5 ms floor, not flagged.
  std::vector<core::RequestRecord> tiny;
  for (int i = 0; i < 3; ++i) tiny.push_back(streamed_record(i, 0, 0, {{1, 1}, {5, 9}}, 6, 10));
  for (int i = 0; i < 3; ++i) tiny.push_back(whole(10 + i, 0, 3, 10));
  c = stream_check(tiny);
  ASSERT_TRUE(c);
  EXPECT_NEAR(c->per_token_p50_ratio, 0.6, 1e-12);
  EXPECT_FALSE(c->flagged);
}

TEST(StreamCheckTest, NoSampleNoCheckAndTooFewNoVerdict) {
  EXPECT_FALSE(stream_check(streamed_four()));
  auto records = streamed_four();
  records.push_back(whole(10, 0, 70, 10));
  const auto c = stream_check(records);
  ASSERT_TRUE(c);
  EXPECT_FALSE(c->flagged);
  EXPECT_NE(c->reading.find("too few"), std::string::npos);
}

TEST(StreamCheckTest, TheSampleCountsInThroughputButInNoDistribution) {
  auto records = streamed_four();
  records.push_back(whole(10, 0, 70, 10));
  const Summary s = summarize(records, {});
  EXPECT_EQ(s.completed, 5);
  EXPECT_EQ(s.nonstream_sample, 1);
  EXPECT_EQ(s.streamed, 4);
  EXPECT_EQ(s.non_streamed, 0);
  EXPECT_EQ(s.total_output_tokens, 50);
  EXPECT_EQ(s.e2el_ms.count, 4u);
  EXPECT_EQ(s.output_tokens.count, 4u);
  EXPECT_DOUBLE_EQ(s.e2el_ms.mean, 115);
}

}  // namespace
}  // namespace tokenbench::metrics
