// The connection lifecycle of the simulator's HTTP sessions: what /metrics counts for aborted and
// faulted requests (both timing modes), idle connections closed after --idle-timeout-s, and
// disconnects noticed behind pipelined requests.

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

// Every engine step costs exactly `step_ms`.
SimConfig engine_config(double step_ms) {
  SimConfig c;
  c.port = 0;
  c.seed = 5;
  c.mode = TimingMode::kEngine;
  c.engine = *find_engine_preset("zero");
  c.engine.step_overhead_ms = step_ms;
  c.engine.kv_cache_tokens = 1 << 20;
  return c;
}

SimConfig fixed_config(double ttft_ms, double itl_ms) {
  SimConfig c;
  c.port = 0;
  c.seed = 5;
  c.timing.ttft_ms = ttft_ms;
  c.timing.itl_ms = itl_ms;
  return c;
}

// A prompt of 4 tokens.
std::string chat_body(int max_tokens, bool stream) {
  return R"({"messages":[{"role":"user","content":"one two three four"}],"max_tokens":)" +
         std::to_string(max_tokens) + R"(,"ignore_eos":true,"stream":)" +
         (stream ? "true" : "false") + "}";
}

PromText scrape(std::uint16_t port) {
  TestConnection conn(port);
  conn.send_request("GET", "/metrics");
  return testing::parse_prom_text(conn.read_reply().body);
}

std::string series(const std::string& name, const std::string& extra = {}) {
  return name + "{model_name=\"sim-model\"" + extra + "}";
}

std::string reason(const char* r) {
  return series("vllm:request_success_total", std::string(",finished_reason=\"") + r + "\"");
}

// Polls /metrics until `s` has `value` (or gives up after 3 s).
bool wait_for_metric(std::uint16_t port, const std::string& s, double value) {
  const auto deadline = TestClock::now() + std::chrono::seconds(3);
  while (TestClock::now() < deadline) {
    if (scrape(port).at(s) == value) return true;
    std::this_thread::sleep_for(milliseconds(10));
  }
  return false;
}

// An aborted request observed no latency histogram; its counters hold what was generated.
void expect_one_abort_without_latency(std::uint16_t port, double min_generated,
                                      double max_generated) {
  ASSERT_TRUE(wait_for_metric(port, reason("abort"), 1));
  ASSERT_TRUE(wait_for_metric(port, series("vllm:num_requests_running"), 0));
  const PromText m = scrape(port);
  EXPECT_EQ(m.at(reason("stop")), 0);
  EXPECT_EQ(m.at(reason("length")), 0);
  for (const char* h :
       {"vllm:time_to_first_token_seconds_count", "vllm:inter_token_latency_seconds_count",
        "vllm:time_per_output_token_seconds_count", "vllm:e2e_request_latency_seconds_count",
        "vllm:request_queue_time_seconds_count", "vllm:request_prefill_time_seconds_count",
        "vllm:request_decode_time_seconds_count", "vllm:request_inference_time_seconds_count"}) {
    EXPECT_EQ(m.at(series(h)), 0) << h;
  }
  const double generated = m.at(series("vllm:generation_tokens_total"));
  EXPECT_GE(generated, min_generated);
  EXPECT_LE(generated, max_generated);
  EXPECT_EQ(m.at(series("vllm:prompt_tokens_total")), generated > 0 ? 4 : 0);
}

struct DisconnectCase {
  const char* name;
  SimConfig config;
  bool stream;
};

TEST(SimSessionTest, ClientGoneMidRequestObservesNoLatency) {
  const DisconnectCase cases[] = {
      {"engine stream", engine_config(5), true},
      {"engine whole reply", engine_config(5), false},
      {"fixed stream", fixed_config(20, 20), true},
      {"fixed whole reply", fixed_config(20, 20), false},
  };
  for (const DisconnectCase& c : cases) {
    SCOPED_TRACE(c.name);
    auto server = start_server(c.config);
    {
      TestConnection conn(server->port());
      conn.send_request("POST", "/v1/chat/completions", chat_body(1000, c.stream));
      // 1000 tokens take 5 s (engine) or 20 s (fixed); a few of them are out by now.
      std::this_thread::sleep_for(milliseconds(300));
    }
    expect_one_abort_without_latency(server->port(), 1, 999);
  }
}

