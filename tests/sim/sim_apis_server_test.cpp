// The simulator's further APIs end to end over real sockets: embeddings, Anthropic Messages,
// OpenAI Responses, SGLang's native /generate, and chat's reasoning tokens, tool calls and image
// parts. Every reply is
// checked against real counts; the servers use short fixed delays, so each test takes
// milliseconds.

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "prometheus_text.h"
#include "sim_image_data.h"
#include "sim_test_client.h"
#include "tokenbench/sim/engine_params.h"
#include "tokenbench/sim/sim_server.h"

namespace tokenbench::sim {
namespace {

using nlohmann::json;
using testing::HttpReply;
using testing::start_server;
using testing::TestConnection;

// Fixed delays of 1 ms; every reply is exactly max_tokens long.
SimConfig fixed_config(std::int64_t reasoning_tokens = 0) {
  SimConfig c;
  c.port = 0;
  c.seed = 11;
  c.timing.ttft_ms = 1;
  c.timing.itl_ms = 1;
  c.reasoning_tokens = reasoning_tokens;
  c.eos.dist = EosDistribution::kNone;
  return c;
}

HttpReply post(std::uint16_t port, std::string_view path, const std::string& body,
               std::string_view headers = {}) {
  TestConnection conn(port);
  conn.send_request("POST", path, body, headers);
  return conn.read_reply();
}

testing::PromText scrape(std::uint16_t port) {
  TestConnection conn(port);
  conn.send_request("GET", "/metrics");
  return testing::parse_prom_text(conn.read_reply().body);
}

// A named SSE event (`event: TYPE\ndata: JSON`).
struct NamedEvent {
  std::string type;
  json data;
};

std::vector<NamedEvent> named_events(const HttpReply& reply) {
  std::vector<NamedEvent> out;
  for (const auto& e : reply.events) {
    // The test client strips a leading "data: "; a named event starts with its event line.
    EXPECT_TRUE(e.data.starts_with("event: ")) << e.data;
    const std::size_t nl = e.data.find('\n');
    EXPECT_EQ(e.data.compare(nl + 1, 6, "data: "), 0) << e.data;
    out.push_back({e.data.substr(7, nl - 7), json::parse(e.data.substr(nl + 7))});
  }
  return out;
}

std::vector<std::string> types(const std::vector<NamedEvent>& events) {
  std::vector<std::string> out;
  for (const auto& e : events) out.push_back(e.type);
  return out;
}

TEST(SimApisTest, EmbeddingsBatchOfThree) {
  for (const TimingMode mode : {TimingMode::kFixed, TimingMode::kEngine}) {
    SimConfig c = fixed_config();
    c.mode = mode;
    c.engine = *find_engine_preset("zero");
    c.engine.step_overhead_ms = 1;
    auto server = start_server(c);
    const std::string body =
        R"({"model":"sim-model","input":["one two three","four",[7,8,9,10,11]],"stream":true})";
    const HttpReply reply = post(server->port(), "/v1/embeddings", body);
    ASSERT_EQ(reply.status, 200) << reply.body;
    EXPECT_EQ(reply.header("content-type"), "application/json");
    const json j = json::parse(reply.body);
    EXPECT_EQ(j["object"], "list");
    EXPECT_EQ(j["model"], "sim-model");
    EXPECT_EQ(j["usage"]["prompt_tokens"], 3 + 1 + 5);
    EXPECT_EQ(j["usage"]["total_tokens"], 9);
    ASSERT_EQ(j["data"].size(), 3u);
    for (int i = 0; i < 3; ++i) {
      EXPECT_EQ(j["data"][i]["object"], "embedding");
      EXPECT_EQ(j["data"][i]["index"], i);
      ASSERT_EQ(j["data"][i]["embedding"].size(), 8u);
      double norm = 0;
      for (const auto& v : j["data"][i]["embedding"]) norm += v.get<double>() * v.get<double>();
      EXPECT_NEAR(norm, 1.0, 1e-5);
    }
    EXPECT_NE(j["data"][0]["embedding"], j["data"][1]["embedding"]);
    // The same input always gets the same vector.
    const json again =
        json::parse(post(server->port(), "/v1/embeddings", R"({"input":"four"})").body);
    EXPECT_EQ(again["data"][0]["embedding"], j["data"][1]["embedding"]);

    const auto m = scrape(server->port());
    EXPECT_EQ(m.at(R"(tokenbench_sim:requests_total{model_name="sim-model",api="embeddings"})"), 2);
    EXPECT_EQ(m.at(R"(vllm:prompt_tokens_total{model_name="sim-model"})"), 9 + 1);
  }
}

TEST(SimApisTest, ChatReasoningTokensComeFirst) {
  auto server = start_server(fixed_config(3));
  const HttpReply reply = post(
      server->port(), "/v1/chat/completions",
      R"({"messages":[{"role":"user","content":"a b"}],"max_tokens":5,"stream":true,"stream_options":{"include_usage":true}})");
  ASSERT_EQ(reply.status, 200);
  ASSERT_EQ(reply.events.size(), 1u + 5 + 1 + 1 + 1);
  EXPECT_EQ(json::parse(reply.events[0].data)["choices"][0]["delta"]["role"], "assistant");
  for (int i = 1; i <= 3; ++i) {
    const json d = json::parse(reply.events[i].data)["choices"][0]["delta"];
    EXPECT_TRUE(d.contains("reasoning_content")) << d;
    EXPECT_FALSE(d.contains("content")) << d;
  }
  for (int i = 4; i <= 5; ++i) {
    const json d = json::parse(reply.events[i].data)["choices"][0]["delta"];
    EXPECT_TRUE(d.contains("content")) << d;
    EXPECT_FALSE(d.contains("reasoning_content")) << d;
  }
  EXPECT_EQ(json::parse(reply.events[6].data)["choices"][0]["finish_reason"], "length");
  const json usage = json::parse(reply.events[7].data)["usage"];
  EXPECT_EQ(usage["prompt_tokens"], 2);
  EXPECT_EQ(usage["completion_tokens"], 5);
  EXPECT_EQ(usage["completion_tokens_details"]["reasoning_tokens"], 3);
  EXPECT_EQ(reply.events[8].data, "[DONE]");

  // Not streamed; reasoning capped by the output length.
  const json whole =
      json::parse(post(server->port(), "/v1/chat/completions",
                       R"({"messages":[{"role":"user","content":"a"}],"max_tokens":2})")
                      .body);
  EXPECT_EQ(whole["usage"]["completion_tokens_details"]["reasoning_tokens"], 2);
  EXPECT_EQ(whole["choices"][0]["message"]["content"], "");
  EXPECT_FALSE(whole["choices"][0]["message"]["reasoning_content"].get<std::string>().empty());
}

TEST(SimApisTest, ChatToolCallStream) {
  auto server = start_server(fixed_config());
  const HttpReply reply = post(
      server->port(), "/v1/chat/completions",
      R"({"messages":[{"role":"user","content":"weather?"}],"max_completion_tokens":3,"stream":true,"tools":[{"type":"function","function":{"name":"get_weather"}}]})");
  ASSERT_EQ(reply.status, 200);
  ASSERT_EQ(reply.events.size(), 1u + 1 + 3 + 1 + 1);
  const json start = json::parse(reply.events[1].data)["choices"][0]["delta"]["tool_calls"][0];
  EXPECT_EQ(start["index"], 0);
  EXPECT_TRUE(start["id"].get<std::string>().starts_with("call_"));
  EXPECT_EQ(start["type"], "function");
  EXPECT_EQ(start["function"]["name"], "get_weather");
  EXPECT_EQ(start["function"]["arguments"], "");
  std::string arguments;
  for (int i = 2; i <= 4; ++i) {
    const json call = json::parse(reply.events[i].data)["choices"][0]["delta"]["tool_calls"][0];
    EXPECT_EQ(call["index"], 0);
    EXPECT_FALSE(call.contains("id"));
    arguments += call["function"]["arguments"].get<std::string>();
  }
  EXPECT_EQ(json::parse(reply.events[5].data)["choices"][0]["finish_reason"], "length");
  EXPECT_EQ(reply.events[6].data, "[DONE]");

  const json whole = json::parse(
      post(
          server->port(), "/v1/chat/completions",
          R"({"messages":[{"role":"user","content":"weather?"}],"max_tokens":3,"tools":[{"type":"function","function":{"name":"get_weather"}}]})")
          .body);
  const json message = whole["choices"][0]["message"];
  EXPECT_TRUE(message["content"].is_null());
  EXPECT_EQ(message["tool_calls"][0]["function"]["name"], "get_weather");
  EXPECT_FALSE(message["tool_calls"][0]["function"]["arguments"].get<std::string>().empty());
  EXPECT_FALSE(arguments.empty());
  EXPECT_EQ(whole["choices"][0]["finish_reason"], "length");
}

TEST(SimApisTest, ChatImagePartIsCounted) {
  auto server = start_server(fixed_config());
  const std::string png = "data:image/png;base64," + testing::png_base64(300, 100);
  const HttpReply reply = post(
      server->port(), "/v1/chat/completions",
      R"({"messages":[{"role":"user","content":[{"type":"text","text":"describe this"},{"type":"image_url","image_url":{"url":")" +
          png + R"("}}]}],"max_tokens":1})");
  ASSERT_EQ(reply.status, 200) << reply.body;
  // ceil(300/28) * ceil(100/28) = 11 * 4 = 44 image tokens, plus 2 words.
  EXPECT_EQ(json::parse(reply.body)["usage"]["prompt_tokens"], 46);
  const auto m = scrape(server->port());
  EXPECT_EQ(m.at(R"(tokenbench_sim:images_total{model_name="sim-model"})"), 1);
  EXPECT_EQ(m.at(R"(tokenbench_sim:image_tokens_total{model_name="sim-model"})"), 44);
  EXPECT_EQ(m.at(R"(tokenbench_sim:requests_total{model_name="sim-model",api="chat"})"), 1);

  const HttpReply bad = post(
      server->port(), "/v1/chat/completions",
      R"({"messages":[{"role":"user","content":[{"type":"image_url","image_url":{"url":"http://x/y.png"}}]}]})");
  EXPECT_EQ(bad.status, 400);
}

