#include "tokenbench/client/api_adapter.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <numeric>

#include "test_files.h"
#include "tokenbench/client/sse_parser.h"

namespace tokenbench::client {
namespace {

using Kind = ApiEvent::Kind;

struct StreamTally {
  int content_events = 0;
  std::int64_t content_bytes = 0;
  int done = 0;
  std::string finish_reason;
  std::int64_t prompt_tokens = -1;
  std::int64_t completion_tokens = -1;
};

StreamTally tally(core::ApiKind api, const std::string& bytes) {
  OpenAIAdapter adapter(api);
  SseParser parser;
  StreamTally t;
  parser.feed(bytes, [&](std::string_view data) {
    const ApiEvent ev = adapter.parse_event(data);
    if (ev.kind == Kind::kDone) ++t.done;
    if (ev.content_bytes > 0) {
      ++t.content_events;
      t.content_bytes += ev.content_bytes;
    }
    if (!ev.finish_reason.empty()) t.finish_reason = ev.finish_reason;
    if (ev.prompt_tokens >= 0) t.prompt_tokens = ev.prompt_tokens;
    if (ev.completion_tokens >= 0) t.completion_tokens = ev.completion_tokens;
  });
  return t;
}

TEST(OpenAIAdapter, LlamaServerChatStream) {
  const auto t =
      tally(core::ApiKind::kOpenAIChat, testing::read_fixture("llama-server-chat-usage.sse"));
  EXPECT_EQ(t.content_events, 12);  // the role chunk (content null) is not a token
  EXPECT_EQ(t.done, 1);
  EXPECT_EQ(t.finish_reason, "length");
  EXPECT_EQ(t.prompt_tokens, 33);
  EXPECT_EQ(t.completion_tokens, 12);
}

TEST(OpenAIAdapter, LlamaServerCompletionsStreamWithUsageInTheFinalChunk) {
  const auto t = tally(core::ApiKind::kOpenAICompletions,
                       testing::read_fixture("llama-server-completions.sse"));
  EXPECT_EQ(t.content_events, 8);  // the final chunk's empty text is not a token
  EXPECT_EQ(t.finish_reason, "length");
  EXPECT_EQ(t.prompt_tokens, 5);
  EXPECT_EQ(t.completion_tokens, 8);
}

TEST(OpenAIAdapter, NonStreamedReply) {
  OpenAIAdapter adapter(core::ApiKind::kOpenAIChat);
  const ApiEvent ev =
      adapter.parse_response(testing::read_fixture("llama-server-chat-nonstream.json"));
  EXPECT_EQ(ev.kind, Kind::kData);
  EXPECT_EQ(ev.content_bytes, std::string(".),чанловаődistemajust").size());
  EXPECT_EQ(ev.finish_reason, "length");
  EXPECT_EQ(ev.prompt_tokens, 29);
  EXPECT_EQ(ev.completion_tokens, 6);
}

TEST(OpenAIAdapter, VllmRoleChunkWithContentCountsAsToken) {
  OpenAIAdapter adapter(core::ApiKind::kOpenAIChat);
  const auto ev = adapter.parse_event(
      R"({"choices":[{"index":0,"delta":{"role":"assistant","content":"Hi"},"finish_reason":null}]})");
  EXPECT_EQ(ev.content_bytes, 2);
  const auto empty = adapter.parse_event(
      R"({"choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]})");
  EXPECT_EQ(empty.content_bytes, 0);
}

TEST(OpenAIAdapter, ReasoningCountsAsOutput) {
  OpenAIAdapter adapter(core::ApiKind::kOpenAIChat);
  EXPECT_EQ(
      adapter.parse_event(R"({"choices":[{"delta":{"reasoning_content":"abc"}}]})").content_bytes,
      3);
  EXPECT_EQ(adapter.parse_event(R"({"choices":[{"delta":{"reasoning":"abcd","content":null}}]})")
                .content_bytes,
            4);
}

