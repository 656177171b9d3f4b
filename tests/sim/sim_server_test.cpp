#include "tokenbench/sim/sim_server.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "sim_test_client.h"
#include "tokenbench/core/approx_tokens.h"

namespace tokenbench::sim {
namespace {

using nlohmann::json;
using testing::HttpReply;
using testing::TestClock;
using testing::TestConnection;

SimConfig fast_config() {
  SimConfig c;
  c.port = 0;
  c.timing.ttft_ms = 0;
  c.timing.itl_ms = 0;
  c.seed = 7;
  return c;
}

std::unique_ptr<SimServer> start_server(SimConfig config) {
  auto server = std::make_unique<SimServer>(std::move(config));
  server->start();
  return server;
}

HttpReply request(std::uint16_t port, std::string_view method, std::string_view path,
                  std::string_view body = {}, std::string_view headers = {}) {
  TestConnection conn(port);
  conn.send_request(method, path, body, headers);
  return conn.read_reply();
}

const std::string kChatStream =
    R"({"model":"sim-model","messages":[{"role":"system","content":"be brief"},)"
    R"({"role":"user","content":"tell me about the sea"}],"max_tokens":5,"ignore_eos":true,)"
    R"("stream":true,"stream_options":{"include_usage":true}})";

// Checks an OpenAI error reply: status, JSON shape, code.
void expect_error(const HttpReply& reply, int status, std::string_view type) {
  EXPECT_EQ(reply.status, status);
  EXPECT_EQ(reply.header("content-type"), "application/json");
  const json body = json::parse(reply.body);
  ASSERT_TRUE(body.contains("error")) << reply.body;
  EXPECT_EQ(body["error"]["code"], status);
  EXPECT_EQ(body["error"]["type"], type);
  EXPECT_FALSE(body["error"]["message"].get<std::string>().empty());
}

TEST(SimServerTest, ModelsListsServedModel) {
  auto server = start_server(fast_config());
  const HttpReply reply = request(server->port(), "GET", "/v1/models");
  ASSERT_EQ(reply.status, 200);
  const json body = json::parse(reply.body);
  EXPECT_EQ(body["object"], "list");
  ASSERT_EQ(body["data"].size(), 1u);
  EXPECT_EQ(body["data"][0]["id"], "sim-model");
  EXPECT_EQ(body["data"][0]["object"], "model");
  EXPECT_EQ(body["data"][0]["owned_by"], "tokenbench-sim");
  EXPECT_TRUE(body["data"][0]["created"].is_number_integer());
}

TEST(SimServerTest, HealthIsOk) {
  auto server = start_server(fast_config());
  const HttpReply reply = request(server->port(), "GET", "/health");
  EXPECT_EQ(reply.status, 200);
  EXPECT_EQ(reply.body, R"({"status":"ok"})");
}

TEST(SimServerTest, ChatStreamEventSequence) {
  auto server = start_server(fast_config());
  const HttpReply reply = request(server->port(), "POST", "/v1/chat/completions", kChatStream);
  ASSERT_EQ(reply.status, 200);
  EXPECT_EQ(reply.header("content-type"), "text/event-stream");
  EXPECT_TRUE(reply.chunked);
  EXPECT_TRUE(reply.complete);
  ASSERT_EQ(reply.events.size(), 1u + 5u + 1u + 1u + 1u);  // role, tokens, finish, usage, [DONE]

  const json role = json::parse(reply.events[0].data);
  const std::string id = role["id"];
  EXPECT_EQ(id.rfind("chatcmpl-", 0), 0u);
  EXPECT_EQ(role["object"], "chat.completion.chunk");
  EXPECT_EQ(role["model"], "sim-model");
  EXPECT_EQ(role["choices"][0]["delta"]["role"], "assistant");
  EXPECT_EQ(role["choices"][0]["delta"]["content"], "");
  EXPECT_TRUE(role["choices"][0]["finish_reason"].is_null());
  for (int i = 1; i <= 5; ++i) {
    const json chunk = json::parse(reply.events[i].data);
    EXPECT_EQ(chunk["id"], id);
    const std::string content = chunk["choices"][0]["delta"]["content"];
    EXPECT_EQ(content[0], ' ');
    EXPECT_EQ(core::approx_token_count(content), 1);
    EXPECT_TRUE(chunk["choices"][0]["finish_reason"].is_null());
  }
  const json finish = json::parse(reply.events[6].data);
  EXPECT_TRUE(finish["choices"][0]["delta"].empty());
  EXPECT_EQ(finish["choices"][0]["finish_reason"], "length");
  const json usage = json::parse(reply.events[7].data);
  EXPECT_TRUE(usage["choices"].empty());
  EXPECT_EQ(usage["usage"]["prompt_tokens"], 2 + 5);
  EXPECT_EQ(usage["usage"]["completion_tokens"], 5);
  EXPECT_EQ(usage["usage"]["total_tokens"], 12);
  EXPECT_EQ(reply.events[8].data, "[DONE]");
}

TEST(SimServerTest, CompletionsStreamEventSequence) {
  auto server = start_server(fast_config());
  const HttpReply reply =
      request(server->port(), "POST", "/v1/completions",
              R"({"prompt":"a b c","max_tokens":3,"min_tokens":3,"stream":true})");
  ASSERT_EQ(reply.status, 200);
  EXPECT_TRUE(reply.complete);
  ASSERT_EQ(reply.events.size(), 3u + 1u + 1u);  // no role chunk, no usage unless asked
  for (int i = 0; i < 3; ++i) {
    const json chunk = json::parse(reply.events[i].data);
    EXPECT_EQ(chunk["object"], "text_completion");
    EXPECT_EQ(chunk["id"].get<std::string>().rfind("cmpl-", 0), 0u);
    EXPECT_EQ(chunk["choices"][0]["text"].get<std::string>()[0], ' ');
    EXPECT_TRUE(chunk["choices"][0]["finish_reason"].is_null());
  }
  const json finish = json::parse(reply.events[3].data);
  EXPECT_EQ(finish["choices"][0]["text"], "");
  EXPECT_EQ(finish["choices"][0]["finish_reason"], "length");
  EXPECT_EQ(reply.events[4].data, "[DONE]");
}

TEST(SimServerTest, ChatNonStreamBody) {
  auto server = start_server(fast_config());
  const HttpReply reply =
      request(server->port(), "POST", "/v1/chat/completions",
              R"({"messages":[{"role":"user","content":[{"type":"text","text":"one two"}]}],)"
              R"("max_completion_tokens":4,"ignore_eos":true})");
  ASSERT_EQ(reply.status, 200);
  EXPECT_TRUE(reply.complete);
  EXPECT_EQ(reply.header("content-length"), std::to_string(reply.body.size()));
  const json body = json::parse(reply.body);
  EXPECT_EQ(body["object"], "chat.completion");
  EXPECT_EQ(body["choices"][0]["message"]["role"], "assistant");
  EXPECT_EQ(core::approx_token_count(body["choices"][0]["message"]["content"].get<std::string>()),
            4);
  EXPECT_EQ(body["choices"][0]["finish_reason"], "length");
  EXPECT_EQ(body["usage"]["prompt_tokens"], 2);
  EXPECT_EQ(body["usage"]["completion_tokens"], 4);
  EXPECT_EQ(body["usage"]["total_tokens"], 6);
}

TEST(SimServerTest, CompletionsNonStreamBody) {
  auto server = start_server(fast_config());
  const HttpReply reply = request(server->port(), "POST", "/v1/completions",
                                  R"({"prompt":[1,2,3,4],"max_tokens":6,"ignore_eos":true})");
  ASSERT_EQ(reply.status, 200);
  const json body = json::parse(reply.body);
  EXPECT_EQ(body["object"], "text_completion");
  EXPECT_EQ(core::approx_token_count(body["choices"][0]["text"].get<std::string>()), 6);
  EXPECT_EQ(body["usage"]["prompt_tokens"], 4);
  EXPECT_EQ(body["usage"]["completion_tokens"], 6);
}

TEST(SimServerTest, ErrorReplies) {
  SimConfig config = fast_config();
  auto server = start_server(config);
  const auto port = server->port();
  expect_error(request(port, "GET", "/v1/nothing"), 404, "invalid_request_error");
  expect_error(request(port, "POST", "/v1/chat/completions", "{not json"), 400,
               "invalid_request_error");
  expect_error(request(port, "POST", "/v1/chat/completions", R"({"max_tokens":3})"), 400,
               "invalid_request_error");
  expect_error(request(port, "POST", "/v1/completions", R"({"max_tokens":3})"), 400,
               "invalid_request_error");
  expect_error(request(port, "POST", "/v1/completions", R"({"prompt":"x","max_tokens":0})"), 400,
               "invalid_request_error");
  const HttpReply unknown_model =
      request(port, "POST", "/v1/completions", R"({"model":"gpt-9","prompt":"x"})");
  expect_error(unknown_model, 404, "invalid_request_error");
  EXPECT_NE(unknown_model.body.find("gpt-9"), std::string::npos);
  expect_error(request(port, "GET", "/v1/completions"), 405, "invalid_request_error");
}

TEST(SimServerTest, ApiKeyRequiredOnV1Paths) {
  SimConfig config = fast_config();
  config.api_key = "sekret";
  auto server = start_server(config);
  const auto port = server->port();
  expect_error(request(port, "GET", "/v1/models"), 401, "invalid_request_error");
  expect_error(request(port, "GET", "/v1/models", {}, "Authorization: Bearer wrong\r\n"), 401,
               "invalid_request_error");
  EXPECT_EQ(request(port, "GET", "/v1/models", {}, "Authorization: Bearer sekret\r\n").status, 200);
  EXPECT_EQ(request(port, "POST", "/v1/completions", R"({"prompt":"x","max_tokens":2})",
                    "Authorization: Bearer sekret\r\n")
                .status,
            200);
  EXPECT_EQ(request(port, "GET", "/health").status, 200);
}

// Output lengths of the requests in arrival order, read from usage.
std::vector<std::int64_t> eos_lengths(std::uint16_t port, int n, std::vector<std::string>* texts) {
  std::vector<std::int64_t> out;
  TestConnection conn(port);
  for (int i = 0; i < n; ++i) {
    conn.send_request("POST", "/v1/completions",
                      R"({"prompt":"hello","max_tokens":20,"min_tokens":5})");
    const json body = json::parse(conn.read_reply().body);
    const std::int64_t tokens = body["usage"]["completion_tokens"];
    EXPECT_GE(tokens, 5);
    EXPECT_LE(tokens, 20);
    EXPECT_EQ(body["choices"][0]["finish_reason"], tokens == 20 ? "length" : "stop");
    out.push_back(tokens);
    texts->push_back(body["choices"][0]["text"]);
  }
  return out;
}

TEST(SimServerTest, EosLengthWithinBoundsAndDeterministicForSeed) {
  std::vector<std::string> texts_a, texts_b, texts_c;
  auto a = start_server(fast_config());
  const auto lengths_a = eos_lengths(a->port(), 12, &texts_a);
  auto b = start_server(fast_config());
  const auto lengths_b = eos_lengths(b->port(), 12, &texts_b);
  EXPECT_EQ(lengths_a, lengths_b);
  EXPECT_EQ(texts_a, texts_b);
  SimConfig other = fast_config();
  other.seed = 8;
  auto c = start_server(other);
  const auto lengths_c = eos_lengths(c->port(), 12, &texts_c);
  EXPECT_NE(texts_a, texts_c);
  // Not every request hits the limit: the draws spread over [5, 20].
  EXPECT_NE(std::count(lengths_a.begin(), lengths_a.end(), 20), 12);
}

TEST(SimServerTest, KeepAliveServesSeveralRequestsOnOneConnection) {
  auto server = start_server(fast_config());
  TestConnection conn(server->port());
  conn.send_request("POST", "/v1/chat/completions", kChatStream);
  const HttpReply first = conn.read_reply();
  EXPECT_TRUE(first.complete);
  EXPECT_FALSE(first.closed);
  conn.send_request("POST", "/v1/completions", R"({"prompt":"x","max_tokens":2})");
  const HttpReply second = conn.read_reply();
  EXPECT_EQ(second.status, 200);
  EXPECT_TRUE(second.complete);
  conn.send_request("GET", "/v1/nope");
  EXPECT_EQ(conn.read_reply().status, 404);
  conn.send_request("GET", "/health", {}, "Connection: close\r\n");
  const HttpReply last = conn.read_reply();
  EXPECT_EQ(last.status, 200);
  EXPECT_EQ(last.header("connection"), "close");
  EXPECT_TRUE(conn.server_closed());
}

TEST(SimServerTest, ExpectContinueGetsInterimReply) {
  auto server = start_server(fast_config());
  TestConnection conn(server->port());
  const std::string body = R"({"prompt":"x","max_tokens":2})";
  conn.send_raw(
      "POST /v1/completions HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\n"
      "Content-Length: " +
      std::to_string(body.size()) + "\r\n\r\n");
  EXPECT_EQ(conn.read_reply().status, 100);
  conn.send_raw(body);
  EXPECT_EQ(conn.read_reply().status, 200);
}

TEST(SimServerTest, TimingHonoursTtftAndItl) {
  SimConfig config = fast_config();
  config.timing.ttft_ms = 100;
  config.timing.itl_ms = 20;
  auto server = start_server(config);
  TestConnection conn(server->port());
  const auto sent = TestClock::now();
  conn.send_request("POST", "/v1/chat/completions", kChatStream);
  const HttpReply reply = conn.read_reply();
  ASSERT_EQ(reply.events.size(), 9u);
  using std::chrono::milliseconds;
  EXPECT_LT(reply.events[0].at, reply.events[1].at);  // the role chunk leaves at once
  const auto first = reply.events[1].at - sent;
  const auto last = reply.events[5].at - sent;
  EXPECT_GE(first, milliseconds(100));
  EXPECT_LT(first, milliseconds(1000));
  EXPECT_GE(last, milliseconds(100 + 4 * 20));
  EXPECT_LT(last, milliseconds(1500));
}

TEST(SimServerTest, NonStreamReplyWaitsForTheLastToken) {
  SimConfig config = fast_config();
  config.timing.ttft_ms = 50;
  config.timing.itl_ms = 10;
  auto server = start_server(config);
  TestConnection conn(server->port());
  const auto sent = TestClock::now();
  conn.send_request("POST", "/v1/completions",
                    R"({"prompt":"x","max_tokens":6,"ignore_eos":true})");
  const HttpReply reply = conn.read_reply();
  EXPECT_EQ(reply.status, 200);
  EXPECT_GE(reply.headers_at - sent, std::chrono::milliseconds(50 + 5 * 10));
}

TEST(SimServerTest, ServesHundredsOfConcurrentStreamsOnOneThread) {
  SimConfig config = fast_config();
  config.timing.itl_ms = 5;
  auto server = start_server(config);
  constexpr int kStreams = 300;
  std::vector<std::unique_ptr<TestConnection>> conns;
  const auto started = TestClock::now();
  for (int i = 0; i < kStreams; ++i) {
    conns.push_back(std::make_unique<TestConnection>(server->port()));
    conns.back()->send_request("POST", "/v1/chat/completions", kChatStream);
  }
  for (auto& conn : conns) {
    const HttpReply reply = conn->read_reply();
    ASSERT_TRUE(reply.complete);
    ASSERT_EQ(reply.events.size(), 9u);
  }
  // 300 streams of 5 tokens at 5 ms each overlap: far below 300 x 20 ms in series.
  EXPECT_LT(TestClock::now() - started, std::chrono::seconds(3));
}

TEST(SimServerTest, SeveralIoThreadsServeInParallel) {
  SimConfig config = fast_config();
  config.threads = 3;
  auto server = start_server(config);
  std::vector<std::unique_ptr<TestConnection>> conns;
  for (int i = 0; i < 12; ++i) {
    conns.push_back(std::make_unique<TestConnection>(server->port()));
    conns.back()->send_request("POST", "/v1/chat/completions", kChatStream);
  }
  for (auto& conn : conns) EXPECT_TRUE(conn->read_reply().complete);
}

TEST(SimServerTest, StopClosesOpenStreamsAndIsIdempotent) {
  SimConfig config = fast_config();
  config.timing.itl_ms = 10000;
  auto server = start_server(config);
  TestConnection conn(server->port());
  conn.send_request("POST", "/v1/chat/completions", kChatStream);
  TestConnection idle(server->port());
  server->stop();
  const HttpReply reply = conn.read_reply();
  EXPECT_FALSE(reply.complete);
  EXPECT_TRUE(reply.closed);
  EXPECT_TRUE(idle.server_closed());
  server->stop();
}

TEST(SimServerTest, PortInUseThrowsOneLine) {
  auto first = start_server(fast_config());
  SimConfig config = fast_config();
  config.port = first->port();
  SimServer second(config);
  try {
    second.start();
    FAIL() << "start() should have thrown";
  } catch (const std::runtime_error& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("cannot listen on 127.0.0.1:"), std::string::npos) << message;
    EXPECT_EQ(message.find('\n'), std::string::npos);
  }
}

TEST(SimServerTest, FixedDelaysRefuseSequencesOverMaxModelLen) {
  SimConfig config = fast_config();
  config.max_model_len = 1000;
  auto server = start_server(config);
  TestConnection conn(server->port());
  conn.send_request("POST", "/v1/completions",
                    R"({"prompt":"a b c","max_tokens":10000000000,"stream":false})");
  const HttpReply reply = conn.read_reply();
  EXPECT_EQ(reply.status, 400);
  EXPECT_NE(reply.body.find("maximum context length is 1000 tokens"), std::string::npos);
}

}  // namespace
}  // namespace tokenbench::sim