TEST(SimApisTest, MessagesStreamWithThinking) {
  auto server = start_server(fixed_config(2));
  const HttpReply reply = post(
      server->port(), "/v1/messages",
      R"({"model":"sim-model","max_tokens":5,"stream":true,"system":"short","thinking":{"type":"enabled","budget_tokens":1024},"messages":[{"role":"user","content":"one two three"}]})",
      "anthropic-version: 2023-06-01\r\n");
  ASSERT_EQ(reply.status, 200) << reply.body;
  EXPECT_EQ(reply.header("content-type"), "text/event-stream");
  const auto events = named_events(reply);
  const std::vector<std::string> expected = {
      "message_start",       "content_block_start", "content_block_delta", "content_block_delta",
      "content_block_stop",  "content_block_start", "content_block_delta", "content_block_delta",
      "content_block_delta", "content_block_stop",  "message_delta",       "message_stop"};
  ASSERT_EQ(types(events), expected);
  for (const auto& e : events) EXPECT_EQ(e.data["type"], e.type);
  const json& start = events[0].data["message"];
  EXPECT_TRUE(start["id"].get<std::string>().starts_with("msg_"));
  EXPECT_EQ(start["role"], "assistant");
  EXPECT_EQ(start["model"], "sim-model");
  EXPECT_EQ(start["usage"]["input_tokens"], 4);
  EXPECT_EQ(start["usage"]["output_tokens"], 0);
  EXPECT_EQ(events[1].data["index"], 0);
  EXPECT_EQ(events[1].data["content_block"]["type"], "thinking");
  EXPECT_EQ(events[2].data["delta"]["type"], "thinking_delta");
  EXPECT_EQ(events[4].data["index"], 0);
  EXPECT_EQ(events[5].data["index"], 1);
  EXPECT_EQ(events[5].data["content_block"], json::parse(R"({"type":"text","text":""})"));
  EXPECT_EQ(events[6].data["delta"]["type"], "text_delta");
  EXPECT_EQ(events[6].data["index"], 1);
  EXPECT_EQ(events[9].data["index"], 1);
  EXPECT_EQ(events[10].data["delta"]["stop_reason"], "max_tokens");
  EXPECT_EQ(events[10].data["usage"]["output_tokens"], 5);

  // Without thinking: no thinking block; not streamed.
  const json whole =
      json::parse(post(server->port(), "/v1/messages",
                       R"({"max_tokens":3,"messages":[{"role":"user","content":"hi"}]})")
                      .body);
  EXPECT_EQ(whole["type"], "message");
  ASSERT_EQ(whole["content"].size(), 1u);
  EXPECT_EQ(whole["content"][0]["type"], "text");
  EXPECT_EQ(whole["stop_reason"], "max_tokens");
  EXPECT_EQ(whole["usage"]["input_tokens"], 1);
  EXPECT_EQ(whole["usage"]["output_tokens"], 3);
}

