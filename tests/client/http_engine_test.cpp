// The engine against scripted servers: shapes of vLLM, SGLang, gateways, and broken replies.

#include "tokenbench/client/http_engine.h"

#include <gtest/gtest.h>

#include <array>
#include <mutex>

#include "fake_server.h"
#include "run_engine.h"
#include "test_files.h"

namespace tokenbench::client {
namespace {

using namespace std::chrono_literals;
using testing::Piece;

std::string sse_headers(const std::string& content_type = "text/event-stream") {
  std::string h = "HTTP/1.1 200 OK\r\nConnection: close\r\n";
  if (!content_type.empty()) h += "Content-Type: " + content_type + "\r\n";
  return h + "\r\n";
}

std::string chat_chunk(const std::string& content) {
  return "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"" + content +
         "\"},\"finish_reason\":null}]}\n\n";
}

// Runs `count` requests (one at a time) against `url` and returns their records.
std::vector<core::RequestRecord> run_requests(const std::string& url, std::size_t count,
                                              bool stream = true, double timeout_s = 10,
                                              bool keep_text = false) {
  EngineConfig config;
  config.endpoints = {{url + "/v1/chat/completions", {}}};
  config.stream = stream;
  config.timeout_s = timeout_s;
  config.keep_text = keep_text;
  core::RequestSpec spec = tokenbench::testing::chat_spec();
  spec.input_tokens = 3;
  spec.input_source = core::TokenSource::kDataset;
  return tokenbench::testing::run_engine(std::move(config), count, 0, spec);
}

TEST(HttpEngine, LlamaServerStreamStampsEveryContentChunk) {
  const std::string body = tokenbench::testing::read_fixture("llama-server-chat-usage.sse");
  std::vector<Piece> script{{sse_headers(), 0ms}};
  // Deliver the events 5 ms apart, split mid-event, as a slow server would.
  std::size_t pos = 0;
  while (pos < body.size()) {
    const std::size_t next = body.find("\n\n", pos);
    const std::size_t end = next == std::string::npos ? body.size() : next + 2;
    const std::size_t half = pos + (end - pos) / 2;
    script.push_back({body.substr(pos, half - pos), 0ms});
    script.push_back({body.substr(half, end - half), 5ms});
    pos = end;
  }
  tokenbench::testing::FakeServer server(script);
  const auto records = run_requests(server.url(), 1);
  ASSERT_EQ(records.size(), 1u);
  const auto& r = records[0];
  EXPECT_EQ(r.error, core::ErrorClass::kNone) << r.error_message;
  EXPECT_EQ(r.http_status, 200);
  ASSERT_EQ(r.chunks.size(), 12u);
  EXPECT_EQ(r.output_tokens, 12);
  EXPECT_EQ(r.output_source, core::TokenSource::kUsage);
  EXPECT_EQ(r.prompt_tokens, 33);
  EXPECT_EQ(r.prompt_source, core::TokenSource::kUsage);
  EXPECT_EQ(r.finish_reason, "length");
  EXPECT_EQ(r.first_token, r.chunks.front().t);
  EXPECT_EQ(r.last_token, r.chunks.back().t);
  // The server paused 5 ms after the role chunk and after each content chunk, so the first
  // content came at least 5 ms and the last at least 12 x 5 ms after the send. (Gaps between
  // single chunks are not asserted: a busy test machine may deliver two events in one read.)
  EXPECT_GE(r.first_token - r.sent, 5'000'000);
  EXPECT_GE(r.last_token - r.sent, 60'000'000);
  for (std::size_t i = 1; i < r.chunks.size(); ++i) EXPECT_GE(r.chunks[i].t, r.chunks[i - 1].t);
  EXPECT_GT(r.done, r.last_token);
  EXPECT_LE(r.sent, r.headers);
}

TEST(HttpEngine, GatewayShapeCrlfNoSpaceCommentsAndNoContentType) {
  tokenbench::testing::FakeServer server({
      {sse_headers(""), 0ms},
      {": ping\r\n\r\n", 2ms},
      {"data:{\"choices\":[{\"delta\":{\"role\":\"assistant\"}}]}\r\n\r\n", 2ms},
      {"data:{\"choices\":[{\"delta\":{\"content\":\"a\"}}]}\r\n\r\n", 2ms},
      {"data:{\"choices\":[{\"delta\":{\"content\":\"b\"}}]}\r\n\r\n", 2ms},
      {"data:[DONE]\r\n\r\n", 0ms},
  });
  const auto r = run_requests(server.url(), 1).at(0);
  EXPECT_TRUE(r.ok()) << r.error_message;
  EXPECT_EQ(r.chunks.size(), 2u);
  EXPECT_EQ(r.output_tokens, 2);
  EXPECT_EQ(r.output_source, core::TokenSource::kChunks);  // no usage sent
  EXPECT_EQ(r.prompt_tokens, 3);
  EXPECT_EQ(r.prompt_source, core::TokenSource::kDataset);
}

TEST(HttpEngine, GeneratedTextIsKeptOnlyWhenAsked) {
  tokenbench::testing::FakeServer server({
      {sse_headers(), 0ms},
      {"data: {\"choices\":[{\"delta\":{\"reasoning_content\":\"hm \"}}]}\n\n", 0ms},
      {chat_chunk("Hello") + chat_chunk(", world") + "data: [DONE]\n\n", 0ms},
  });
  EXPECT_EQ(run_requests(server.url(), 1, true, 10, true).at(0).output_text, "hm Hello, world");
  EXPECT_EQ(run_requests(server.url(), 1).at(0).output_text, "");
}

TEST(HttpEngine, SeveralTokensPerChunkAreSplitByUsage) {
  tokenbench::testing::FakeServer server({
      {sse_headers(), 0ms},
      {chat_chunk("ab"), 1ms},
      {chat_chunk("cdef"), 1ms},
      {"data: {\"choices\":[{\"delta\":{},\"finish_reason\":\"stop\"}],"
       "\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":6}}\n\ndata: [DONE]\n\n",
       0ms},
  });
  const auto r = run_requests(server.url(), 1).at(0);
  EXPECT_TRUE(r.ok()) << r.error_message;
  ASSERT_EQ(r.chunks.size(), 2u);
  EXPECT_EQ(r.output_tokens, 6);
  EXPECT_EQ(r.chunks[0].tokens, 2);  // 2 of 6 bytes: 1 + 4 * 2/6 = 2.33
  EXPECT_EQ(r.chunks[1].tokens, 4);
}

