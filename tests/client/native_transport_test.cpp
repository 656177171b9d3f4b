// The native HTTP/1.1 transport inside the engine: which stamps a record carries, connections
// opened ahead of the requests, and a connection per request.

#include <gtest/gtest.h>

#include "fake_server.h"
#include "run_engine.h"
#include "tokenbench/client/http_engine.h"

namespace tokenbench::client {
namespace {

using namespace std::chrono_literals;
using testing::Piece;

const std::string kChunk = "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"a\"}}]}\n\n";

// A keep-alive reply of `tokens` chunks written 5 ms apart, framed by chunked encoding.
std::vector<Piece> paced_reply(int tokens) {
  std::vector<Piece> script;
  script.push_back(
      {"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
       "Transfer-Encoding: chunked\r\n\r\n",
       0ms});
  char size[16];
  std::snprintf(size, sizeof size, "%zx\r\n", kChunk.size());
  for (int i = 0; i < tokens; ++i) script.push_back({size + kChunk + "\r\n", 5ms});
  const std::string done = "data: [DONE]\n\n";
  std::snprintf(size, sizeof size, "%zx\r\n", done.size());
  script.push_back({size + done + "\r\n0\r\n\r\n", 0ms});
  return script;
}

std::vector<core::RequestRecord> run(EngineConfig config, std::size_t count,
                                     std::size_t preopen = 0) {
  config.timeout_s = 10;
  return tokenbench::testing::run_engine(std::move(config), count, preopen);
}

EngineConfig config_for(const std::string& url) {
  EngineConfig config;
  config.endpoints = {{url + "/v1/chat/completions", {}}};
  return config;
}

TEST(NativeTransport, RecordsCarryKernelStampsInOrder) {
  tokenbench::testing::FakeServer server(paced_reply(4), /*keep_alive=*/true);
  const auto records = run(config_for(server.url()), 2);
  ASSERT_EQ(records.size(), 2u);
  for (const auto& r : records) {
    ASSERT_TRUE(r.ok()) << r.error_message;
    EXPECT_EQ(r.stamps, core::StampSource::kKernel);
    ASSERT_EQ(r.chunks.size(), 4u);
    EXPECT_LE(r.sent, r.headers);
    EXPECT_LE(r.headers, r.first_token);
    for (std::size_t i = 1; i < r.chunks.size(); ++i) EXPECT_LE(r.chunks[i - 1].t, r.chunks[i].t);
    // The server's 5 ms pacing shows in the stamps. Not asserted gap by gap: a client held off
    // its core for a gap reads two chunks at once, and both carry the newer one's stamp.
    EXPECT_GT(r.chunks.back().t - r.chunks.front().t, 3'000'000);
    EXPECT_LE(r.last_token, r.done);
    EXPECT_EQ(r.connected, core::kNever);
  }
  EXPECT_EQ(server.connections(), 1);  // kept alive
}

TEST(NativeTransport, UserStampsWhenAskedAndThroughLibcurl) {
  tokenbench::testing::FakeServer server(paced_reply(2), /*keep_alive=*/true);
  EngineConfig user = config_for(server.url());
  user.kernel_stamps = false;
  auto records = run(user, 1);
  ASSERT_TRUE(records.at(0).ok()) << records[0].error_message;
  EXPECT_EQ(records[0].stamps, core::StampSource::kUser);

  EngineConfig curl = config_for(server.url());
  curl.native_transport = false;
  records = run(curl, 1);
  ASSERT_TRUE(records.at(0).ok()) << records[0].error_message;
  EXPECT_EQ(records[0].stamps, core::StampSource::kUser);
  EXPECT_EQ(records[0].chunks.size(), 2u);
}

TEST(NativeTransport, ConnectionsOpenedAheadCarryTheRequests) {
  tokenbench::testing::FakeServer server(paced_reply(2), /*keep_alive=*/true);
  const auto records = run(config_for(server.url()), 3, /*preopen=*/3);
  ASSERT_EQ(records.size(), 3u);
  for (const auto& r : records) EXPECT_TRUE(r.ok()) << r.error_message;
  EXPECT_EQ(server.connections(), 1);
  EXPECT_EQ(server.requests(), 3);
}

TEST(NativeTransport, PerRequestConnectionsStampTheirSetUp) {
  tokenbench::testing::FakeServer server(paced_reply(2), /*keep_alive=*/true);
  EngineConfig config = config_for(server.url());
  config.per_request_connections = true;
  const auto records = run(config, 3);
  ASSERT_EQ(records.size(), 3u);
  for (const auto& r : records) {
    ASSERT_TRUE(r.ok()) << r.error_message;
    ASSERT_NE(r.connected, core::kNever);
    EXPECT_GE(r.connected, r.sent);
    EXPECT_LE(r.connected, r.headers);
  }
  EXPECT_EQ(server.connections(), 3);
}

TEST(NativeTransport, PerRequestConnectionsThroughLibcurlToo) {
  tokenbench::testing::FakeServer server(paced_reply(2), /*keep_alive=*/true);
  EngineConfig config = config_for(server.url());
  config.per_request_connections = true;
  config.native_transport = false;
  const auto records = run(config, 2);
  ASSERT_EQ(records.size(), 2u);
  for (const auto& r : records) {
    ASSERT_TRUE(r.ok()) << r.error_message;
    EXPECT_NE(r.connected, core::kNever);
  }
  EXPECT_EQ(server.connections(), 2);
}

}  // namespace
}  // namespace tokenbench::client