TEST(SimApisTest, MessagesErrorsInAnthropicShape) {
  SimConfig c = fixed_config();
  c.api_key = "secret";
  auto server = start_server(c);
  const std::string body = R"({"max_tokens":2,"messages":[{"role":"user","content":"hi"}]})";
  const HttpReply denied = post(server->port(), "/v1/messages", body);
  EXPECT_EQ(denied.status, 401);
  EXPECT_EQ(json::parse(denied.body)["error"]["type"], "authentication_error");
  EXPECT_EQ(post(server->port(), "/v1/messages", body, "x-api-key: secret\r\n").status, 200);
  const HttpReply missing =
      post(server->port(), "/v1/messages", R"({"messages":[{"role":"user","content":"hi"}]})",
           "x-api-key: secret\r\n");
  EXPECT_EQ(missing.status, 400);
  EXPECT_EQ(json::parse(missing.body)["type"], "error");
}

TEST(SimApisTest, MessagesMidStreamFaultIsAnErrorEvent) {
  SimConfig c = fixed_config();
  c.faults.push_back(parse_fault_rule("error_event:1"));
  auto server = start_server(c);
  const HttpReply reply =
      post(server->port(), "/v1/messages",
           R"({"max_tokens":4,"stream":true,"messages":[{"role":"user","content":"hi"}]})");
  ASSERT_EQ(reply.status, 200);
  const auto events = named_events(reply);
  ASSERT_FALSE(events.empty());
  EXPECT_EQ(events.back().type, "error");
  EXPECT_EQ(events.back().data["error"]["type"], "overloaded_error");
  EXPECT_EQ(types(events)[0], "message_start");
}

