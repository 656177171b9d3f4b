// requests.jsonl's fields of issue 10 (request_id, response_id, server_timings,
// nonstream_sample): written when known, read back exactly, absent in files written before them.

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

#include "tokenbench/records/records_io.h"

namespace tokenbench::records {
namespace {

core::RequestRecord identified() {
  core::RequestRecord r;
  r.id = 3;
  r.sent = 1000;
  r.done = 5000;
  r.request_id = "0123456789abcdef0123456789abcdef";
  r.response_id = "chatcmpl-0123456789abcdef0123456789abcdef";
  return r;
}

TEST(RecordsFieldsTest, IdsRoundTrip) {
  const core::RequestRecord r = identified();
  const std::string line = record_to_jsonl_line(r);
  EXPECT_NE(line.find("\"request_id\":\"0123456789abcdef0123456789abcdef\""), std::string::npos);
  const core::RequestRecord back = record_from_jsonl_line(line);
  EXPECT_EQ(back.request_id, r.request_id);
  EXPECT_EQ(back.response_id, r.response_id);
  EXPECT_EQ(nlohmann::json::parse(line), record_to_json(r));
}

TEST(RecordsFieldsTest, EmptyIdsAreAbsent) {
  core::RequestRecord r = identified();
  r.request_id.clear();
  r.response_id.clear();
  const auto object = nlohmann::json::parse(record_to_jsonl_line(r));
  EXPECT_FALSE(object.contains("request_id"));
  EXPECT_FALSE(object.contains("response_id"));
}

TEST(RecordsFieldsTest, AnOldLineWithoutThemStillReads) {
  const std::string old =
      R"({"id":1,"phase":"measure","streamed":true,"scheduled_ns":0,"sent_ns":10,)"
      R"("headers_ns":null,"first_token_ns":null,"last_token_ns":null,"done_ns":20,)"
      R"("chunk_ns":[],"chunk_tokens":[],"prompt_tokens":5,"prompt_source":"usage",)"
      R"("output_tokens":0,"output_source":"unknown","output_chars":0,"http_status":200,)"
      R"("error":"none","error_message":"","finish_reason":""})";
  const core::RequestRecord r = record_from_jsonl_line(old);
  EXPECT_TRUE(r.request_id.empty());
  EXPECT_TRUE(r.response_id.empty());
  EXPECT_EQ(r.prompt_tokens, 5);
}

TEST(RecordsFieldsTest, OverlongOrWrongTypedIdsAreRefused) {
  auto object = record_to_json(identified());
  object["response_id"] = std::string(129, 'x');
  EXPECT_THROW(record_from_json(object), std::runtime_error);
  object["response_id"] = 5;
  EXPECT_THROW(record_from_json(object), std::runtime_error);
}

TEST(RecordsFieldsTest, ServerTimingsAndTheSampleMarkRoundTrip) {
  core::RequestRecord r = identified();
  r.streamed = false;
  r.nonstream_sample = true;
  r.server_timings = core::ServerTimings{1, 4, 1.8, 8, 7.767};
  const std::string line = record_to_jsonl_line(r);
  EXPECT_NE(line.find("\"nonstream_sample\":true"), std::string::npos) << line;
  EXPECT_EQ(nlohmann::json::parse(line), record_to_json(r));
  const core::RequestRecord back = record_from_jsonl_line(line);
  EXPECT_TRUE(back.nonstream_sample);
  EXPECT_FALSE(back.streamed);
  ASSERT_TRUE(back.server_timings);
  EXPECT_EQ(back.server_timings->cache_n, 1);
  EXPECT_EQ(back.server_timings->prompt_n, 4);
  EXPECT_DOUBLE_EQ(back.server_timings->prompt_ms, 1.8);
  EXPECT_EQ(back.server_timings->predicted_n, 8);
  EXPECT_DOUBLE_EQ(back.server_timings->predicted_ms, 7.767);

  const auto plain = nlohmann::json::parse(record_to_jsonl_line(identified()));
  EXPECT_FALSE(plain.contains("server_timings"));
  EXPECT_FALSE(plain.contains("nonstream_sample"));
  EXPECT_FALSE(record_from_json(plain).server_timings);
}

TEST(RecordsFieldsTest, BadServerTimingsAreRefusedNamingTheField) {
  auto object = record_to_json(identified());
  const auto message = [&](nlohmann::json timings) {
    object["server_timings"] = std::move(timings);
    try {
      record_from_json(object);
    } catch (const std::runtime_error& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_NE(message({{"prompt_ms", -1}}).find("server_timings.prompt_ms"), std::string::npos);
  EXPECT_NE(message({{"prompt_n", 1.5}}).find("server_timings.prompt_n"), std::string::npos);
  EXPECT_NE(message({{"predicted_ms", "x"}}).find("server_timings.predicted_ms"),
            std::string::npos);
  EXPECT_NE(message(3).find("server_timings"), std::string::npos);
  EXPECT_EQ(message({{"prompt_ms", 2}, {"predicted_ms", 3}}), "");
}

TEST(RecordsFieldsTest, AJobCallsTagRoundTripsAndIsAbsentOutsideJobs) {
  core::RequestRecord r = identified();
  r.job.job = 12;
  r.job.name = "j\"1";
  r.job.call = "final";
  r.job.depth = 2;
  r.job.calls = 5;
  r.job.after = {"s1", "s2"};
  r.job.delay_ms = 120.5;
  const std::string line = record_to_jsonl_line(r);
  EXPECT_NE(line.find(R"("job":{"after":["s1","s2"],"call":"final","calls":5,"delay_ms":120.5,)"
                      R"("depth":2,"n":12,"name":"j\"1"})"),
            std::string::npos)
      << line;
  EXPECT_EQ(nlohmann::json::parse(line), record_to_json(r));
  const core::RequestRecord back = record_from_jsonl_line(line);
  EXPECT_EQ(back.job.job, 12);
  EXPECT_EQ(back.job.name, "j\"1");
  EXPECT_EQ(back.job.call, "final");
  EXPECT_EQ(back.job.depth, 2);
  EXPECT_EQ(back.job.calls, 5);
  EXPECT_EQ(back.job.after, (std::vector<std::string>{"s1", "s2"}));
  EXPECT_DOUBLE_EQ(back.job.delay_ms, 120.5);

  EXPECT_FALSE(nlohmann::json::parse(record_to_jsonl_line(identified())).contains("job"));
  auto object = record_to_json(r);
  object["job"]["after"] = {1};
  EXPECT_THROW(record_from_json(object), std::runtime_error);
  object = record_to_json(r);
  object["job"].erase("call");
  EXPECT_THROW(record_from_json(object), std::runtime_error);
}

}  // namespace
}  // namespace tokenbench::records
