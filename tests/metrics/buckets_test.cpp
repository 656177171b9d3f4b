// --buckets: the spec parser refuses what it cannot read, and each bucket summarises exactly the
// requests whose length falls inside it.

#include "tokenbench/metrics/buckets.h"

#include <gtest/gtest.h>

#include "test_records.h"

namespace tokenbench::metrics {
namespace {

using test_records::failed_record;
using test_records::streamed_record;

TEST(Buckets, ParsesDimensionAndEdges) {
  const BucketSpec in = parse_bucket_spec("input:0,256,1024");
  EXPECT_EQ(in.dimension, BucketDimension::kInput);
  EXPECT_EQ(in.edges, (std::vector<std::int64_t>{0, 256, 1024}));
  const BucketSpec out = parse_bucket_spec("output:128");
  EXPECT_EQ(out.dimension, BucketDimension::kOutput);
  EXPECT_EQ(out.edges, (std::vector<std::int64_t>{128}));
}

TEST(Buckets, RefusesBadSpecsWithTheItemNamed) {
  for (const char* bad : {"0,256", "prompt:0,256", "input:", "input:0,,256", "input:0,-5",
                          "input:0,2x", "input:256,128", "input:5,5"}) {
    try {
      parse_bucket_spec(bad);
      ADD_FAILURE() << bad << " was accepted";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(std::string("'") + bad + "'"), std::string::npos)
          << e.what();
    }
  }
}

TEST(Buckets, SplitsRequestsByPromptLengthWithHalfOpenBounds) {
  // Prompt lengths 10, 99, 100, 250, 5000 against edges 100, 1000: [0,100) [100,1000) [1000,inf).
  std::vector<core::RequestRecord> records;
  const std::int64_t lengths[] = {10, 99, 100, 250, 5000};
  for (std::uint64_t i = 0; i < 5; ++i) {
    // TTFT (first chunk - sent) is 10 ms * (i + 1), so each bucket's TTFT tells who is in it.
    const double first = 10.0 * static_cast<double>(i + 1);
    records.push_back(
        streamed_record(i, 0, 0, {{first, 1}, {first + 5, 1}}, first + 6, lengths[i]));
  }
  auto failed = failed_record(9, 0, 50, core::ErrorClass::kHttp5xx, 503, "busy");
  failed.phase = core::Phase::kMeasure;
  failed.prompt_tokens = 300;
  records.push_back(failed);
  auto warm = streamed_record(10, 0, 0, {{1, 1}}, 2, 50);
  warm.phase = core::Phase::kWarmup;
  records.push_back(warm);

  const auto buckets = bucketed(records, parse_bucket_spec("input:100,1000"), SummaryOptions{});
  ASSERT_EQ(buckets.size(), 3u);
  EXPECT_EQ(buckets[0].lo, 0);
  EXPECT_EQ(buckets[0].hi, 100);
  EXPECT_EQ(buckets[0].summary.completed, 2);  // 10 and 99; warmup left out
  EXPECT_DOUBLE_EQ(buckets[0].summary.ttft_ms.mean, 15.0);
  EXPECT_EQ(buckets[1].lo, 100);
  EXPECT_EQ(buckets[1].hi, 1000);
  EXPECT_EQ(buckets[1].summary.completed, 2);  // 100 and 250
  EXPECT_EQ(buckets[1].summary.failed, 1);     // the 503 had 300 prompt tokens
  EXPECT_DOUBLE_EQ(buckets[1].summary.ttft_ms.mean, 35.0);
  EXPECT_EQ(buckets[2].lo, 1000);
  EXPECT_EQ(buckets[2].summary.completed, 1);
  EXPECT_DOUBLE_EQ(buckets[2].summary.ttft_ms.mean, 50.0);

  const nlohmann::json j = buckets_to_json(parse_bucket_spec("input:100,1000"), buckets);
  EXPECT_EQ(j["dimension"], "input");
  ASSERT_EQ(j["buckets"].size(), 3u);
  EXPECT_EQ(j["buckets"][1]["hi"], 1000);
  EXPECT_TRUE(j["buckets"][2]["hi"].is_null());
  EXPECT_EQ(j["buckets"][1]["failed"], 1);
  EXPECT_DOUBLE_EQ(j["buckets"][2]["ttft_ms"]["p50"].get<double>(), 50.0);

  const std::string table = render_buckets(parse_bucket_spec("input:100,1000"), buckets);
  EXPECT_NE(table.find("By input length (tokens):"), std::string::npos);
  EXPECT_NE(table.find("0-99"), std::string::npos);
  EXPECT_NE(table.find("100-999"), std::string::npos);
  EXPECT_NE(table.find("1000+"), std::string::npos);
}

TEST(Buckets, OutputDimensionAndEmptyBucketsStayListed) {
  std::vector<core::RequestRecord> records;
  records.push_back(streamed_record(0, 0, 0, {{10, 1}, {20, 1}, {30, 1}}, 31, 100));  // 3 out
  const auto buckets = bucketed(records, parse_bucket_spec("output:0,2,64"), SummaryOptions{});
  ASSERT_EQ(buckets.size(), 3u);  // first edge 0: no extra bucket below it
  EXPECT_EQ(buckets[0].summary.measured, 0);
  EXPECT_EQ(buckets[1].summary.completed, 1);
  EXPECT_EQ(buckets[2].summary.measured, 0);
  const std::string table = render_buckets(parse_bucket_spec("output:0,2,64"), buckets);
  EXPECT_NE(table.find("By output length"), std::string::npos);
  EXPECT_NE(table.find("64+"), std::string::npos);
}

}  // namespace
}  // namespace tokenbench::metrics
