// The engine against scripted replies of the Anthropic Messages, OpenAI Responses and embeddings
// APIs (tests/data/api/, written from the public documentation): stamps, counts and ends.

#include <gtest/gtest.h>

#include <fstream>
#include <mutex>
#include <sstream>

#include "fake_server.h"
#include "tokenbench/client/http_engine.h"

namespace tokenbench::client {
namespace {

using namespace std::chrono_literals;
using testing::Piece;

std::string read_api_file(const std::string& name) {
  std::ifstream in(std::string(TOKENBENCH_TEST_DATA_DIR) + "/api/" + name, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The file's events one piece each, `pause` apart, after the headers of `content_type`.
std::vector<Piece> paced(const std::string& body, std::chrono::milliseconds pause,
                         const std::string& content_type = "text/event-stream") {
  std::vector<Piece> script{
      {"HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Type: " + content_type + "\r\n\r\n", 0ms}};
  std::size_t pos = 0;
  while (pos < body.size()) {
    const std::size_t next = body.find("\n\n", pos);
    const std::size_t end = next == std::string::npos ? body.size() : next + 2;
    script.push_back({body.substr(pos, end - pos), pause});
    pos = end;
  }
  return script;
}

core::RequestRecord run_one(const std::string& url, core::ApiKind api, core::RequestSpec spec,
                            bool stream = true) {
  core::RunClock clock;
  EngineConfig config;
  config.endpoints = {{url + core::default_endpoint(api), {}}};
  config.api = api;
  config.stream = stream;
  config.timeout_s = 10;
  config.max_concurrency = 1;
  HttpEngine engine(config, clock);
  std::vector<core::RequestSpec> specs{std::move(spec)};
  std::vector<std::string> bodies{R"({"model":"m"})"};
  ImmediateSource source(specs, bodies, 1, clock.now());
  std::mutex m;
  core::RequestRecord out;
  engine.run_phase(source, 1, [&](core::RequestRecord&& r) {
    std::lock_guard<std::mutex> lock(m);
    out = std::move(r);
  });
  return out;
}

core::RequestSpec one_prompt() {
  core::RequestSpec spec;
  spec.prompt = "hi";
  spec.max_tokens = 16;
  return spec;
}

TEST(ApiStreams, AnthropicThinkingThenTextHasTwoFirstStamps) {
  testing::FakeServer server(paced(read_api_file("anthropic-messages.sse"), 3ms));
  const auto r = run_one(server.url(), core::ApiKind::kAnthropicMessages, one_prompt());
  EXPECT_EQ(r.error, core::ErrorClass::kNone) << r.error_message;
  ASSERT_EQ(r.chunks.size(), 5u);  // 2 thinking + 3 text deltas
  EXPECT_EQ(r.first_token, r.chunks[0].t);
  EXPECT_EQ(r.first_reasoning, r.chunks[0].t);
  EXPECT_EQ(r.first_answer, r.chunks[2].t);
  // Events are 3 ms apart, and the signature and block events sit between the last thinking
  // delta and the first text delta.
  EXPECT_GE(r.first_answer - r.first_reasoning, 3'000'000);
  EXPECT_EQ(r.output_tokens, 15);
  EXPECT_EQ(r.output_source, core::TokenSource::kUsage);
  EXPECT_EQ(r.prompt_tokens, 25);
  EXPECT_EQ(r.finish_reason, "end_turn");
  EXPECT_EQ(r.response_id, "msg_01XFDUDYJgAACzvnptvVoYEL");
}

TEST(ApiStreams, AnthropicErrorEventIsAServerError) {
  testing::FakeServer server(paced(read_api_file("anthropic-error.sse"), 1ms));
  const auto r = run_one(server.url(), core::ApiKind::kAnthropicMessages, one_prompt());
  EXPECT_EQ(r.error, core::ErrorClass::kServerError);
  EXPECT_EQ(r.error_message, "Overloaded");
}

TEST(ApiStreams, ResponsesStreamEndsAtResponseCompleted) {
  testing::FakeServer server(paced(read_api_file("responses.sse"), 2ms));
  const auto r = run_one(server.url(), core::ApiKind::kOpenAIResponses, one_prompt());
  EXPECT_EQ(r.error, core::ErrorClass::kNone) << r.error_message;  // no [DONE], yet complete
  ASSERT_EQ(r.chunks.size(), 4u);
  EXPECT_EQ(r.first_reasoning, r.chunks[0].t);
  EXPECT_EQ(r.first_answer, r.chunks[2].t);
  EXPECT_GT(r.first_answer, r.first_reasoning);
  EXPECT_EQ(r.output_tokens, 11);
  EXPECT_EQ(r.reasoning_tokens, 4);
  EXPECT_EQ(r.prompt_tokens, 37);
  EXPECT_EQ(r.finish_reason, "completed");
}

TEST(ApiStreams, ResponsesStreamCutBeforeCompletedIsAStreamCut) {
  std::string body = read_api_file("responses.sse");
  body = body.substr(0, body.find("event: response.completed"));
  testing::FakeServer server(paced(body, 1ms));
  const auto r = run_one(server.url(), core::ApiKind::kOpenAIResponses, one_prompt());
  EXPECT_EQ(r.error, core::ErrorClass::kStreamCut) << r.error_message;
  EXPECT_EQ(r.chunks.size(), 4u);  // what arrived is kept
}

TEST(ApiStreams, EmbeddingsCountInputsAndCheckTheVectors) {
  const std::string json = read_api_file("embeddings.json");
  const std::string reply =
      "HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Type: "
      "application/json\r\nContent-Length: " +
      std::to_string(json.size()) + "\r\n\r\n" + json;
  core::RequestSpec spec = one_prompt();
  spec.more_inputs = {"b", "c"};
  {
    testing::FakeServer server({{reply, 0ms}});
    const auto r = run_one(server.url(), core::ApiKind::kEmbeddings, spec, /*stream=*/false);
    EXPECT_EQ(r.error, core::ErrorClass::kNone) << r.error_message;
    EXPECT_FALSE(r.streamed);
    EXPECT_EQ(r.embeddings, 3);
    EXPECT_EQ(r.prompt_tokens, 24);
    EXPECT_EQ(r.output_tokens, 0);
  }
  spec.more_inputs.push_back("d");  // four inputs, three vectors
  testing::FakeServer server({{reply, 0ms}});
  const auto r = run_one(server.url(), core::ApiKind::kEmbeddings, spec, /*stream=*/false);
  EXPECT_EQ(r.error, core::ErrorClass::kMalformed);
  EXPECT_EQ(r.error_message, "the reply carried 3 embeddings for 4 inputs");
}

}  // namespace
}  // namespace tokenbench::client
