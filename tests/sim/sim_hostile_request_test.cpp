// Requests a hostile or careless client sends to the simulator: a body far larger than any prompt
// the server accepts (refused with 413 before it is read, without stalling other streams) and
// bodies in a transfer or content coding the server cannot undo (501 / 415).

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>

#include "sim_test_client.h"
#include "tokenbench/sim/openai_request.h"
#include "tokenbench/sim/sim_server.h"

namespace tokenbench::sim {
namespace {

using testing::start_server;

using nlohmann::json;
using testing::fixed_config;
using testing::HttpReply;
using testing::TestClock;
using testing::TestConnection;

std::string chat_body(int max_tokens, bool stream) {
  return R"({"messages":[{"role":"user","content":"one two three four"}],"max_tokens":)" +
         std::to_string(max_tokens) + R"(,"ignore_eos":true,"stream":)" +
         (stream ? "true" : "false") + "}";
}

std::string error_message(const HttpReply& reply) {
  const json body = json::parse(reply.body, nullptr, /*allow_exceptions=*/false);
  if (!body.is_object() || !body.contains("error")) return "(no error object) " + reply.body;
  return body["error"].value("message", "");
}

// Sends `bytes` from another thread, ignoring a failure (the server may stop reading).
std::thread send_in_background(TestConnection& conn, const std::string& bytes) {
  return std::thread([&conn, &bytes] {
    try {
      conn.send_raw(bytes);
    } catch (const std::exception&) {
    }
  });
}

TEST(SimHostileRequestTest, BodyLimitFollowsTheMaxModelLen) {
  EXPECT_EQ(request_body_limit(131072), 131072 * kBodyBytesPerToken + kBodySlack);
  EXPECT_EQ(request_body_limit(0), kBodySlack);
  EXPECT_EQ(request_body_limit(1ll << 40), kBodyLimitCap);
  EXPECT_LE(request_body_limit(131072), kBodyLimitCap);
}

// The issue's request: 30M token ids, 60 MB, to a server whose prompts cannot exceed 131072 tokens.
// It is refused from its header, and a stream on the same (only) I/O thread goes on meanwhile.
TEST(SimHostileRequestTest, HugeBodyGets413WithoutStallingOtherStreams) {
  const auto server = start_server(fixed_config(1, 10));
  TestConnection stream(server->port());
  stream.send_request("POST", "/v1/chat/completions", chat_body(60, true));

  std::string huge = R"({"model":"sim-model","max_tokens":1,"prompt":[)";
  constexpr int kIds = 30'000'000;
  huge.reserve(huge.size() + 2 * kIds + 2);
  for (int i = 0; i < kIds; ++i) huge += i == 0 ? "1" : ",1";
  huge += "]}";
  TestConnection big(server->port(), /*timeout_s=*/30);
  big.send_raw(
      "POST /v1/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: "
      "application/json\r\nContent-Length: " +
      std::to_string(huge.size()) + "\r\n\r\n");
  std::thread sender = send_in_background(big, huge);
  const HttpReply refused = big.read_reply();
  EXPECT_EQ(refused.status, 413);
  const std::string message = error_message(refused);
  EXPECT_NE(message.find(std::to_string(request_body_limit(131072))), std::string::npos) << message;
  EXPECT_NE(message.find("131072"), std::string::npos) << message;
  EXPECT_EQ(refused.header("connection"), "close");
  EXPECT_TRUE(big.server_closed());
  sender.join();

  const HttpReply streamed = stream.read_reply();
  ASSERT_EQ(streamed.status, 200);
  EXPECT_TRUE(streamed.complete);
  ASSERT_FALSE(streamed.events.empty());
  EXPECT_EQ(streamed.events.back().data, "[DONE]");
  // Tokens are 10 ms apart; a parse of the huge body on the I/O thread took seconds.
  auto longest_gap = TestClock::duration::zero();
  for (std::size_t i = 1; i < streamed.events.size(); ++i) {
    longest_gap = std::max(longest_gap, streamed.events[i].at - streamed.events[i - 1].at);
  }
  EXPECT_LT(longest_gap, std::chrono::seconds(2));

  TestConnection after(server->port());
  after.send_request("POST", "/v1/chat/completions", chat_body(2, false));
  EXPECT_EQ(after.read_reply().status, 200);
}

TEST(SimHostileRequestTest, SmallerMaxModelLenLowersTheBodyLimit) {
  SimConfig config = fixed_config(0, 0);
  config.max_model_len = 1000;
  const auto server = start_server(config);
  const std::uint64_t limit = request_body_limit(1000);
  // One long word is one token: a body just under the limit is read and served.
  const auto prompt_body = [](std::size_t word_bytes) {
    return R"({"max_tokens":1,"prompt":")" + std::string(word_bytes, 'a') + "\"}";
  };
  {
    TestConnection conn(server->port());
    conn.send_request("POST", "/v1/completions", prompt_body(limit - 100));
    EXPECT_EQ(conn.read_reply().status, 200);
  }
  {
    TestConnection conn(server->port());
    const std::string body = prompt_body(limit + 10);
    conn.send_request("POST", "/v1/completions", body);
    const HttpReply reply = conn.read_reply();
    EXPECT_EQ(reply.status, 413);
    EXPECT_NE(error_message(reply).find(std::to_string(body.size()) + " bytes"), std::string::npos)
        << error_message(reply);
    EXPECT_NE(error_message(reply).find(std::to_string(limit)), std::string::npos);
  }
  {  // chunked: the size is unknown up front; the limit applies as the chunks arrive
    TestConnection conn(server->port());
    const std::string body = prompt_body(limit + 10);
    std::string req =
        "POST /v1/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n";
    for (std::size_t pos = 0; pos < body.size(); pos += 65536) {
      const std::string part = body.substr(pos, 65536);
      char size[32];
      std::snprintf(size, sizeof size, "%zx\r\n", part.size());
      req += size + part + "\r\n";
    }
    req += "0\r\n\r\n";
    std::thread sender = send_in_background(conn, req);
    const HttpReply reply = conn.read_reply();
    sender.join();
    EXPECT_EQ(reply.status, 413);
    EXPECT_NE(error_message(reply).find(std::to_string(limit)), std::string::npos);
  }
}

struct CodingCase {
  std::string headers;  ///< extra header lines
  bool chunked;         ///< the body is sent chunked
  int status;
  const char* named;  ///< what the error message names
};

// Raw requests whose body the server cannot decode are refused before the body is read, and the
// connection is closed (the body's framing cannot be trusted); an identity coding is served.
TEST(SimHostileRequestTest, UnsupportedCodingsAreRefused) {
  const auto server = start_server(fixed_config(0, 0));
  const std::string body = chat_body(2, false);
  const CodingCase cases[] = {
      {"Transfer-Encoding: gzip, chunked\r\n", true, 501, "gzip"},
      {"Transfer-Encoding: gzip\r\n", false, 501, "gzip"},
      {"Transfer-Encoding: deflate\r\nTransfer-Encoding: chunked\r\n", true, 501, "deflate"},
      {"Transfer-Encoding: chunked\r\nContent-Encoding: gzip\r\n", true, 415, "gzip"},
      {"Content-Encoding: br\r\nContent-Length: " + std::to_string(body.size()) + "\r\n", false,
       415, "br"},
      {"Transfer-Encoding: identity, chunked\r\nContent-Encoding: identity\r\n", true, 200, ""},
  };
  for (const CodingCase& c : cases) {
    SCOPED_TRACE(c.headers);
    TestConnection conn(server->port());
    std::string req = "POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\n";
    req += c.headers;
    req += "\r\n";
    if (c.chunked) {
      char size[32];
      std::snprintf(size, sizeof size, "%zx\r\n", body.size());
      req += size + body + "\r\n0\r\n\r\n";
    } else {
      req += body;
    }
    conn.send_raw(req);
    const HttpReply reply = conn.read_reply();
    EXPECT_EQ(reply.status, c.status) << reply.body;
    if (c.status == 200) continue;
    EXPECT_NE(error_message(reply).find(std::string("'") + c.named + "'"), std::string::npos)
        << error_message(reply);
    EXPECT_EQ(json::parse(reply.body)["error"]["code"], c.status);
    EXPECT_TRUE(conn.server_closed());
  }
}

}  // namespace
}  // namespace tokenbench::sim