TEST(SimApisTest, ResponsesStreamWithReasoning) {
  auto server = start_server(fixed_config(2));
  const HttpReply reply = post(
      server->port(), "/v1/responses",
      R"({"model":"sim-model","input":[{"role":"user","content":[{"type":"input_text","text":"a b c"}]}],"instructions":"d","max_output_tokens":4,"stream":true})");
  ASSERT_EQ(reply.status, 200) << reply.body;
  const auto events = named_events(reply);
  const std::vector<std::string> expected = {"response.created",
                                             "response.output_item.added",
                                             "response.reasoning_text.delta",
                                             "response.reasoning_text.delta",
                                             "response.output_item.done",
                                             "response.output_item.added",
                                             "response.content_part.added",
                                             "response.output_text.delta",
                                             "response.output_text.delta",
                                             "response.output_text.done",
                                             "response.content_part.done",
                                             "response.output_item.done",
                                             "response.incomplete"};
  ASSERT_EQ(types(events), expected);
  for (std::size_t i = 0; i < events.size(); ++i) {
    EXPECT_EQ(events[i].data["type"], events[i].type);
    EXPECT_EQ(events[i].data["sequence_number"], i);
  }
  EXPECT_EQ(events[0].data["response"]["status"], "in_progress");
  const std::string id = events[0].data["response"]["id"];
  EXPECT_TRUE(id.starts_with("resp_"));
  EXPECT_EQ(events[1].data["item"]["type"], "reasoning");
  EXPECT_EQ(events[2].data["output_index"], 0);
  EXPECT_EQ(events[5].data["item"]["type"], "message");
  EXPECT_EQ(events[7].data["output_index"], 1);
  const std::string text =
      events[7].data["delta"].get<std::string>() + events[8].data["delta"].get<std::string>();
  EXPECT_EQ(events[9].data["text"], text);
  const json& done = events.back().data["response"];
  EXPECT_EQ(done["id"], id);
  EXPECT_EQ(done["status"], "incomplete");
  EXPECT_EQ(done["incomplete_details"]["reason"], "max_output_tokens");
  EXPECT_EQ(done["usage"]["input_tokens"], 4);
  EXPECT_EQ(done["usage"]["output_tokens"], 4);
  EXPECT_EQ(done["usage"]["output_tokens_details"]["reasoning_tokens"], 2);
  EXPECT_EQ(done["usage"]["total_tokens"], 8);
  ASSERT_EQ(done["output"].size(), 2u);
  EXPECT_EQ(done["output"][1]["content"][0]["text"], text);
}

