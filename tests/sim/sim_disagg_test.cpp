// A disaggregated prefill/decode pair (--role prefill|decode, --prefill-url, --kv-transfer-ms):
// the prefill worker's one-token replies, the decode worker's call to it, the transfer's time in
// the client's TTFT, each worker's /metrics, and a failed prefill call.

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

#include "prometheus_text.h"
#include "sim_test_client.h"
#include "tokenbench/sim/engine_params.h"
#include "tokenbench/sim/prefill_client.h"

namespace tokenbench::sim {
namespace {

using nlohmann::json;
using std::chrono::milliseconds;
using testing::HttpReply;
using testing::TestConnection;

TEST(SimDisaggTest, ParsesThePrefillUrl) {
  const PrefillTarget t = parse_prefill_url("http://127.0.0.1:8100");
  EXPECT_EQ(t.host, "127.0.0.1");
  EXPECT_EQ(t.port, "8100");
  EXPECT_EQ(t.prefix, "");
  const PrefillTarget p = parse_prefill_url("http://[::1]/base/");
  EXPECT_EQ(p.host, "::1");
  EXPECT_EQ(p.port, "80");
  EXPECT_EQ(p.prefix, "/base");
  for (const char* bad : {"https://h:1", "h:1", "http://:1", "http://h:x", "http://[::1"}) {
    EXPECT_THROW(parse_prefill_url(bad), std::invalid_argument) << bad;
  }
}

TEST(SimDisaggTest, PrefillBodyAsksForOneTokenUnstreamed) {
  const json j = json::parse(prefill_body(
      R"({"prompt":"a","max_tokens":50,"stream":true,"stream_options":{"include_usage":true}})"));
  EXPECT_EQ(j["max_tokens"], 1);
  EXPECT_EQ(j["stream"], false);
  EXPECT_FALSE(j.contains("stream_options"));
  EXPECT_EQ(j["prompt"], "a");
  // A client's ignore_eos and min_tokens (tokenbench sends both) must not exceed the one token.
  const json k = json::parse(prefill_body(
      R"({"prompt":"a","max_completion_tokens":50,"min_tokens":50,"ignore_eos":true})"));
  EXPECT_EQ(k["max_completion_tokens"], 1);
  EXPECT_FALSE(k.contains("min_tokens"));
}

SimConfig worker(Role role) {
  SimConfig c;
  c.port = 0;
  c.seed = 4;
  c.mode = TimingMode::kEngine;
  c.engine = *find_engine_preset("zero");
  c.engine.step_overhead_ms = 2;
  c.engine.prefill_us_per_token = 1000;  // 1 ms per prompt token
  c.engine.kv_cache_tokens = 1 << 20;
  c.role = role;
  return c;
}

testing::PromText scrape(std::uint16_t port) {
  TestConnection conn(port);
  conn.send_request("GET", "/metrics");
  return testing::parse_prom_text(conn.read_reply().body);
}

const std::string kLabels = "{model_name=\"sim-model\"}";

TEST(SimDisaggTest, PrefillWorkerAnswersOneToken) {
  auto server = testing::start_server(worker(Role::kPrefill));
  TestConnection conn(server->port());
  conn.send_request("POST", "/v1/completions",
                    R"({"prompt":"a b c","max_tokens":40,"ignore_eos":true})");
  const json j = json::parse(conn.read_reply().body);
  EXPECT_EQ(j["usage"]["completion_tokens"], 1);
  EXPECT_EQ(j["usage"]["prompt_tokens"], 3);
  EXPECT_EQ(j["choices"][0]["finish_reason"], "length");
}

TEST(SimDisaggTest, DecodeWorkerPrefillsRemotelyThenStreams) {
  auto prefill = testing::start_server(worker(Role::kPrefill));
  SimConfig d = worker(Role::kDecode);
  d.prefill_url = "http://127.0.0.1:" + std::to_string(prefill->port());
  d.kv_transfer_ms = 100;
  auto decode = testing::start_server(d);

  TestConnection conn(decode->port());
  const auto sent = testing::TestClock::now();
  conn.send_request(
      "POST", "/v1/chat/completions",
      R"({"messages":[{"role":"user","content":"one two three four five six seven eight"}],)"
      R"("max_tokens":6,"ignore_eos":true,"stream":true,"stream_options":{"include_usage":true}})");
  const HttpReply reply = conn.read_reply();
  ASSERT_EQ(reply.status, 200);
  ASSERT_TRUE(reply.complete);
  // role chunk, 6 tokens, finish, usage, [DONE]
  ASSERT_EQ(reply.events.size(), 1u + 6u + 3u);
  const json usage = json::parse(reply.events[8].data)["usage"];
  EXPECT_EQ(usage["prompt_tokens"], 8);
  EXPECT_EQ(usage["completion_tokens"], 6);
  // The prefill worker's step (2 ms + 8 ms of prompt) and the transfer come before any token.
  EXPECT_GE(reply.events[1].at - sent, milliseconds(100 + 10));

  const auto p = scrape(prefill->port());
  EXPECT_EQ(p.at("vllm:prompt_tokens_total" + kLabels), 8);
  EXPECT_EQ(p.at("vllm:generation_tokens_total" + kLabels), 1);
  EXPECT_EQ(p.at("tokenbench_sim:requests_total{model_name=\"sim-model\",api=\"chat\"}"), 1);
  const auto q = scrape(decode->port());
  EXPECT_EQ(q.at("vllm:generation_tokens_total" + kLabels), 6);
  EXPECT_EQ(q.at("vllm:prompt_tokens_total" + kLabels), 0);  // no prefill work here
  // The decode engine's own TTFT: one step computing the last prompt token, not the prompt.
  EXPECT_LT(q.at("vllm:time_to_first_token_seconds_sum" + kLabels), 0.009);
}

TEST(SimDisaggTest, FailedPrefillIs502NamingTheUrl) {
  std::uint16_t dead_port = 0;
  {
    // A port that was free a moment ago: nothing listens there now.
    auto gone = testing::start_server(worker(Role::kPrefill));
    dead_port = gone->port();
  }
  SimConfig d = worker(Role::kDecode);
  d.prefill_url = "http://127.0.0.1:" + std::to_string(dead_port);
  auto decode = testing::start_server(d);
  TestConnection conn(decode->port());
  conn.send_request("POST", "/v1/completions", R"({"prompt":"a b","max_tokens":3})");
  const HttpReply reply = conn.read_reply();
  EXPECT_EQ(reply.status, 502);
  const json j = json::parse(reply.body);
  EXPECT_NE(j["error"]["message"].get<std::string>().find(d.prefill_url), std::string::npos);
  // Not a text generation: embeddings stay local.
  conn.send_request("POST", "/v1/embeddings", R"({"input":"a b"})");
  EXPECT_EQ(conn.read_reply().status, 200);
}

}  // namespace
}  // namespace tokenbench::sim
