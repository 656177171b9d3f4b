// The adapters of the Anthropic Messages, OpenAI Responses and embeddings APIs, and the reasoning
// and tool-call deltas of OpenAI-style chat, on reply shapes written from the APIs' public
// documentation (tests/data/api/README.md).

#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "tokenbench/client/api_adapter.h"
#include "tokenbench/client/credentials.h"
#include "tokenbench/client/sse_parser.h"

namespace tokenbench::client {
namespace {

using Kind = ApiEvent::Kind;

std::string read_api_file(const std::string& name) {
  std::ifstream in(std::string(TOKENBENCH_TEST_DATA_DIR) + "/api/" + name, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  EXPECT_FALSE(ss.str().empty()) << name;
  return ss.str();
}

// What a stream said, event by event, as the worker reads it.
struct Tally {
  std::string reasoning, content, tool;
  int reasoning_events = 0, answer_events = 0, token_events = 0;
  // 1-based index of the first token event of each kind (0: none).
  int first_reasoning = 0, first_answer = 0;
  bool ended = false;  // [DONE] or a last event
  int errors = 0, malformed = 0;
  std::string error_message, finish_reason, response_id;
  std::int64_t prompt_tokens = -1, completion_tokens = -1, reasoning_tokens = -1;
};

Tally tally(core::ApiKind api, const std::string& bytes) {
  const auto adapter = make_adapter(api);
  SseParser parser;
  Tally t;
  parser.feed(bytes, [&](std::string_view data) {
    const ApiEvent ev = adapter->parse_event(data);
    if (ev.kind == Kind::kDone || ev.last) t.ended = true;
    if (ev.kind == Kind::kError) {
      ++t.errors;
      t.error_message = ev.error_message;
    }
    if (ev.kind == Kind::kMalformed) ++t.malformed;
    if (ev.content_bytes > 0) {
      ++t.token_events;
      if (!ev.reasoning_text.empty()) {
        ++t.reasoning_events;
        if (t.first_reasoning == 0) t.first_reasoning = t.token_events;
      }
      if (!ev.content_text.empty() || !ev.tool_text.empty()) {
        ++t.answer_events;
        if (t.first_answer == 0) t.first_answer = t.token_events;
      }
    }
    t.reasoning += ev.reasoning_text;
    t.content += ev.content_text;
    t.tool += ev.tool_text;
    if (!ev.finish_reason.empty()) t.finish_reason = ev.finish_reason;
    if (!ev.response_id.empty() && t.response_id.empty()) t.response_id = ev.response_id;
    if (ev.prompt_tokens >= 0) t.prompt_tokens = ev.prompt_tokens;
    if (ev.completion_tokens >= 0) t.completion_tokens = ev.completion_tokens;
    if (ev.reasoning_tokens >= 0) t.reasoning_tokens = ev.reasoning_tokens;
  });
  return t;
}

TEST(AnthropicAdapter, StreamWithThinkingThenText) {
  const Tally t = tally(core::ApiKind::kAnthropicMessages, read_api_file("anthropic-messages.sse"));
  EXPECT_EQ(t.reasoning, "Let me think.");
  EXPECT_EQ(t.content, "Hello! How are you?");
  EXPECT_EQ(t.reasoning_events, 2);  // the signature delta is not a token
  EXPECT_EQ(t.answer_events, 3);
  EXPECT_EQ(t.first_reasoning, 1);
  EXPECT_EQ(t.first_answer, 3);
  EXPECT_TRUE(t.ended);
  EXPECT_EQ(t.errors + t.malformed, 0);
  EXPECT_EQ(t.finish_reason, "end_turn");
  EXPECT_EQ(t.response_id, "msg_01XFDUDYJgAACzvnptvVoYEL");
  EXPECT_EQ(t.prompt_tokens, 25);  // input_tokens 20 + cache_read_input_tokens 5
  EXPECT_EQ(t.completion_tokens, 15);
}

TEST(AnthropicAdapter, ToolUseStreamCountsAsAnswer) {
  const Tally t =
      tally(core::ApiKind::kAnthropicMessages, read_api_file("anthropic-messages-tool.sse"));
  EXPECT_EQ(t.tool, "get_weather{\"location\": \"Paris\"}");
  EXPECT_EQ(t.answer_events, 3);  // the name, then two non-empty argument deltas
  EXPECT_EQ(t.reasoning_events, 0);
  EXPECT_EQ(t.finish_reason, "tool_use");
  EXPECT_EQ(t.completion_tokens, 89);
  EXPECT_TRUE(t.ended);
}

TEST(AnthropicAdapter, ErrorEventAndNoEnd) {
  const Tally t = tally(core::ApiKind::kAnthropicMessages, read_api_file("anthropic-error.sse"));
  EXPECT_EQ(t.errors, 1);
  EXPECT_EQ(t.error_message, "Overloaded");
  EXPECT_FALSE(t.ended);
}

TEST(AnthropicAdapter, WholeReplyAndErrorBody) {
  const auto adapter = make_adapter(core::ApiKind::kAnthropicMessages);
  const ApiEvent ev = adapter->parse_response(read_api_file("anthropic-message.json"));
  EXPECT_EQ(ev.kind, Kind::kData);
  EXPECT_EQ(ev.content_text, "Hi! My name is Claude.");
  EXPECT_EQ(ev.reasoning_text, "Short.");
  EXPECT_EQ(ev.prompt_tokens, 2095);
  EXPECT_EQ(ev.completion_tokens, 503);
  EXPECT_EQ(ev.finish_reason, "end_turn");
  const ApiEvent err = adapter->parse_response(
      R"({"type":"error","error":{"type":"invalid_request_error","message":"max_tokens: Field required"}})");
  EXPECT_EQ(err.kind, Kind::kError);
  EXPECT_EQ(err.error_message, "max_tokens: Field required");
  EXPECT_EQ(
      ApiAdapter::error_message_from_body(
          R"({"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}})"),
      "invalid x-api-key");
}

TEST(AnthropicAdapter, BodyMovesTheSystemPromptAndConvertsImages) {
  const auto adapter = make_adapter(core::ApiKind::kAnthropicMessages);
  core::RequestSpec spec;
  spec.messages_json =
      R"([{"role":"system","content":"Be brief."},{"role":"user","content":[{"type":"text","text":"What is it?"},{"type":"image_url","image_url":{"url":"data:image/png;base64,iVBORw0KGgo="}}]}])";
  BodyOptions options;
  options.model = "claude";
  const auto body = nlohmann::json::parse(adapter->build_body(spec, options));
  EXPECT_EQ(body["max_tokens"], kAnthropicDefaultMaxTokens);  // required by the API
  EXPECT_EQ(body["system"], "Be brief.");
  ASSERT_EQ(body["messages"].size(), 1u);
  const auto& parts = body["messages"][0]["content"];
  EXPECT_EQ(parts[0]["type"], "text");
  EXPECT_EQ(parts[1]["type"], "image");
  EXPECT_EQ(parts[1]["source"]["type"], "base64");
  EXPECT_EQ(parts[1]["source"]["media_type"], "image/png");
  EXPECT_EQ(parts[1]["source"]["data"], "iVBORw0KGgo=");
  EXPECT_EQ(body["stream"], true);
  EXPECT_FALSE(body.contains("stream_options"));
  EXPECT_FALSE(body.contains("ignore_eos"));
  spec = core::RequestSpec{};
  spec.prompt = "Hi";
  spec.max_tokens = 7;
  const auto plain = nlohmann::json::parse(adapter->build_body(spec, options));
  EXPECT_EQ(plain["max_tokens"], 7);
  EXPECT_EQ(plain["messages"][0]["content"], "Hi");
}

TEST(AnthropicAdapter, KeyAndVersionHeaders) {
  EXPECT_EQ(auth_header(core::ApiKind::kAnthropicMessages, "sk-ant"), "x-api-key: sk-ant");
  EXPECT_EQ(auth_header(core::ApiKind::kOpenAIChat, "sk"), "Authorization: Bearer sk");
  std::vector<std::string> headers;
  add_api_headers(core::ApiKind::kAnthropicMessages, headers);
  ASSERT_EQ(headers.size(), 1u);
  EXPECT_EQ(headers[0], "anthropic-version: 2023-06-01");
  std::vector<std::string> given{"Anthropic-Version: 2024-01-01"};
  add_api_headers(core::ApiKind::kAnthropicMessages, given);
  EXPECT_EQ(given.size(), 1u);  // the user's version stays alone
  std::vector<std::string> openai;
  add_api_headers(core::ApiKind::kOpenAIChat, openai);
  EXPECT_TRUE(openai.empty());
  EXPECT_TRUE(core::is_secret_header("x-api-key: sk-ant"));
}

TEST(ResponsesAdapter, StreamWithReasoningThenText) {
  const Tally t = tally(core::ApiKind::kOpenAIResponses, read_api_file("responses.sse"));
  EXPECT_EQ(t.reasoning, "The user greets.");
  EXPECT_EQ(t.content, "Hi there");
  EXPECT_EQ(t.reasoning_events, 2);
  EXPECT_EQ(t.answer_events, 2);  // output_text.done repeats the text and is not a token
  EXPECT_EQ(t.first_reasoning, 1);
  EXPECT_EQ(t.first_answer, 3);
  EXPECT_TRUE(t.ended);  // response.completed: there is no [DONE]
  EXPECT_EQ(t.finish_reason, "completed");
  EXPECT_EQ(t.response_id, "resp_67c9fdcecf488190bdd9a0409de3a1ec");
  EXPECT_EQ(t.prompt_tokens, 37);
  EXPECT_EQ(t.completion_tokens, 11);
  EXPECT_EQ(t.reasoning_tokens, 4);
}

TEST(ResponsesAdapter, FailedResponseIsAnError) {
  const Tally t = tally(core::ApiKind::kOpenAIResponses, read_api_file("responses-failed.sse"));
  EXPECT_EQ(t.errors, 1);
  EXPECT_EQ(t.error_message, "The model failed to generate a response.");
  EXPECT_FALSE(t.ended);
}

TEST(ResponsesAdapter, WholeReplyAndBody) {
  const auto adapter = make_adapter(core::ApiKind::kOpenAIResponses);
  const ApiEvent ev = adapter->parse_response(read_api_file("responses.json"));
  EXPECT_EQ(ev.kind, Kind::kData);
  EXPECT_EQ(ev.content_text, "In a");
  EXPECT_EQ(ev.reasoning_text, "Thinking about it.");
  EXPECT_EQ(ev.finish_reason, "max_output_tokens");
  EXPECT_EQ(ev.completion_tokens, 16);
  EXPECT_EQ(ev.reasoning_tokens, 12);

  core::RequestSpec spec;
  spec.prompt = "Tell me";
  spec.max_tokens = 32;
  BodyOptions options;
  options.model = "o4-mini";
  auto body = nlohmann::json::parse(adapter->build_body(spec, options));
  EXPECT_EQ(body["input"], "Tell me");
  EXPECT_EQ(body["max_output_tokens"], 32);
  EXPECT_FALSE(body.contains("max_tokens"));
  spec.messages_json =
      R"([{"role":"user","content":[{"type":"text","text":"See"},{"type":"image_url","image_url":{"url":"data:image/png;base64,AAAA"}}]}])";
  body = nlohmann::json::parse(adapter->build_body(spec, options));
  EXPECT_EQ(body["input"][0]["content"][0]["type"], "input_text");
  EXPECT_EQ(body["input"][0]["content"][1]["type"], "input_image");
  EXPECT_EQ(body["input"][0]["content"][1]["image_url"], "data:image/png;base64,AAAA");
}

// SGLang's /generate (bench_serving.py's async_request_sglang_generate at 0033168f): the body, and
// events whose text is cumulative (the worker takes each one's new part) with a running count.
TEST(GenerateAdapter, BodyAndCumulativeEvents) {
  const auto adapter = make_adapter(core::ApiKind::kSglangGenerate);
  core::RequestSpec spec;
  spec.prompt = "Tell me";
  spec.max_tokens = 32;
  BodyOptions options;
  options.model = "served";
  options.ignore_eos = true;
  options.extra_body = R"({"temperature":0,"top_p":0.9,"return_logprob":false})";
  auto body = nlohmann::json::parse(adapter->build_body(spec, options));
  EXPECT_EQ(body["text"], "Tell me");
  EXPECT_EQ(body["stream"], true);
  EXPECT_EQ(body["sampling_params"]["max_new_tokens"], 32);
  EXPECT_EQ(body["sampling_params"]["ignore_eos"], true);
  EXPECT_EQ(body["sampling_params"]["temperature"], 0);  // moved where /generate reads it
  EXPECT_EQ(body["sampling_params"]["top_p"], 0.9);
  EXPECT_FALSE(body.contains("temperature"));
  EXPECT_EQ(body["return_logprob"], false);  // not a sampling field: stays at the top
  EXPECT_FALSE(body.contains("model"));
  EXPECT_FALSE(body.contains("lora_path"));
  spec.mix = 1;  // a LoRA adapter of the run's mix
  options.model = "adapter-b";
  EXPECT_EQ(nlohmann::json::parse(adapter->build_body(spec, options))["lora_path"], "adapter-b");

  ApiEvent ev = adapter->parse_event(
      R"({"text":" a b","output_ids":[5,6],"meta_info":{"id":"9f3","finish_reason":null,"prompt_tokens":7,"completion_tokens":2,"cached_tokens":3}})");
  EXPECT_EQ(ev.kind, Kind::kData);
  EXPECT_TRUE(ev.cumulative_text);
  EXPECT_EQ(ev.content_text, " a b");
  EXPECT_EQ(ev.completion_tokens, 2);
  EXPECT_EQ(ev.prompt_tokens, 7);
  EXPECT_EQ(ev.cached_tokens, 3);
  EXPECT_EQ(ev.response_id, "9f3");
  EXPECT_TRUE(ev.finish_reason.empty());
  ev = adapter->parse_event(
      R"({"text":" a b c","meta_info":{"id":"9f3","finish_reason":{"type":"length","length":3},"prompt_tokens":7,"completion_tokens":3}})");
  EXPECT_EQ(ev.finish_reason, "length");
  EXPECT_EQ(adapter->parse_event("[DONE]").kind, Kind::kDone);
  ev = adapter->parse_event(R"({"error":{"message":"context too long"}})");
  EXPECT_EQ(ev.kind, Kind::kError);
  EXPECT_EQ(ev.error_message, "context too long");
  EXPECT_EQ(adapter->parse_event("{not json").kind, Kind::kMalformed);
  ev = adapter->parse_response(
      R"({"text":" x y","meta_info":{"finish_reason":{"type":"stop","matched":2},"prompt_tokens":4,"completion_tokens":2}})");
  EXPECT_FALSE(ev.cumulative_text);
  EXPECT_EQ(ev.content_bytes, 4);
  EXPECT_EQ(ev.finish_reason, "stop");
}

TEST(EmbeddingsAdapter, BatchBodyAndReply) {
  const auto adapter = make_adapter(core::ApiKind::kEmbeddings);
  core::RequestSpec spec;
  spec.prompt = "a";
  spec.more_inputs = {"b", "c"};
  BodyOptions options;
  options.model = "embed";
  const auto body = nlohmann::json::parse(adapter->build_body(spec, options));
  EXPECT_EQ(body["input"], nlohmann::json::array({"a", "b", "c"}));
  EXPECT_FALSE(body.contains("stream"));
  EXPECT_FALSE(body.contains("max_tokens"));
  spec.more_inputs.clear();
  EXPECT_EQ(nlohmann::json::parse(adapter->build_body(spec, options))["input"], "a");

  const ApiEvent ev = adapter->parse_response(read_api_file("embeddings.json"));
  EXPECT_EQ(ev.kind, Kind::kData);
  EXPECT_EQ(ev.embeddings, 3);
  EXPECT_EQ(ev.prompt_tokens, 24);
  EXPECT_EQ(adapter->parse_event("{}").kind, Kind::kMalformed);  // embeddings never stream
}

TEST(OpenAIAdapter, ReasoningThenToolCallsWithReasoningTokens) {
  const Tally t = tally(core::ApiKind::kOpenAIChat, read_api_file("chat-reasoning-tools.sse"));
  EXPECT_EQ(t.reasoning, "Need weather.");
  EXPECT_EQ(t.tool, "get_weather{\"city\": \"Paris\"}");
  EXPECT_EQ(t.reasoning_events, 2);
  EXPECT_EQ(t.answer_events, 3);
  EXPECT_EQ(t.first_reasoning, 1);
  EXPECT_EQ(t.first_answer, 3);
  EXPECT_EQ(t.finish_reason, "tool_calls");
  EXPECT_EQ(t.completion_tokens, 9);
  EXPECT_EQ(t.reasoning_tokens, 2);
  EXPECT_TRUE(t.ended);
}

TEST(OpenAIAdapter, MaxCompletionTokensField) {
  OpenAIAdapter adapter(core::ApiKind::kOpenAIChat);
  core::RequestSpec spec;
  spec.prompt = "x";
  spec.max_tokens = 9;
  BodyOptions options;
  options.max_tokens_field = "max_completion_tokens";
  const auto body = nlohmann::json::parse(adapter.build_body(spec, options));
  EXPECT_EQ(body["max_completion_tokens"], 9);
  EXPECT_FALSE(body.contains("max_tokens"));
}

TEST(ApiKind, NamesAndEndpoints) {
  for (const auto api :
       {core::ApiKind::kOpenAIChat, core::ApiKind::kOpenAICompletions, core::ApiKind::kEmbeddings,
        core::ApiKind::kAnthropicMessages, core::ApiKind::kOpenAIResponses}) {
    EXPECT_EQ(core::api_kind_from_string(core::to_string(api)), api);
  }
  EXPECT_EQ(core::api_kind_from_string("anthropic"), core::ApiKind::kAnthropicMessages);
  EXPECT_EQ(core::api_kind_from_string("responses"), core::ApiKind::kOpenAIResponses);
  EXPECT_FALSE(core::api_kind_from_string("grpc"));
  EXPECT_EQ(core::default_endpoint(core::ApiKind::kEmbeddings), "/v1/embeddings");
  EXPECT_EQ(core::default_endpoint(core::ApiKind::kAnthropicMessages), "/v1/messages");
  EXPECT_EQ(core::default_endpoint(core::ApiKind::kOpenAIResponses), "/v1/responses");
}

}  // namespace
}  // namespace tokenbench::client
