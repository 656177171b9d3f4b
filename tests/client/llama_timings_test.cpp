// llama.cpp's per-reply `timings` object and reply ids, read by the adapter from real captures
// (tests/data/llama-server/README.md).

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "test_files.h"
#include "tokenbench/client/api_adapter.h"
#include "tokenbench/client/sse_parser.h"

namespace tokenbench::client {
namespace {

struct Parsed {
  int with_timings = 0;
  core::ServerTimings timings;
  std::vector<std::string> ids;
};

Parsed parse_stream(core::ApiKind api, const std::string& fixture) {
  OpenAIAdapter adapter(api);
  SseParser sse;
  Parsed out;
  const auto on_event = [&](std::string_view data) {
    const ApiEvent ev = adapter.parse_event(data);
    if (ev.kind != ApiEvent::Kind::kData) return;
    out.ids.emplace_back(ev.response_id);
    if (ev.has_timings) {
      ++out.with_timings;
      out.timings = ev.timings;
    }
  };
  sse.feed(testing::read_fixture(fixture), on_event);
  sse.finish(on_event);
  return out;
}

TEST(LlamaTimingsTest, ChatStreamCarriesThemInTheUsageChunk) {
  const Parsed p = parse_stream(core::ApiKind::kOpenAIChat, "llama-server-chat-usage.sse");
  EXPECT_EQ(p.with_timings, 1);
  EXPECT_EQ(p.timings.cache_n, 0);
  EXPECT_EQ(p.timings.prompt_n, 33);
  EXPECT_DOUBLE_EQ(p.timings.prompt_ms, 8.448);
  EXPECT_EQ(p.timings.predicted_n, 12);
  EXPECT_DOUBLE_EQ(p.timings.predicted_ms, 14.746);
  ASSERT_EQ(p.ids.size(), 15u);  // role, 12 content, finish and usage chunks
  for (const auto& id : p.ids) EXPECT_EQ(id, "chatcmpl-er28Zmx7f2w23P38iu2EYyIQeYsc4zH2");
}

TEST(LlamaTimingsTest, CompletionsStreamCarriesThemInTheFinishChunk) {
  const Parsed p = parse_stream(core::ApiKind::kOpenAICompletions, "llama-server-completions.sse");
  EXPECT_EQ(p.with_timings, 1);
  EXPECT_EQ(p.timings.cache_n, 1);
  EXPECT_EQ(p.timings.prompt_n, 4);
  EXPECT_DOUBLE_EQ(p.timings.prompt_ms, 1.8);
  EXPECT_EQ(p.timings.predicted_n, 8);
  EXPECT_DOUBLE_EQ(p.timings.predicted_ms, 7.767);
  ASSERT_FALSE(p.ids.empty());
  EXPECT_EQ(p.ids.back(), "chatcmpl-yH9a2HsOjBsrQt2F5tKfSM2rnUfu1fJJ");
}

TEST(LlamaTimingsTest, WholeReplyCarriesThem) {
  OpenAIAdapter adapter(core::ApiKind::kOpenAIChat);
  const ApiEvent ev =
      adapter.parse_response(testing::read_fixture("llama-server-chat-nonstream.json"));
  ASSERT_EQ(ev.kind, ApiEvent::Kind::kData);
  ASSERT_TRUE(ev.has_timings);
  EXPECT_EQ(ev.timings.cache_n, 0);
  EXPECT_EQ(ev.timings.prompt_n, 29);
  EXPECT_DOUBLE_EQ(ev.timings.prompt_ms, 5.128);
  EXPECT_EQ(ev.timings.predicted_n, 6);
  EXPECT_DOUBLE_EQ(ev.timings.predicted_ms, 5.573);
  EXPECT_EQ(ev.response_id, "chatcmpl-rIbVF1UEoDwCbzO1zWcF1AW87etXwYHl");
}

TEST(LlamaTimingsTest, OnlyFinalChunksAreSearchedAndBadValuesIgnored) {
  OpenAIAdapter adapter(core::ApiKind::kOpenAIChat);
  // A content chunk is never searched: other servers pay no lookup per token.
  EXPECT_FALSE(adapter
                   .parse_event(R"({"choices":[{"delta":{"content":"x"}}],)"
                                R"("timings":{"prompt_ms":1,"predicted_ms":2}})")
                   .has_timings);
  // Integers are numbers of ms too; a negative or missing duration is not believed.
  const ApiEvent ints = adapter.parse_event(
      R"({"choices":[{"delta":{},"finish_reason":"stop"}],"timings":{"prompt_ms":3,)"
      R"("predicted_ms":4,"prompt_n":2}})");
  ASSERT_TRUE(ints.has_timings);
  EXPECT_DOUBLE_EQ(ints.timings.prompt_ms, 3);
  EXPECT_EQ(ints.timings.prompt_n, 2);
  EXPECT_EQ(ints.timings.predicted_n, 0);
  EXPECT_FALSE(adapter
                   .parse_event(R"({"choices":[],"usage":{"completion_tokens":1},)"
                                R"("timings":{"prompt_ms":-1,"predicted_ms":4}})")
                   .has_timings);
  EXPECT_FALSE(adapter
                   .parse_event(R"({"choices":[],"usage":{"completion_tokens":1},)"
                                R"("timings":{"prompt_ms":1}})")
                   .has_timings);
  EXPECT_TRUE(
      adapter.parse_event(R"({"choices":[{"delta":{"content":"x"}}]})").response_id.empty());
}

}  // namespace
}  // namespace tokenbench::client
