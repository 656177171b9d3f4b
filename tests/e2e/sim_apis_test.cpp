// The real `tokenbench serve-sim` binary with the flags of its further APIs (--reasoning-tokens,
// --embedding-dim, --api-key with x-api-key), driven with raw HTTP.

#include <gtest/gtest.h>

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "../sim/sim_test_client.h"
#include "process.h"

namespace tokenbench::e2e {
namespace {

using nlohmann::json;

std::uint16_t port_of(const std::string& url) {
  return static_cast<std::uint16_t>(std::stoi(url.substr(url.rfind(':') + 1)));
}

sim::testing::HttpReply post(const std::string& url, std::string_view path, const std::string& body,
                             std::string_view headers = {}) {
  sim::testing::TestConnection conn(port_of(url));
  conn.send_request("POST", path, body, headers);
  return conn.read_reply();
}

TEST(SimApisE2eTest, FlagsReachTheReplies) {
  SimProcess sim({"--ttft-ms", "1", "--itl-ms", "1", "--eos-dist", "none", "--reasoning-tokens",
                  "2", "--embedding-dim", "4", "--api-key", "k"});
  const std::string auth = "Authorization: Bearer k\r\n";

  const auto chat = post(
      sim.url(), "/v1/chat/completions",
      R"({"messages":[{"role":"user","content":"a b c"}],"max_tokens":3,"stream":true,"stream_options":{"include_usage":true}})",
      auth);
  ASSERT_EQ(chat.status, 200) << chat.body;
  ASSERT_EQ(chat.events.size(), 1u + 3 + 1 + 1 + 1);
  EXPECT_TRUE(
      json::parse(chat.events[1].data)["choices"][0]["delta"].contains("reasoning_content"));
  EXPECT_TRUE(
      json::parse(chat.events[2].data)["choices"][0]["delta"].contains("reasoning_content"));
  EXPECT_TRUE(json::parse(chat.events[3].data)["choices"][0]["delta"].contains("content"));
  const json usage = json::parse(chat.events[5].data)["usage"];
  EXPECT_EQ(usage["prompt_tokens"], 3);
  EXPECT_EQ(usage["completion_tokens"], 3);
  EXPECT_EQ(usage["completion_tokens_details"]["reasoning_tokens"], 2);

  const auto embeddings =
      post(sim.url(), "/v1/embeddings", R"({"input":["one two","three four five","six"]})", auth);
  ASSERT_EQ(embeddings.status, 200) << embeddings.body;
  const json e = json::parse(embeddings.body);
  ASSERT_EQ(e["data"].size(), 3u);
  EXPECT_EQ(e["data"][2]["embedding"].size(), 4u);
  EXPECT_EQ(e["usage"]["prompt_tokens"], 6);

  const std::string messages =
      R"({"max_tokens":4,"stream":true,"thinking":{"type":"enabled","budget_tokens":100},"messages":[{"role":"user","content":"hi"}]})";
  EXPECT_EQ(post(sim.url(), "/v1/messages", messages).status, 401);
  const auto stream = post(sim.url(), "/v1/messages", messages, "x-api-key: k\r\n");
  ASSERT_EQ(stream.status, 200) << stream.body;
  // message_start, thinking block (start, 2 deltas, stop), text block (start, 2 deltas, stop),
  // message_delta, message_stop.
  ASSERT_EQ(stream.events.size(), 1u + 4 + 4 + 2);
  EXPECT_TRUE(stream.events[1].data.find("\"type\":\"thinking\"") != std::string::npos);
  EXPECT_TRUE(stream.events.back().data.starts_with("event: message_stop\n"));
}

}  // namespace
}  // namespace tokenbench::e2e