TEST(OpenAIAdapter, TextViewsAndNoDoubleCountedReasoning) {
  OpenAIAdapter adapter(core::ApiKind::kOpenAIChat);
  // Some servers send the same reasoning under both names: it is one text, counted once.
  const auto ev = adapter.parse_event(
      R"({"choices":[{"delta":{"reasoning_content":"think","reasoning":"think","content":"ok"}}]})");
  EXPECT_EQ(ev.reasoning_text, "think");
  EXPECT_EQ(ev.content_text, "ok");
  EXPECT_EQ(ev.content_bytes, 7);
  OpenAIAdapter completions(core::ApiKind::kOpenAICompletions);
  EXPECT_EQ(completions.parse_event(R"({"choices":[{"text":" glad"}]})").content_text, " glad");
}

TEST(OpenAIAdapter, SglangUsageInTheFinishChunk) {
  OpenAIAdapter adapter(core::ApiKind::kOpenAIChat);
  const auto ev = adapter.parse_event(
      R"({"choices":[{"delta":{"content":"."},"finish_reason":"stop"}],"usage":{"prompt_tokens":7,"completion_tokens":3}})");
  EXPECT_EQ(ev.content_bytes, 1);
  EXPECT_EQ(ev.finish_reason, "stop");
  EXPECT_TRUE(ev.has_usage);
  EXPECT_EQ(ev.completion_tokens, 3);
}

TEST(OpenAIAdapter, ErrorObjectAndMalformedEvents) {
  OpenAIAdapter adapter(core::ApiKind::kOpenAIChat);
  const auto err = adapter.parse_event(R"({"error":{"message":"out of memory","code":500}})");
  EXPECT_EQ(err.kind, Kind::kError);
  EXPECT_EQ(err.error_message, "out of memory");
  const auto bad = adapter.parse_event("{not json");
  EXPECT_EQ(bad.kind, Kind::kMalformed);
  EXPECT_NE(bad.error_message.find("{not json"), std::string_view::npos);
  EXPECT_EQ(adapter.parse_event("[DONE]").kind, Kind::kDone);
}

TEST(OpenAIAdapter, ChatBodyHasStreamOptionsAndForcedLength) {
  OpenAIAdapter adapter(core::ApiKind::kOpenAIChat);
  core::RequestSpec spec;
  spec.prompt = "hello there";
  spec.max_tokens = 64;
  BodyOptions options;
  options.model = "m";
  options.ignore_eos = true;
  const auto body = nlohmann::json::parse(adapter.build_body(spec, options));
  EXPECT_EQ(body["model"], "m");
  EXPECT_EQ(body["messages"][0]["role"], "user");
  EXPECT_EQ(body["messages"][0]["content"], "hello there");
  EXPECT_EQ(body["max_tokens"], 64);
  EXPECT_EQ(body["ignore_eos"], true);
  EXPECT_EQ(body["min_tokens"], 64);
  EXPECT_EQ(body["stream"], true);
  EXPECT_EQ(body["stream_options"]["include_usage"], true);
}

TEST(OpenAIAdapter, CompletionsBodyAndExtraBodyMerge) {
  OpenAIAdapter adapter(core::ApiKind::kOpenAICompletions);
  core::RequestSpec spec;
  spec.prompt = "p";
  spec.max_tokens = 8;
  BodyOptions options;
  options.stream = false;
  options.extra_body = R"({"temperature":0,"max_tokens":9})";
  const auto body = nlohmann::json::parse(adapter.build_body(spec, options));
  EXPECT_EQ(body["prompt"], "p");
  EXPECT_FALSE(body.contains("messages"));
  EXPECT_FALSE(body.contains("stream_options"));
  EXPECT_FALSE(body.contains("ignore_eos"));
  EXPECT_EQ(body["temperature"], 0);
  EXPECT_EQ(body["max_tokens"], 9);  // the user's extra body wins
  options.extra_body = "[1]";
  EXPECT_THROW(adapter.build_body(spec, options), std::invalid_argument);
}

