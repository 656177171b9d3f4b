// Agentic jobs' wire shapes (issue 28): a chat history's tool turns as each API expects them,
// and the cached prompt tokens each API's usage reports, from reply shapes written from the
// APIs' public documentation (tests/data/api/README.md).

#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "tokenbench/client/api_adapter.h"
#include "tokenbench/client/sse_parser.h"

namespace tokenbench::client {
namespace {

using nlohmann::json;

// A history with a tool turn: the assistant calls a tool (after a line of text), two results.
const char* const kToolHistory = R"([
  {"role": "system", "content": "You plan trips."},
  {"role": "user", "content": "Weather in Paris and Rome?"},
  {"role": "assistant", "content": "Checking.", "tool_calls": [
    {"id": "call_1", "type": "function", "function": {"name": "weather", "arguments": "{\"city\":\"Paris\"}"}},
    {"id": "call_2", "type": "function", "function": {"name": "weather", "arguments": "not json"}}]},
  {"role": "tool", "tool_call_id": "call_1", "content": "sunny"},
  {"role": "tool", "tool_call_id": "call_2", "content": "rain"},
  {"role": "user", "content": "So?"}])";

json body_of(core::ApiKind api) {
  core::RequestSpec spec;
  spec.messages_json = kToolHistory;
  spec.max_tokens = 16;
  return json::parse(make_adapter(api)->build_body(spec, BodyOptions{}));
}

TEST(ToolTurns, ChatSendsTheHistoryAsItIs) {
  const json body = body_of(core::ApiKind::kOpenAIChat);
  EXPECT_EQ(body["messages"], json::parse(kToolHistory));
}

TEST(ToolTurns, AnthropicGetsToolUseBlocksAndTheResultsInOneUserMessage) {
  const json body = body_of(core::ApiKind::kAnthropicMessages);
  EXPECT_EQ(body["system"], "You plan trips.");
  const json& m = body["messages"];
  ASSERT_EQ(m.size(), 4U) << m.dump();
  EXPECT_EQ(m[1], json::parse(R"({"role": "assistant", "content": [
    {"type": "text", "text": "Checking."},
    {"type": "tool_use", "id": "call_1", "name": "weather", "input": {"city": "Paris"}},
    {"type": "tool_use", "id": "call_2", "name": "weather", "input": {}}]})"));
  EXPECT_EQ(m[2], json::parse(R"({"role": "user", "content": [
    {"type": "tool_result", "tool_use_id": "call_1", "content": "sunny"},
    {"type": "tool_result", "tool_use_id": "call_2", "content": "rain"}]})"));
  EXPECT_EQ(m[3], json::parse(R"({"role": "user", "content": "So?"})"));
}

TEST(ToolTurns, ResponsesGetsFunctionCallAndFunctionCallOutputItems) {
  const json body = body_of(core::ApiKind::kOpenAIResponses);
  const json& in = body["input"];
  ASSERT_EQ(in.size(), 8U) << in.dump();
  EXPECT_EQ(in[2], json::parse(R"({"role": "assistant", "content": "Checking."})"));
  EXPECT_EQ(in[3], json::parse(R"({"type": "function_call", "call_id": "call_1",
    "name": "weather", "arguments": "{\"city\":\"Paris\"}"})"));
  EXPECT_EQ(in[5], json::parse(R"({"type": "function_call_output", "call_id": "call_1",
    "output": "sunny"})"));
  EXPECT_EQ(in[6]["output"], "rain");
  EXPECT_EQ(in[7], json::parse(R"({"role": "user", "content": "So?"})"));
}

// The cached and written tokens the last event that said them carried, over a whole stream.
std::pair<std::int64_t, std::int64_t> cached_in_stream(core::ApiKind api,
                                                       const std::string& stream) {
  const auto adapter = make_adapter(api);
  SseParser parser;
  std::pair<std::int64_t, std::int64_t> out{-1, -1};
  parser.feed(stream, [&](std::string_view data) {
    const ApiEvent ev = adapter->parse_event(data);
    if (ev.cached_tokens >= 0) out.first = ev.cached_tokens;
    if (ev.cache_write_tokens >= 0) out.second = ev.cache_write_tokens;
  });
  return out;
}

std::string read_api_file(const std::string& name) {
  std::ifstream in(std::string(TOKENBENCH_TEST_DATA_DIR) + "/api/" + name, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(CachedTokens, EachApisUsageFieldIsRead) {
  // OpenAI, vLLM, SGLang: usage.prompt_tokens_details.cached_tokens in the final chunk.
  const std::string chat =
      R"(data: {"id":"c","choices":[{"index":0,"delta":{"content":"hi"}}]})"
      "\n\n"
      R"(data: {"id":"c","choices":[],"usage":{"prompt_tokens":2048,"completion_tokens":1,)"
      R"("prompt_tokens_details":{"cached_tokens":1536}}})"
      "\n\ndata: [DONE]\n\n";
  EXPECT_EQ(cached_in_stream(core::ApiKind::kOpenAIChat, chat), std::make_pair(1536L, -1L));
  // DeepSeek's API.
  const auto deepseek =
      make_adapter(core::ApiKind::kOpenAIChat)
          ->parse_response(
              R"({"id":"d","choices":[{"index":0,"message":{"role":"assistant","content":"x"},)"
              R"("finish_reason":"stop"}],"usage":{"prompt_tokens":100,"completion_tokens":1,)"
              R"("prompt_cache_hit_tokens":64,"prompt_cache_miss_tokens":36}})");
  EXPECT_EQ(deepseek.cached_tokens, 64);
  // A server that says nothing.
  EXPECT_EQ(cached_in_stream(core::ApiKind::kOpenAIChat,
                             R"(data: {"id":"c","choices":[],"usage":{"prompt_tokens":5,)"
                             R"("completion_tokens":1}})"
                             "\n\n"),
            std::make_pair(-1L, -1L));
  // Anthropic: read and written apart; the prompt is the three together.
  EXPECT_EQ(
      cached_in_stream(core::ApiKind::kAnthropicMessages, read_api_file("anthropic-messages.sse")),
      std::make_pair(5L, 0L));
  const auto anthropic =
      make_adapter(core::ApiKind::kAnthropicMessages)
          ->parse_event(
              R"({"type":"message_start","message":{"id":"m","usage":{"input_tokens":10,)"
              R"("cache_creation_input_tokens":300,"cache_read_input_tokens":2000,"output_tokens":1}}})");
  EXPECT_EQ(anthropic.cached_tokens, 2000);
  EXPECT_EQ(anthropic.cache_write_tokens, 300);
  EXPECT_EQ(anthropic.prompt_tokens, 2310);
  // Responses: usage.input_tokens_details.cached_tokens in response.completed.
  const auto responses =
      make_adapter(core::ApiKind::kOpenAIResponses)
          ->parse_event(
              R"({"type":"response.completed","response":{"id":"r","status":"completed",)"
              R"("usage":{"input_tokens":1200,"input_tokens_details":{"cached_tokens":1024},)"
              R"("output_tokens":5,"output_tokens_details":{"reasoning_tokens":0}}}})");
  EXPECT_EQ(responses.cached_tokens, 1024);
}

}  // namespace
}  // namespace tokenbench::client