TEST(HttpEngine, LastEventWithoutABlankLineStillCounts) {
  tokenbench::testing::FakeServer server({
      {sse_headers(), 0ms},
      {chat_chunk("a") + "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":3,"
                         "\"completion_tokens\":1}}\n\ndata: [DONE]",
       0ms},
  });
  const auto r = run_requests(server.url(), 1).at(0);
  EXPECT_TRUE(r.ok()) << r.error_message;
  EXPECT_EQ(r.output_source, core::TokenSource::kUsage);
  EXPECT_LE(r.done, r.last_token + 50'000'000);  // stamped when the bytes came, not later
}

TEST(HttpEngine, NonStreamedReplyWithoutUsageIsApproximated) {
  const std::string body =
      R"({"choices":[{"message":{"role":"assistant","content":"four words right here"},)"
      R"("finish_reason":"stop"}]})";
  tokenbench::testing::FakeServer server({
      {"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: " +
           std::to_string(body.size()) + "\r\n\r\n" + body,
       0ms},
  });
  const auto r = run_requests(server.url(), 1, /*stream=*/false).at(0);
  EXPECT_TRUE(r.ok()) << r.error_message;
  EXPECT_EQ(r.output_tokens, 4);
  EXPECT_EQ(r.output_source, core::TokenSource::kApproximate);
}