TEST(OpenAIAdapter, ChatMessagesAreUsedVerbatim) {
  OpenAIAdapter adapter(core::ApiKind::kOpenAIChat);
  core::RequestSpec spec;
  spec.messages_json = R"([{"role":"system","content":"s"},{"role":"user","content":"u"}])";
  const auto body = nlohmann::json::parse(adapter.build_body(spec, BodyOptions{}));
  ASSERT_EQ(body["messages"].size(), 2u);
  EXPECT_EQ(body["messages"][0]["role"], "system");
  EXPECT_FALSE(body.contains("max_tokens"));
}

TEST(OpenAIAdapter, ErrorMessageFromBodies) {
  const std::string http = testing::read_fixture("llama-server-bad-request.http");
  const std::string body = http.substr(http.find("\r\n\r\n") + 4);
  EXPECT_EQ(OpenAIAdapter::error_message_from_body(body), "Expected 'messages' to be an array");
  EXPECT_EQ(OpenAIAdapter::error_message_from_body(R"({"detail":"Not Found"})"), "Not Found");
  EXPECT_EQ(OpenAIAdapter::error_message_from_body("plain text\nmore"), "plain text");
}

TEST(DistributeTokens, ProportionalToBytesAndExact) {
  const auto t = distribute_tokens({1, 1, 2}, 8);
  ASSERT_EQ(t.size(), 3u);
  EXPECT_EQ(std::accumulate(t.begin(), t.end(), 0), 8);
  EXPECT_EQ(t[0], 2);  // 1 + 5 * 1/4 = 2.25
  EXPECT_EQ(t[1], 2);
  EXPECT_EQ(t[2], 4);  // 1 + 5 * 2/4 = 3.5 -> largest remainder gets the spare token
  EXPECT_EQ(distribute_tokens({3, 3}, 1), (std::vector<std::int32_t>{1, 1}));
  EXPECT_TRUE(distribute_tokens({}, 5).empty());
}

}  // namespace
}  // namespace tokenbench::client

namespace tokenbench::client {
namespace {

// Issue 25, item 6: JSON from a server nested past core::kMaxJsonDepth is malformed, naming the
// depth, in every API's events and whole replies; at the limit it parses.
TEST(ApiAdapterDepth, RepliesNestedPastTheLimitAreMalformed) {
  const auto nested = [](std::size_t levels) {
    return R"({"choices":[{"delta":{"content":"x"}}],"x":)" + std::string(levels, '[') +
           std::string(levels, ']') + "}";
  };
  for (const core::ApiKind api : {core::ApiKind::kOpenAIChat, core::ApiKind::kOpenAICompletions,
                                  core::ApiKind::kAnthropicMessages,
                                  core::ApiKind::kOpenAIResponses, core::ApiKind::kEmbeddings}) {
    SCOPED_TRACE(static_cast<int>(api));
    const auto adapter = make_adapter(api);
    for (const bool streamed : {true, false}) {
      if (streamed && api == core::ApiKind::kEmbeddings) continue;  // never an event stream
      const std::string deep = nested(300);
      const ApiEvent ev = streamed ? adapter->parse_event(deep) : adapter->parse_response(deep);
      EXPECT_EQ(ev.kind, Kind::kMalformed);
      EXPECT_EQ(std::string(ev.error_message)
                    .rfind("the reply's JSON is nested deeper than 256 levels, the limit of JSON "
                           "documents read: {\"choices\"",
                           0),
                0u)
          << ev.error_message;
      // 255 levels under the root object: 256 in all.
      const std::string at_limit = nested(255);
      const ApiEvent ok =
          streamed ? adapter->parse_event(at_limit) : adapter->parse_response(at_limit);
      EXPECT_NE(ok.kind, Kind::kMalformed) << ok.error_message;
    }
  }
}

}  // namespace
}  // namespace tokenbench::client
