#include "tokenbench/metrics/summary.h"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "test_records.h"

namespace tokenbench::metrics {
namespace {

using test_records::failed_record;
using test_records::hand_built_run;
using test_records::kMs;
using test_records::streamed_record;

bool has_warning(const Summary& s, const std::string& needle) {
  for (const std::string& w : s.warnings) {
    if (w.find(needle) != std::string::npos) return true;
  }
  return false;
}

TEST(SummaryTest, CountsAndThroughputsOfTheHandBuiltRun) {
  const Summary s = summarize(hand_built_run(), SummaryOptions{});
  EXPECT_EQ(s.measured, 3);
  EXPECT_EQ(s.completed, 2);
  EXPECT_EQ(s.failed, 1);
  EXPECT_EQ(s.warmup, 1);
  EXPECT_DOUBLE_EQ(s.duration_s, 0.4);  // min(scheduled) 0 .. max(done) 400 ms; warmup excluded
  EXPECT_EQ(s.total_input_tokens, 30);
  EXPECT_EQ(s.total_output_tokens, 7);
  EXPECT_DOUBLE_EQ(s.request_throughput, 5.0);
  EXPECT_DOUBLE_EQ(s.output_throughput, 17.5);
  EXPECT_DOUBLE_EQ(s.total_token_throughput, 92.5);
  EXPECT_FALSE(is_defined(s.request_goodput));  // no SLO given
}

TEST(SummaryTest, DistributionsOfTheHandBuiltRun) {
  const Summary s = summarize(hand_built_run(), SummaryOptions{});
  EXPECT_EQ(s.ttft_ms.count, 2u);
  EXPECT_DOUBLE_EQ(s.ttft_ms.mean, 150.0);
  EXPECT_DOUBLE_EQ(s.ttft_ms.std, 50.0);
  EXPECT_DOUBLE_EQ(s.ttft_ms.median, 150.0);
  EXPECT_DOUBLE_EQ(s.ttft_ms.at(99), 199.0);
  EXPECT_DOUBLE_EQ(s.tpot_ms.mean, 15.0);
  EXPECT_DOUBLE_EQ(s.tpot_ms.at(99), 19.9);
  // ITL pooled over requests: 10, 10, 20, 20, 20.
  EXPECT_EQ(s.itl_ms.count, 5u);
  EXPECT_DOUBLE_EQ(s.itl_ms.mean, 16.0);
  EXPECT_DOUBLE_EQ(s.itl_ms.std, std::sqrt(24.0));
  EXPECT_DOUBLE_EQ(s.itl_ms.median, 20.0);
  EXPECT_DOUBLE_EQ(s.e2el_ms.mean, 190.0);
  EXPECT_DOUBLE_EQ(s.e2el_ms.std, 70.0);
  EXPECT_DOUBLE_EQ(s.e2el_ms.at(99), 258.6);
  EXPECT_DOUBLE_EQ(s.input_tokens.mean, 15.0);
  EXPECT_DOUBLE_EQ(s.output_tokens.max, 4.0);
  // Queue time over every measured request: all sent on schedule.
  EXPECT_EQ(s.queue_time_ms.count, 3u);
  EXPECT_DOUBLE_EQ(s.queue_time_ms.max, 0.0);
}

TEST(SummaryTest, PercentilesAlwaysIncludeVllmAndConsoleSets) {
  SummaryOptions options;
  options.percentiles = {99.9, 25};
  const Summary s = summarize(hand_built_run(), options);
  const std::vector<double> expected{25, 50, 90, 95, 99, 99.9};
  EXPECT_EQ(s.percentiles, expected);
  EXPECT_TRUE(is_defined(s.ttft_ms.at(99.9)));
  EXPECT_TRUE(is_defined(s.ttft_ms.at(66)));  // console row
}

TEST(SummaryTest, FailuresAreClassified) {
  std::vector<core::RequestRecord> records = hand_built_run();
  records.push_back(failed_record(4, 10, 20, core::ErrorClass::kRateLimited, 429, "slow down"));
  records.push_back(failed_record(5, 10, 30, core::ErrorClass::kRateLimited, 429, "again"));
  records.push_back(failed_record(6, 10, 40, core::ErrorClass::kConnect, 0, "refused"));
  const Summary s = summarize(records, SummaryOptions{});
  EXPECT_EQ(s.failed, 4);
  EXPECT_EQ(s.errors.at("http_5xx"), 1);
  EXPECT_EQ(s.errors.at("rate_limited"), 2);
  EXPECT_EQ(s.errors.at("connect"), 1);
  EXPECT_EQ(s.http_status.at(503), 1);
  EXPECT_EQ(s.http_status.at(429), 2);
  EXPECT_FALSE(s.http_status.contains(0));
  EXPECT_EQ(s.error_examples.at("rate_limited"), "slow down");
  EXPECT_TRUE(has_warning(s, "4 of 6 measured requests failed"));
}

TEST(SummaryTest, WarmupAndCooldownAreNotAggregated) {
  std::vector<core::RequestRecord> records = hand_built_run();
  core::RequestRecord cool = streamed_record(9, 0, 0, {{1, 1}, {20000, 5}}, 20000, 1000);
  cool.phase = core::Phase::kCooldown;
  records.push_back(cool);
  const Summary s = summarize(records, SummaryOptions{});
  EXPECT_EQ(s.cooldown, 1);
  EXPECT_EQ(s.completed, 2);
  EXPECT_EQ(s.total_input_tokens, 30);
  EXPECT_DOUBLE_EQ(s.duration_s, 0.4);
  EXPECT_DOUBLE_EQ(s.ttft_ms.min, 100.0);
}

TEST(SummaryTest, ObservedConcurrencyBySweep) {
  EXPECT_EQ(summarize(hand_built_run(), SummaryOptions{}).max_concurrency_observed, 3);
  // Back to back requests never overlap.
  const std::vector<core::RequestRecord> serial{streamed_record(1, 0, 0, {{5, 1}}, 10, 1),
                                                streamed_record(2, 10, 10, {{15, 1}}, 20, 1),
                                                streamed_record(3, 20, 20, {{25, 1}}, 30, 1)};
  EXPECT_EQ(max_concurrency_observed(serial), 1);
  const std::vector<core::RequestRecord> nested{
      streamed_record(1, 0, 0, {{5, 1}}, 100, 1), streamed_record(2, 10, 10, {{15, 1}}, 20, 1),
      streamed_record(3, 30, 30, {{35, 1}}, 40, 1), streamed_record(4, 35, 35, {{36, 1}}, 50, 1)};
  EXPECT_EQ(max_concurrency_observed(nested), 3);
}

TEST(SummaryTest, GoodputTtft) {
  SummaryOptions options;
  options.slo = parse_slo({"ttft:150"});
  const Summary s = summarize(hand_built_run(), options);
  EXPECT_EQ(s.good_completed, 1);
  EXPECT_DOUBLE_EQ(s.request_goodput, 2.5);
}

TEST(SummaryTest, GoodputTpot) {
  SummaryOptions options;
  options.slo = parse_slo({"tpot:20"});  // both: 10 and 20 ms are within
  EXPECT_EQ(summarize(hand_built_run(), options).good_completed, 2);
  options.slo = parse_slo({"tpot:19.99"});
  EXPECT_EQ(summarize(hand_built_run(), options).good_completed, 1);
}

TEST(SummaryTest, GoodputItlChecksEveryGap) {
  std::vector<core::RequestRecord> records = hand_built_run();
  // Mean gap 10 ms, but one gap of 25 ms.
  records.push_back(streamed_record(7, 0, 0, {{10, 1}, {15, 1}, {40, 1}, {40, 1}}, 50, 5));
  SummaryOptions options;
  options.slo = parse_slo({"itl:15"});
  const Summary s = summarize(records, options);
  EXPECT_EQ(s.good_completed, 1);  // only request 1 (gaps 10, 10)
}

TEST(SummaryTest, GoodputE2elAndCombined) {
  SummaryOptions options;
  options.slo = parse_slo({"e2el:260"});
  EXPECT_EQ(summarize(hand_built_run(), options).good_completed, 2);
  options.slo = parse_slo({"e2el:259"});
  EXPECT_EQ(summarize(hand_built_run(), options).good_completed, 1);
  options.slo = parse_slo({"ttft:250", "e2el:200"});  // every SLO must hold
  EXPECT_EQ(summarize(hand_built_run(), options).good_completed, 1);
  options.slo = parse_slo({"ttft:250,e2el:300"});
  EXPECT_EQ(summarize(hand_built_run(), options).good_completed, 2);
}

TEST(SummaryTest, ParseSloAcceptsEveryKey) {
  const SloSpec slo = parse_slo({"ttft:200 tpot:50", "itl:30.5,e2el:1000"});
  EXPECT_DOUBLE_EQ(*slo.ttft_ms, 200.0);
  EXPECT_DOUBLE_EQ(*slo.tpot_ms, 50.0);
  EXPECT_DOUBLE_EQ(*slo.itl_ms, 30.5);
  EXPECT_DOUBLE_EQ(*slo.e2el_ms, 1000.0);
  EXPECT_EQ(to_string(slo), "ttft:200 tpot:50 itl:30.5 e2el:1000");
  EXPECT_TRUE(parse_slo({}).empty());
}

TEST(SummaryTest, ParseSloRejectsBadItemsWithAClearMessage) {
  for (const std::string bad :
       {"ttft", "latency:100", "ttft:abc", "ttft:-5", "ttft:", "tpot:5ms", "ttft:nan", ""}) {
    try {
      parse_slo({bad});
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const std::invalid_argument& e) {
      const std::string message = e.what();
      EXPECT_NE(message.find("KEY:MS"), std::string::npos) << message;
      EXPECT_NE(message.find("ttft,tpot,itl,e2el"), std::string::npos) << message;
      EXPECT_EQ(message.find('\n'), std::string::npos) << message;
    }
  }
  EXPECT_THROW(parse_slo({"ttft:1", "ttft:2"}), std::invalid_argument);
}

TEST(SummaryTest, NonStreamedRunWarnsAndLeavesTtftUndefined) {
  core::RequestRecord r;
  r.streamed = false;
  r.scheduled = 0;
  r.sent = 0;
  r.done = 500 * kMs;
  r.prompt_tokens = 10;
  r.output_tokens = 40;
  const Summary s = summarize({r}, SummaryOptions{});
  EXPECT_EQ(s.completed, 1);
  EXPECT_EQ(s.ttft_ms.count, 0u);
  EXPECT_FALSE(is_defined(s.ttft_ms.mean));
  EXPECT_DOUBLE_EQ(s.e2el_ms.mean, 500.0);
  EXPECT_TRUE(has_warning(s, "TTFT undefined: non-streaming run"));
}

TEST(SummaryTest, NoSuccessfulRequestsWarns) {
  const Summary s = summarize({failed_record(1, 0, 10, core::ErrorClass::kConnect, 0, "refused")},
                              SummaryOptions{});
  EXPECT_EQ(s.completed, 0);
  EXPECT_TRUE(has_warning(s, "no successful requests"));
  EXPECT_DOUBLE_EQ(s.request_throughput, 0.0);
  EXPECT_FALSE(is_defined(s.e2el_ms.mean));
}

TEST(SummaryTest, ClientLagWarning) {
  std::vector<core::RequestRecord> records;
  for (int i = 0; i < 10; ++i) {
    // Scheduled at 10 * i ms, sent 20 ms late.
    records.push_back(streamed_record(i, 10 * i, 10 * i + 20, {{10 * i + 30, 1}}, 10 * i + 40, 1));
  }
  const Summary s = summarize(records, SummaryOptions{});
  EXPECT_DOUBLE_EQ(s.queue_time_ms.at(99), 20.0);
  EXPECT_TRUE(has_warning(s, "client lag: p99 queue time 20.00 ms exceeds 5 ms"));
  const Summary on_time = summarize(hand_built_run(), SummaryOptions{});
  EXPECT_FALSE(has_warning(on_time, "client lag"));
}

TEST(SummaryTest, TokenSourcesAreCounted) {
  std::vector<core::RequestRecord> records = hand_built_run();
  records[2].output_source = core::TokenSource::kChunks;
  records[2].prompt_source = core::TokenSource::kTokenizer;
  const Summary s = summarize(records, SummaryOptions{});
  EXPECT_EQ(s.output_sources.at("usage"), 1);
  EXPECT_EQ(s.output_sources.at("chunks"), 1);
  EXPECT_EQ(s.prompt_sources.at("tokenizer"), 1);
  EXPECT_TRUE(has_warning(s, "counted from chunks"));
}

}  // namespace
}  // namespace tokenbench::metrics