TEST(HttpEngine, StreamIgnoredByTheServerIsMeasuredAsNonStreamed) {
  const std::string body = tokenbench::testing::read_fixture("llama-server-chat-nonstream.json");
  tokenbench::testing::FakeServer server({
      {"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: " +
           std::to_string(body.size()) + "\r\n\r\n" + body,
       0ms},
  });
  const auto r = run_requests(server.url(), 1).at(0);
  EXPECT_TRUE(r.ok()) << r.error_message;
  EXPECT_FALSE(r.streamed);
  EXPECT_EQ(r.first_token, core::kNever);
  EXPECT_EQ(r.output_tokens, 6);
  EXPECT_EQ(r.prompt_tokens, 29);
}

TEST(HttpEngine, CutStreamKeepsTheChunksThatArrived) {
  tokenbench::testing::FakeServer server({
      {"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n",
       0ms},
      {"1e\r\ndata: {\"choices\":[{\"text\"", 0ms},  // a chunk promised, then the socket closes
  });
  auto r = run_requests(server.url(), 1).at(0);
  EXPECT_EQ(r.error, core::ErrorClass::kStreamCut) << r.error_message;

  tokenbench::testing::FakeServer clean_close({
      {sse_headers(), 0ms},
      {chat_chunk("a"), 1ms},
      {chat_chunk("b"), 0ms},  // then close without [DONE] or a finish reason
  });
  r = run_requests(clean_close.url(), 1).at(0);
  EXPECT_EQ(r.error, core::ErrorClass::kStreamCut);
  EXPECT_EQ(r.chunks.size(), 2u);
}

TEST(HttpEngine, HttpErrorsAreClassifiedWithTheServersMessage) {
  const std::string http = tokenbench::testing::read_fixture("llama-server-bad-request.http");
  tokenbench::testing::FakeServer bad_request({{http, 0ms}});
  auto r = run_requests(bad_request.url(), 1).at(0);
  EXPECT_EQ(r.error, core::ErrorClass::kHttp4xx);
  EXPECT_EQ(r.http_status, 400);
  EXPECT_EQ(r.error_message, "HTTP 400: Expected 'messages' to be an array");

  tokenbench::testing::FakeServer unavailable(
      {{"HTTP/1.1 503 Service Unavailable\r\nContent-Length: 21\r\n\r\n{\"detail\":\"overload\"}",
        0ms}});
  r = run_requests(unavailable.url(), 1).at(0);
  EXPECT_EQ(r.error, core::ErrorClass::kHttp5xx);
  EXPECT_EQ(r.error_message, "HTTP 503: overload");
}

TEST(HttpEngine, MalformedAndErrorEventsEndTheRequest) {
  tokenbench::testing::FakeServer malformed({{sse_headers(), 0ms},
                                             {chat_chunk("a"), 0ms},
                                             {"data: {oops\n\n", 0ms},
                                             {chat_chunk("b") + "data: [DONE]\n\n", 0ms}});
  auto r = run_requests(malformed.url(), 1).at(0);
  EXPECT_EQ(r.error, core::ErrorClass::kMalformed);
  EXPECT_EQ(r.chunks.size(), 1u);

  tokenbench::testing::FakeServer error_event(
      {{sse_headers(), 0ms},
       {chat_chunk("a"), 0ms},
       {"data: {\"error\":{\"message\":\"KV cache exhausted\",\"code\":500}}\n\n", 0ms}});
  r = run_requests(error_event.url(), 1).at(0);
  EXPECT_EQ(r.error, core::ErrorClass::kServerError);
  EXPECT_EQ(r.error_message, "KV cache exhausted");
}