struct FaultCase {
  const char* name;
  SimConfig config;
  const char* fault;
  bool stream;
};

TEST(SimSessionTest, CutAndErrorEventCountAsAbortInBothModes) {
  std::vector<FaultCase> cases;
  for (const bool stream : {false, true}) {
    for (const char* fault : {"stream_cut:1", "error_event:1"}) {
      // The zero-cost engine finishes a request before its session applies the fault.
      cases.push_back({"engine", engine_config(0), fault, stream});
      cases.push_back({"fixed", fixed_config(1, 1), fault, stream});
    }
  }
  for (FaultCase& c : cases) {
    SCOPED_TRACE(std::string(c.name) + " " + c.fault + (c.stream ? " stream" : " whole reply"));
    c.config.faults.push_back(parse_fault_rule(c.fault));
    auto server = start_server(c.config);
    TestConnection conn(server->port());
    conn.send_request("POST", "/v1/chat/completions", chat_body(20, c.stream));
    const HttpReply reply = conn.read_reply();
    if (std::string(c.fault) == "stream_cut:1") {
      EXPECT_TRUE(reply.closed);
      EXPECT_FALSE(reply.complete);
    } else {
      EXPECT_EQ(reply.status, c.stream ? 200 : 500);
      EXPECT_TRUE(reply.complete);
    }
    // At least the 10 tokens before the fault were generated, at most all 20.
    expect_one_abort_without_latency(server->port(), 10, 20);
  }
}

TEST(SimSessionTest, FinishedRequestsStillObserveLatency) {
  for (const SimConfig& config : {engine_config(1), fixed_config(1, 1)}) {
    auto server = start_server(config);
    TestConnection conn(server->port());
    for (const bool stream : {false, true}) {
      conn.send_request("POST", "/v1/chat/completions", chat_body(5, stream));
      EXPECT_TRUE(conn.read_reply().complete);
    }
    ASSERT_TRUE(wait_for_metric(server->port(), reason("length"), 2));
    const PromText m = scrape(server->port());
    EXPECT_EQ(m.at(series("vllm:time_to_first_token_seconds_count")), 2);
    EXPECT_EQ(m.at(series("vllm:inter_token_latency_seconds_count")), 8);
    EXPECT_EQ(m.at(series("vllm:e2e_request_latency_seconds_count")), 2);
    EXPECT_EQ(m.at(series("vllm:generation_tokens_total")), 10);
    EXPECT_EQ(m.at(series("vllm:prompt_tokens_total")), 8);
  }
}

// Seconds until the server closes `conn` (reads EOF).
double seconds_until_closed(TestConnection& conn) {
  const auto start = TestClock::now();
  EXPECT_TRUE(conn.server_closed());
  return std::chrono::duration<double>(TestClock::now() - start).count();
}

