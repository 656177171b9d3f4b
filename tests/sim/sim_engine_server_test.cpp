// The server in engine mode: streams timed by the engine model, queueing between requests,
// resources freed by faults and disconnects, and /metrics against what was served.

#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "prometheus_text.h"
#include "sim_test_client.h"
#include "tokenbench/sim/engine_params.h"
#include "tokenbench/sim/sim_server.h"

namespace tokenbench::sim {
namespace {

using testing::start_server;

using nlohmann::json;
using std::chrono::milliseconds;
using testing::HttpReply;
using testing::PromText;
using testing::TestClock;
using testing::TestConnection;

SimConfig engine_config(const EngineParams& params) {
  SimConfig c;
  c.port = 0;
  c.seed = 5;
  c.mode = TimingMode::kEngine;
  c.engine = params;
  return c;
}

// Every step costs exactly `step_ms`, whatever it holds.
EngineParams flat_steps(double step_ms) {
  EngineParams p = *find_engine_preset("zero");
  p.step_overhead_ms = step_ms;
  p.kv_cache_tokens = 1 << 20;
  return p;
}

std::string chat_body(int max_tokens, bool stream, bool ignore_eos = true) {
  return R"({"messages":[{"role":"user","content":"one two three four"}],"max_tokens":)" +
         std::to_string(max_tokens) + R"(,"ignore_eos":)" + (ignore_eos ? "true" : "false") +
         R"(,"stream":)" + (stream ? "true" : "false") +
         R"(,"stream_options":{"include_usage":true}})";
}

PromText scrape(std::uint16_t port) {
  TestConnection conn(port);
  conn.send_request("GET", "/metrics");
  const HttpReply reply = conn.read_reply();
  EXPECT_EQ(reply.status, 200);
  EXPECT_EQ(reply.header("content-type"), "text/plain; version=0.0.4; charset=utf-8");
  return testing::parse_prom_text(reply.body);
}

std::string series(const std::string& name, const std::string& extra = {}) {
  return name + "{model_name=\"sim-model\"" + extra + "}";
}

// Polls /metrics until `series` has `value` (or gives up after 3 s).
bool wait_for_metric(std::uint16_t port, const std::string& s, double value) {
  const auto deadline = TestClock::now() + std::chrono::seconds(3);
  while (TestClock::now() < deadline) {
    if (scrape(port).at(s) == value) return true;
    std::this_thread::sleep_for(milliseconds(10));
  }
  return false;
}

TEST(SimEngineServerTest, StreamShapeIsUnchanged) {
  auto server = start_server(engine_config(*find_engine_preset("zero")));
  TestConnection conn(server->port());
  conn.send_request("POST", "/v1/chat/completions", chat_body(5, true));
  const HttpReply reply = conn.read_reply();
  ASSERT_EQ(reply.status, 200);
  EXPECT_TRUE(reply.complete);
  ASSERT_EQ(reply.events.size(), 1u + 5u + 1u + 1u + 1u);
  EXPECT_EQ(json::parse(reply.events[6].data)["choices"][0]["finish_reason"], "length");
  EXPECT_EQ(json::parse(reply.events[7].data)["usage"]["completion_tokens"], 5);
  EXPECT_EQ(reply.events[8].data, "[DONE]");
  // Keep-alive goes on; a non-streaming request on the same connection.
  conn.send_request("POST", "/v1/chat/completions", chat_body(4, false));
  const HttpReply whole = conn.read_reply();
  EXPECT_EQ(json::parse(whole.body)["usage"]["completion_tokens"], 4);
}

TEST(SimEngineServerTest, TokensLeaveAtStepEnds) {
  auto server = start_server(engine_config(flat_steps(20)));
  TestConnection conn(server->port());
  const auto sent = TestClock::now();
  conn.send_request("POST", "/v1/chat/completions", chat_body(5, true));
  const HttpReply reply = conn.read_reply();
  ASSERT_EQ(reply.events.size(), 9u);
  // Step 1 prefills and emits token 1 at 20 ms; each later step emits one more: token k cannot
  // arrive before k steps (a late read only delays a stamp, so these bounds hold on a busy
  // machine too).
  for (int k = 1; k <= 5; ++k) {
    EXPECT_GE(reply.events[k].at - sent, milliseconds(20 * k)) << "token " << k;
  }
  EXPECT_LT(reply.events[5].at - sent, milliseconds(1000));
  // Not a burst: tokens are a step apart. One late read can merge two arrivals, so the widest
  // gap is checked rather than the span from the first token (which a late first read shrinks).
  auto widest = reply.events[2].at - reply.events[1].at;
  for (int k = 3; k <= 5; ++k)
    widest = std::max(widest, reply.events[k].at - reply.events[k - 1].at);
  EXPECT_GE(widest, milliseconds(20 - 2));
}

TEST(SimEngineServerTest, TimeScaleRunsTheModelFaster) {
  SimConfig config = engine_config(flat_steps(100));
  config.time_scale = 10;
  auto server = start_server(config);
  TestConnection conn(server->port());
  const auto sent = TestClock::now();
  conn.send_request("POST", "/v1/chat/completions", chat_body(5, false));
  const HttpReply reply = conn.read_reply();
  EXPECT_EQ(reply.status, 200);
  // 5 steps of 100 ms model time are 50 ms of real time.
  EXPECT_GE(reply.headers_at - sent, milliseconds(50 - 2));
  EXPECT_LT(reply.headers_at - sent, milliseconds(400));
}

TEST(SimEngineServerTest, FullBatchQueuesTheNextRequest) {
  EngineParams p = flat_steps(10);
  p.max_num_seqs = 1;
  auto server = start_server(engine_config(p));
  TestConnection a(server->port()), b(server->port());
  a.send_request("POST", "/v1/chat/completions", chat_body(10, true));
  std::this_thread::sleep_for(milliseconds(5));
  b.send_request("POST", "/v1/chat/completions", chat_body(2, true));
  const HttpReply first = a.read_reply();
  const HttpReply second = b.read_reply();
  ASSERT_EQ(first.events.size(), 14u);
  ASSERT_EQ(second.events.size(), 6u);
  // The second request waits in the queue until the first has finished.
  EXPECT_GE(second.events[1].at, first.events[10].at);
}

TEST(SimEngineServerTest, RejectsSequencesLongerThanTheCache) {
  EngineParams p = flat_steps(1);
  p.kv_cache_tokens = 64;
  auto server = start_server(engine_config(p));
  TestConnection conn(server->port());
  conn.send_request("POST", "/v1/chat/completions", chat_body(100, true));
  const HttpReply reply = conn.read_reply();
  EXPECT_EQ(reply.status, 400);
  EXPECT_NE(reply.body.find("maximum context length is 64 tokens"), std::string::npos);
}

TEST(SimEngineServerTest, LimitIsTheWholeBlocksOfTheCache) {
  // 100 tokens in blocks of 16 hold 96: a 4-token prompt asking for 93 more could never be
  // readmitted after preempting itself, so it is refused up front; 92 fits and completes.
  EngineParams p = flat_steps(1);
  p.kv_cache_tokens = 100;
  p.block_size = 16;
  auto server = start_server(engine_config(p));
  TestConnection conn(server->port());
  conn.send_request("POST", "/v1/chat/completions", chat_body(93, false));
  HttpReply reply = conn.read_reply();
  EXPECT_EQ(reply.status, 400);
  EXPECT_NE(reply.body.find("maximum context length is 96 tokens"), std::string::npos);
  conn.send_request("POST", "/v1/chat/completions", chat_body(92, false));
  reply = conn.read_reply();
  EXPECT_EQ(reply.status, 200);
  // A max_tokens near INT64_MAX must not overflow the check.
  conn.send_request(
      "POST", "/v1/chat/completions",
      R"({"messages":[{"role":"user","content":"x"}],"max_tokens":9223372036854775000})");
  EXPECT_EQ(conn.read_reply().status, 400);
}

TEST(SimEngineServerTest, ApiKeyAndUnknownModel) {
  SimConfig config = engine_config(*find_engine_preset("zero"));
  config.api_key = "k";
  auto server = start_server(config);
  TestConnection conn(server->port());
  conn.send_request("POST", "/v1/chat/completions", chat_body(2, true));
  EXPECT_EQ(conn.read_reply().status, 401);
  conn.send_request("POST", "/v1/completions", R"({"model":"other","prompt":"x"})",
                    "Authorization: Bearer k\r\n");
  EXPECT_EQ(conn.read_reply().status, 404);
  conn.send_request("GET", "/metrics");  // open, as vLLM's
  EXPECT_EQ(conn.read_reply().status, 200);
}

TEST(SimEngineServerTest, StreamCutFreesEngineResources) {
  SimConfig config = engine_config(flat_steps(5));
  config.faults.push_back(parse_fault_rule("stream_cut:1"));
  auto server = start_server(config);
  TestConnection conn(server->port());
  conn.send_request("POST", "/v1/chat/completions", chat_body(200, true));
  const HttpReply reply = conn.read_reply();
  EXPECT_TRUE(reply.closed);
  EXPECT_FALSE(reply.complete);
  // Cut after 100 of 200 tokens: the engine drops the request long before it would finish.
  EXPECT_TRUE(wait_for_metric(server->port(), series("vllm:num_requests_running"), 0));
  const PromText m = scrape(server->port());
  EXPECT_EQ(m.at(series("vllm:request_success_total", ",finished_reason=\"abort\"")), 1);
  EXPECT_EQ(m.at(series("vllm:kv_cache_usage_perc")), 0);
  EXPECT_LT(m.at(series("vllm:generation_tokens_total")), 200);
}

TEST(SimEngineServerTest, ClientDisconnectFreesEngineResources) {
  auto server = start_server(engine_config(flat_steps(50)));
  {
    TestConnection conn(server->port());
    conn.send_request("POST", "/v1/chat/completions", chat_body(1000, true));
    std::this_thread::sleep_for(milliseconds(60));
    EXPECT_EQ(scrape(server->port()).at(series("vllm:num_requests_running")), 1);
  }  // closes the socket mid-stream
  EXPECT_TRUE(wait_for_metric(server->port(), series("vllm:num_requests_running"), 0));
  EXPECT_EQ(
      scrape(server->port()).at(series("vllm:request_success_total", ",finished_reason=\"abort\"")),
      1);
}

// Every metric the issue names, with vLLM's type, and histograms that are consistent.
void expect_vllm_families(const PromText& m) {
  for (const char* gauge : {"vllm:num_requests_running", "vllm:num_requests_waiting",
                            "vllm:kv_cache_usage_perc", "vllm:gpu_cache_usage_perc"}) {
    EXPECT_EQ(m.types.at(gauge), "gauge") << gauge;
  }
  for (const char* counter : {"vllm:num_preemptions_total", "vllm:prompt_tokens_total",
                              "vllm:generation_tokens_total", "vllm:request_success_total"}) {
    EXPECT_EQ(m.types.at(counter), "counter") << counter;
  }
  for (const std::string h :
       {"vllm:time_to_first_token_seconds", "vllm:inter_token_latency_seconds",
        "vllm:time_per_output_token_seconds", "vllm:e2e_request_latency_seconds",
        "vllm:request_queue_time_seconds", "vllm:request_prefill_time_seconds",
        "vllm:request_decode_time_seconds"}) {
    ASSERT_EQ(m.types.at(h), "histogram") << h;
    EXPECT_FALSE(m.help.at(h).empty());
    EXPECT_EQ(m.at(series(h + "_bucket", ",le=\"+Inf\"")), m.at(series(h + "_count")));
    // Cumulative buckets never exceed the +Inf bucket.
    for (const auto& [key, value] : m.samples) {
      if (key.rfind(h + "_bucket", 0) != 0) continue;
      EXPECT_LE(value, m.at(series(h + "_bucket", ",le=\"+Inf\"")));
    }
  }
  // vLLM's bucket bounds, written as prometheus_client writes them.
  EXPECT_EQ(m.samples.count(series("vllm:time_to_first_token_seconds_bucket", ",le=\"0.001\"")),
            1u);
  EXPECT_EQ(m.samples.count(series("vllm:e2e_request_latency_seconds_bucket", ",le=\"7680.0\"")),
            1u);
}

// Serves a mix of requests and checks every counter against the usage the client saw.
void expect_counters_match(std::uint16_t port) {
  std::int64_t prompt = 0, generated = 0, stops = 0, lengths = 0, requests = 0;
  TestConnection conn(port);
  for (int i = 0; i < 12; ++i) {
    const bool stream = i % 2 == 0;
    conn.send_request("POST", "/v1/chat/completions", chat_body(6 + i, stream, i % 3 != 0));
    const HttpReply reply = conn.read_reply();
    ASSERT_EQ(reply.status, 200);
    const json usage = stream ? json::parse(reply.events[reply.events.size() - 2].data)["usage"]
                              : json::parse(reply.body)["usage"];
    const std::string finish =
        stream
            ? json::parse(reply.events[reply.events.size() - 3].data)["choices"][0]["finish_reason"]
            : json::parse(reply.body)["choices"][0]["finish_reason"];
    prompt += usage["prompt_tokens"].get<std::int64_t>();
    generated += usage["completion_tokens"].get<std::int64_t>();
    (finish == "stop" ? stops : lengths)++;
    ++requests;
  }
  ASSERT_TRUE(wait_for_metric(port, series("vllm:num_requests_running"), 0));
  const PromText m = scrape(port);
  expect_vllm_families(m);
  EXPECT_EQ(m.at(series("vllm:prompt_tokens_total")), prompt);
  EXPECT_EQ(m.at(series("vllm:generation_tokens_total")), generated);
  EXPECT_EQ(m.at(series("vllm:request_success_total", ",finished_reason=\"stop\"")), stops);
  EXPECT_EQ(m.at(series("vllm:request_success_total", ",finished_reason=\"length\"")), lengths);
  EXPECT_GT(stops, 0);
  EXPECT_EQ(m.at(series("vllm:time_to_first_token_seconds_count")), requests);
  EXPECT_EQ(m.at(series("vllm:e2e_request_latency_seconds_count")), requests);
  EXPECT_EQ(m.at(series("vllm:request_decode_time_seconds_count")), requests);
  EXPECT_EQ(m.at(series("vllm:inter_token_latency_seconds_count")), generated - requests);
  EXPECT_EQ(m.at(series("vllm:time_per_output_token_seconds_count")), generated - requests);
  EXPECT_EQ(m.at(series("vllm:num_requests_waiting")), 0);
}

TEST(SimEngineServerTest, MetricsMatchWhatWasServed) {
  auto server = start_server(engine_config(flat_steps(1)));
  expect_counters_match(server->port());
  const PromText m = scrape(server->port());
  // 1 ms steps: every token gap is 1 ms, in the first ITL bucket (le 0.01).
  EXPECT_EQ(m.at(series("vllm:inter_token_latency_seconds_bucket", ",le=\"0.01\"")),
            m.at(series("vllm:inter_token_latency_seconds_count")));
}

TEST(SimEngineServerTest, FixedDelayModeHasTheSameMetrics) {
  SimConfig config;
  config.port = 0;
  config.timing.ttft_ms = 1;
  config.timing.itl_ms = 1;
  auto server = start_server(config);
  expect_counters_match(server->port());
}

TEST(SimEngineServerTest, PreemptionsAndPrefixHitsAreCounted) {
  EngineParams p = flat_steps(1);
  p.kv_cache_tokens = 6 * 16;  // two prompts of 16 growing to 60 tokens cannot both fit
  p.enable_prefix_caching = true;
  p.block_size = 16;
  auto server = start_server(engine_config(p));
  const std::string prompt(
      R"({"prompt":"a b c d e f g h i j k l m n o p q","max_tokens":40,"ignore_eos":true,)"
      R"("stream":true})");
  TestConnection a(server->port()), b(server->port());
  a.send_request("POST", "/v1/completions", prompt);
  b.send_request("POST", "/v1/completions", prompt);
  EXPECT_TRUE(a.read_reply().complete);
  EXPECT_TRUE(b.read_reply().complete);
  ASSERT_TRUE(wait_for_metric(server->port(), series("vllm:num_requests_running"), 0));
  const PromText m = scrape(server->port());
  EXPECT_GT(m.at(series("vllm:num_preemptions_total")), 0);
  // The 17-token prompt has one full block; a later admission finds it cached.
  EXPECT_GE(m.at(series("vllm:prefix_cache_hits_total")), 16);
  EXPECT_GE(m.at(series("vllm:prefix_cache_queries_total")), 34);
}

}  // namespace
}  // namespace tokenbench::sim