TEST(HttpEngine, EmptyReplyAndTimeout) {
  tokenbench::testing::FakeServer nothing({{"", 0ms}});
  auto r = run_requests(nothing.url(), 1).at(0);
  EXPECT_EQ(r.error, core::ErrorClass::kStreamCut) << r.error_message;  // "Empty reply"

  tokenbench::testing::FakeServer slow({{sse_headers(), 0ms}, {chat_chunk("a"), 1500ms}});
  r = run_requests(slow.url(), 1, true, 0.3).at(0);
  EXPECT_EQ(r.error, core::ErrorClass::kTimeout) << r.error_message;
  EXPECT_EQ(r.chunks.size(), 1u);
}

TEST(HttpEngine, KeepAliveConnectionIsReusedAcrossRequests) {
  const std::string body = chat_chunk("a") + chat_chunk("b") + "data: [DONE]\n\n";
  tokenbench::testing::FakeServer server(
      {{"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nContent-Length: " +
            std::to_string(body.size()) + "\r\n\r\n" + body,
        0ms}},
      /*keep_alive=*/true);
  const auto records = run_requests(server.url(), 10);
  ASSERT_EQ(records.size(), 10u);
  for (const auto& r : records) EXPECT_TRUE(r.ok()) << r.error_message;
  EXPECT_EQ(server.requests(), 10);
  EXPECT_EQ(server.connections(), 1);
}

TEST(HttpEngine, UnreachableServerIsAConnectError) {
  const auto r = run_requests("http://127.0.0.1:1", 2);
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].error, core::ErrorClass::kConnect);
  EXPECT_FALSE(r[0].error_message.empty());
}

// Runs `count` requests at concurrency 2 over two endpoints routed as `routing`; returns how many
// each endpoint served according to the records.
std::array<int, 2> route_requests(const std::string& a, const std::string& b, Routing routing,
                                  std::size_t count) {
  core::RunClock clock;
  EngineConfig config;
  config.endpoints = {{a + "/v1/chat/completions", {}}, {b + "/v1/chat/completions", {}}};
  config.routing = routing;
  config.max_concurrency = 2;
  HttpEngine engine(config, clock);
  std::vector<core::RequestSpec> specs(2);
  specs[1].target = 1;
  std::vector<std::string> bodies(2, R"({"messages":[{"role":"user","content":"hi"}]})");
  ImmediateSource source(specs, bodies, count, clock.now());
  std::mutex m;
  std::array<int, 2> served{0, 0};
  engine.run_phase(source, count, [&](core::RequestRecord&& r) {
    std::lock_guard<std::mutex> lock(m);
    EXPECT_TRUE(r.ok()) << r.error_message;
    ++served.at(r.endpoint);
  });
  return served;
}

TEST(HttpEngine, RoutesByTargetRoundRobinAndLeastInflight) {
  const std::string body = chat_chunk("a") + "data: [DONE]\n\n";
  tokenbench::testing::FakeServer fast({{sse_headers() + body, 0ms}});
  // The slow replica answers after 150 ms; it serves one connection at a time.
  tokenbench::testing::FakeServer slow({{sse_headers(), 150ms}, {body, 0ms}});
  // By target: spec i % 2 names the endpoint, so the two alternate exactly.
  auto served = route_requests(slow.url(), fast.url(), Routing::kBySpec, 10);
  EXPECT_EQ(served[0], 5);
  EXPECT_EQ(served[1], 5);
  served = route_requests(slow.url(), fast.url(), Routing::kRoundRobin, 10);
  EXPECT_EQ(served[0], 5);
  EXPECT_EQ(served[1], 5);
  // Least in flight: while the slow replica holds its request, every freed slot goes to the fast
  // one, so the slow one serves only the requests sent while it was idle.
  served = route_requests(slow.url(), fast.url(), Routing::kLeastInflight, 10);
  EXPECT_EQ(served[0] + served[1], 10);
  EXPECT_LE(served[0], 3);
  EXPECT_GE(served[1], 7);
  EXPECT_EQ(slow.requests() + fast.requests(), 30);
}

}  // namespace
}  // namespace tokenbench::client