TEST(SimApisTest, ResponsesWholeReplyCompleted) {
  SimConfig c = fixed_config();
  c.eos.dist = EosDistribution::kUniform;
  c.timing.itl_ms = 0;
  auto server = start_server(c);
  // min 1, max 1000: EOS draws stop well before the limit for this seed.
  const json whole = json::parse(
      post(server->port(), "/v1/responses", R"({"input":"hello there","max_output_tokens":1000})")
          .body);
  EXPECT_EQ(whole["object"], "response");
  EXPECT_EQ(whole["status"], "completed");
  EXPECT_FALSE(whole.contains("incomplete_details"));
  ASSERT_EQ(whole["output"].size(), 1u);
  EXPECT_EQ(whole["output"][0]["type"], "message");
  EXPECT_EQ(whole["output"][0]["content"][0]["type"], "output_text");
  EXPECT_EQ(whole["usage"]["input_tokens"], 2);
  EXPECT_EQ(whole["usage"]["output_tokens_details"]["reasoning_tokens"], 0);
}

// SGLang's /generate (python/sglang/srt/entrypoints/http_server.py): one event per token whose
// "text" is the whole text so far and meta_info.completion_tokens the tokens so far, the last
// one's finish_reason {"type":"length"}, then [DONE]; a whole reply is that last object.
TEST(SimApisTest, GenerateStreamsCumulativeText) {
  auto server = start_server(fixed_config());
  const HttpReply reply = post(
      server->port(), "/generate",
      R"({"text":"one two three","sampling_params":{"max_new_tokens":4,"ignore_eos":true,"temperature":0},"stream":true})");
  ASSERT_EQ(reply.status, 200) << reply.body;
  ASSERT_EQ(reply.events.size(), 5u);
  EXPECT_EQ(reply.events.back().data, "[DONE]");
  std::string before;
  for (int i = 0; i < 4; ++i) {
    const json e = json::parse(reply.events[i].data);
    const std::string text = e["text"];
    EXPECT_TRUE(text.starts_with(before)) << text;  // cumulative
    EXPECT_GT(text.size(), before.size());
    before = text;
    EXPECT_EQ(e["meta_info"]["completion_tokens"], i + 1);
    EXPECT_EQ(e["meta_info"]["prompt_tokens"], 3);
    if (i < 3) {
      EXPECT_TRUE(e["meta_info"]["finish_reason"].is_null());
    } else {
      EXPECT_EQ(e["meta_info"]["finish_reason"]["type"], "length");
      EXPECT_EQ(e["meta_info"]["finish_reason"]["length"], 4);
    }
  }
  EXPECT_EQ(std::count(before.begin(), before.end(), ' '), 4);  // four words, each once

  const json whole = json::parse(
      post(server->port(), "/generate", R"({"text":"one","sampling_params":{"max_new_tokens":3}})")
          .body);
  EXPECT_EQ(whole["meta_info"]["completion_tokens"], 3);
  const std::string text = whole["text"];
  EXPECT_EQ(std::count(text.begin(), text.end(), ' '), 3);
  const HttpReply bad = post(server->port(), "/generate", R"({"sampling_params":{}})");
  EXPECT_EQ(bad.status, 400);
  EXPECT_NE(bad.body.find("'text'"), std::string::npos);
  const auto m = scrape(server->port());
  EXPECT_EQ(m.at(R"(tokenbench_sim:requests_total{model_name="sim-model",api="generate"})"), 2);
}

}  // namespace
}  // namespace tokenbench::sim