TEST(SimSessionTest, IdleConnectionsAreClosedAfterTheTimeout) {
  SimConfig config = fixed_config(1, 100);
  config.idle_timeout_s = 0.2;
  auto server = start_server(config);

  TestConnection silent(server->port());
  const double silent_s = seconds_until_closed(silent);
  EXPECT_GE(silent_s, 0.15);
  EXPECT_LT(silent_s, 5.0);

  TestConnection partial(server->port());
  partial.send_raw("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n");  // never ends its header
  EXPECT_LT(seconds_until_closed(partial), 5.0);

  TestConnection body(server->port());
  body.send_raw("POST /v1/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100\r\n\r\n{");
  EXPECT_LT(seconds_until_closed(body), 5.0);

  // A response longer than the timeout (5 tokens 100 ms apart) is not cut; the wait after it is.
  TestConnection keep_alive(server->port());
  keep_alive.send_request("POST", "/v1/chat/completions", chat_body(5, true));
  const HttpReply reply = keep_alive.read_reply();
  EXPECT_TRUE(reply.complete);
  EXPECT_EQ(reply.events.size(), 8u);  // role, 5 tokens, finish, [DONE]
  keep_alive.send_request("GET", "/health");
  EXPECT_EQ(keep_alive.read_reply().status, 200);
  const double after_s = seconds_until_closed(keep_alive);
  EXPECT_GE(after_s, 0.15);
  EXPECT_LT(after_s, 5.0);
}

TEST(SimSessionTest, DisconnectBehindAPipelinedRequestIsNoticed) {
  auto server = start_server(engine_config(50));  // 1000 tokens would take 50 s
  {
    TestConnection conn(server->port());
    conn.send_request("POST", "/v1/chat/completions", chat_body(1000, false));
    ASSERT_TRUE(wait_for_metric(server->port(), series("vllm:num_requests_running"), 1));
    conn.send_request("GET", "/health");  // pipelined behind the completion in progress
    std::this_thread::sleep_for(milliseconds(100));
  }  // then the client goes away
  EXPECT_TRUE(wait_for_metric(server->port(), reason("abort"), 1));
  EXPECT_TRUE(wait_for_metric(server->port(), series("vllm:kv_cache_usage_perc"), 0));
}

TEST(SimSessionTest, RequestPipelinedDuringACompletionIsAnsweredAfterIt) {
  for (const bool stream : {false, true}) {
    auto server = start_server(fixed_config(100, 1));
    TestConnection conn(server->port());
    conn.send_request("POST", "/v1/chat/completions", chat_body(3, stream));
    std::this_thread::sleep_for(milliseconds(30));  // the completion is under way
    conn.send_request("GET", "/health");
    const HttpReply completion = conn.read_reply();
    EXPECT_EQ(completion.status, 200);
    EXPECT_TRUE(completion.complete);
    if (!stream) {
      EXPECT_EQ(json::parse(completion.body)["usage"]["completion_tokens"], 3);
    }
    const HttpReply health = conn.read_reply();
    EXPECT_EQ(health.status, 200);
    EXPECT_EQ(health.body, R"({"status":"ok"})");
  }
}

TEST(SimSessionTest, DebugLatenessCountsEveryStreamedTokenNoneEarly) {
  // Fixed delays on two io loops: 40 streams of 20 tokens 2 ms apart, all waiting at once. Every
  // token is written at or after its due time, and every one is counted.
  SimConfig config = fixed_config(5, 2);
  config.threads = 2;
  config.measure_lateness = true;
  auto server = start_server(config);
  std::vector<std::unique_ptr<TestConnection>> conns;
  for (int i = 0; i < 40; ++i) {
    conns.push_back(std::make_unique<TestConnection>(server->port()));
    conns.back()->send_request("POST", "/v1/chat/completions", chat_body(20, true));
  }
  for (auto& conn : conns) ASSERT_TRUE(conn->read_reply().complete);
  const PromText m = scrape(server->port());
  EXPECT_EQ(m.at("tokenbench_sim:token_lateness_seconds_count"), 40 * 20);
  EXPECT_EQ(m.at("tokenbench_sim:tokens_early_total"), 0);
  EXPECT_EQ(m.types.at("tokenbench_sim:token_lateness_seconds"), "histogram");
}

TEST(SimSessionTest, LatenessIsNotInMetricsByDefault) {
  auto server = start_server(fixed_config(0, 0));
  const PromText m = scrape(server->port());
  EXPECT_EQ(m.types.count("tokenbench_sim:token_lateness_seconds"), 0u);
}

}  // namespace
}  // namespace tokenbench::sim
