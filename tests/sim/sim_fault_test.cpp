#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

#include "sim_test_client.h"
#include "tokenbench/sim/engine_params.h"
#include "tokenbench/sim/fault_injector.h"
#include "tokenbench/sim/sim_server.h"

namespace tokenbench::sim {
namespace {

using nlohmann::json;
using testing::HttpReply;
using testing::TestClock;
using testing::TestConnection;

TEST(SimFaultTest, ParsesRules) {
  FaultRule r = parse_fault_rule("http_429:0.25");
  EXPECT_EQ(r.kind, FaultKind::kHttp429);
  EXPECT_DOUBLE_EQ(r.probability, 0.25);
  EXPECT_EQ(r.every, 0);
  r = parse_fault_rule("stream_cut:every=3");
  EXPECT_EQ(r.kind, FaultKind::kStreamCut);
  EXPECT_EQ(r.every, 3);
  r = parse_fault_rule("stall:every=2:0.5");
  EXPECT_EQ(r.kind, FaultKind::kStall);
  EXPECT_DOUBLE_EQ(r.seconds, 0.5);
  EXPECT_DOUBLE_EQ(parse_fault_rule("stall:1").seconds, 5.0);
  EXPECT_DOUBLE_EQ(parse_fault_rule("slow_first_byte:1").seconds, 1.0);
  for (const char* bad : {"http_429", "http_418:0.1", "http_500:1.5", "http_500:every=0",
                          "http_500:every=x", "http_500:0.1:3", "stall:0.1:", "stall:1:-2", ""}) {
    EXPECT_THROW(parse_fault_rule(bad), std::invalid_argument) << bad;
  }
}

TEST(SimFaultTest, EveryNFiresOnTheNthAcceptedRequest) {
  const FaultInjector faults({parse_fault_rule("http_500:every=3")}, 1);
  for (std::uint64_t i = 0; i < 9; ++i) {
    EXPECT_EQ(faults.decide(i).kind, (i + 1) % 3 == 0 ? FaultKind::kHttp500 : FaultKind::kNone);
  }
}

TEST(SimFaultTest, ProbabilityIsDeterministicPerSeedAndNearItsRate) {
  const std::vector<FaultRule> rules{parse_fault_rule("http_503:0.3")};
  const FaultInjector a(rules, 11), b(rules, 11), c(rules, 12);
  int fired = 0, differs = 0;
  for (std::uint64_t i = 0; i < 20000; ++i) {
    const bool hit = a.decide(i).kind == FaultKind::kHttp503;
    fired += hit;
    EXPECT_EQ(hit, b.decide(i).kind == FaultKind::kHttp503);
    differs += hit != (c.decide(i).kind == FaultKind::kHttp503);
  }
  EXPECT_NEAR(fired / 20000.0, 0.3, 0.02);
  EXPECT_GT(differs, 0);
}

TEST(SimFaultTest, FirstMatchingRuleWins) {
  const FaultInjector faults({parse_fault_rule("http_429:every=2"), parse_fault_rule("http_500:1")},
                             0);
  EXPECT_EQ(faults.decide(0).kind, FaultKind::kHttp500);
  EXPECT_EQ(faults.decide(1).kind, FaultKind::kHttp429);
}

// Every fault behaves the same with fixed delays and with the engine model.
class SimFaultServerTest : public ::testing::TestWithParam<TimingMode> {
 protected:
  // A server where every accepted completion request gets `fault` (no delays, or the zero-cost
  // engine).
  std::unique_ptr<SimServer> server_with(const std::string& fault) {
    SimConfig c;
    c.port = 0;
    c.timing.ttft_ms = 0;
    c.timing.itl_ms = 0;
    c.mode = GetParam();
    c.engine = *find_engine_preset("zero");
    c.faults.push_back(parse_fault_rule(fault));
    auto server = std::make_unique<SimServer>(c);
    server->start();
    return server;
  }
};

INSTANTIATE_TEST_SUITE_P(Modes, SimFaultServerTest,
                         ::testing::Values(TimingMode::kFixed, TimingMode::kEngine),
                         [](const auto& info) {
                           return info.param == TimingMode::kFixed ? "Fixed" : "Engine";
                         });

const std::string kStream10 =
    R"({"messages":[{"role":"user","content":"hi"}],"max_tokens":10,"ignore_eos":true,)"
    R"("stream":true,"stream_options":{"include_usage":true}})";
const std::string kWhole10 =
    R"({"messages":[{"role":"user","content":"hi"}],"max_tokens":10,"ignore_eos":true})";

HttpReply post(std::uint16_t port, const std::string& body) {
  TestConnection conn(port);
  conn.send_request("POST", "/v1/chat/completions", body);
  return conn.read_reply();
}

void expect_error(const HttpReply& reply, int status, const char* type) {
  EXPECT_EQ(reply.status, status);
  const json body = json::parse(reply.body);
  EXPECT_EQ(body["error"]["code"], status);
  EXPECT_EQ(body["error"]["type"], type);
}

int content_events(const HttpReply& reply) {
  int n = 0;
  for (const auto& e : reply.events) {
    const json j = json::parse(e.data, nullptr, false);
    if (!j.is_discarded() && j.contains("choices") && !j["choices"].empty() &&
        j["choices"][0]["delta"].contains("content") &&
        !j["choices"][0]["delta"]["content"].get<std::string>().empty()) {
      ++n;
    }
  }
  return n;
}

TEST_P(SimFaultServerTest, Http429HasRetryAfter) {
  auto server = server_with("http_429:1");
  const HttpReply reply = post(server->port(), kStream10);
  expect_error(reply, 429, "rate_limit_error");
  EXPECT_EQ(reply.header("retry-after"), "1");
}

TEST_P(SimFaultServerTest, Http500And503) {
  auto s500 = server_with("http_500:1");
  expect_error(post(s500->port(), kStream10), 500, "server_error");
  auto s503 = server_with("http_503:1");
  expect_error(post(s503->port(), kWhole10), 503, "server_error");
}

TEST_P(SimFaultServerTest, EveryNCountsOnlyAcceptedCompletionRequests) {
  auto server = server_with("http_500:every=2");
  TestConnection conn(server->port());
  conn.send_request("POST", "/v1/chat/completions", kWhole10);
  EXPECT_EQ(conn.read_reply().status, 200);
  conn.send_request("POST", "/v1/chat/completions", "{bad json");
  EXPECT_EQ(conn.read_reply().status, 400);
  conn.send_request("GET", "/v1/models");
  EXPECT_EQ(conn.read_reply().status, 200);
  conn.send_request("POST", "/v1/chat/completions", kWhole10);
  EXPECT_EQ(conn.read_reply().status, 500);
  conn.send_request("POST", "/v1/chat/completions", kWhole10);
  EXPECT_EQ(conn.read_reply().status, 200);
}

TEST_P(SimFaultServerTest, StreamCutClosesMidStream) {
  auto server = server_with("stream_cut:1");
  const HttpReply reply = post(server->port(), kStream10);
  EXPECT_EQ(reply.status, 200);
  EXPECT_FALSE(reply.complete);
  EXPECT_TRUE(reply.closed);
  EXPECT_EQ(content_events(reply), 5);
  for (const auto& e : reply.events) EXPECT_NE(e.data, "[DONE]");
}

TEST_P(SimFaultServerTest, StreamCutTruncatesWholeReply) {
  auto server = server_with("stream_cut:1");
  const HttpReply reply = post(server->port(), kWhole10);
  EXPECT_EQ(reply.status, 200);
  EXPECT_FALSE(reply.complete);
  EXPECT_TRUE(reply.closed);
  EXPECT_TRUE(json::parse(reply.body, nullptr, false).is_discarded());
}

TEST_P(SimFaultServerTest, MalformedSendsOneNonJsonEventThenContinues) {
  auto server = server_with("malformed:1");
  const HttpReply reply = post(server->port(), kStream10);
  EXPECT_TRUE(reply.complete);
  int bad = 0;
  for (const auto& e : reply.events) {
    bad += e.data != "[DONE]" && json::parse(e.data, nullptr, false).is_discarded();
  }
  EXPECT_EQ(bad, 1);
  EXPECT_EQ(content_events(reply), 10);
  EXPECT_EQ(reply.events.back().data, "[DONE]");
  // Non-streaming: a 200 whose body is not JSON.
  const HttpReply whole = post(server->port(), kWhole10);
  EXPECT_EQ(whole.status, 200);
  EXPECT_TRUE(whole.complete);
  EXPECT_TRUE(json::parse(whole.body, nullptr, false).is_discarded());
}

TEST_P(SimFaultServerTest, ErrorEventEndsTheStreamProperly) {
  auto server = server_with("error_event:1");
  TestConnection conn(server->port());
  conn.send_request("POST", "/v1/chat/completions", kStream10);
  const HttpReply reply = conn.read_reply();
  EXPECT_EQ(reply.status, 200);
  EXPECT_TRUE(reply.complete);
  EXPECT_FALSE(reply.closed);
  EXPECT_EQ(content_events(reply), 5);
  ASSERT_GE(reply.events.size(), 2u);
  const json error = json::parse(reply.events[reply.events.size() - 2].data);
  EXPECT_EQ(error["error"]["type"], "server_error");
  EXPECT_EQ(error["error"]["code"], 500);
  EXPECT_EQ(reply.events.back().data, "[DONE]");
  // The connection stays usable; a non-streaming request gets a 500 error reply.
  conn.send_request("POST", "/v1/chat/completions", kWhole10);
  expect_error(conn.read_reply(), 500, "server_error");
}

TEST_P(SimFaultServerTest, StallPausesMidStream) {
  auto server = server_with("stall:1:0.2");
  TestConnection conn(server->port());
  const auto sent = TestClock::now();
  conn.send_request("POST", "/v1/chat/completions", kStream10);
  const HttpReply reply = conn.read_reply();
  EXPECT_TRUE(reply.complete);
  EXPECT_EQ(content_events(reply), 10);
  EXPECT_GE(reply.events[6].at - sent, std::chrono::milliseconds(200));  // token 6 (index 5)
  EXPECT_LT(reply.events[1].at - sent, std::chrono::milliseconds(150));
}

TEST_P(SimFaultServerTest, SlowFirstByteDelaysHeaders) {
  auto server = server_with("slow_first_byte:1:0.2");
  TestConnection conn(server->port());
  const auto sent = TestClock::now();
  conn.send_request("POST", "/v1/chat/completions", kStream10);
  const HttpReply reply = conn.read_reply();
  EXPECT_TRUE(reply.complete);
  EXPECT_GE(reply.headers_at - sent, std::chrono::milliseconds(200));
}

}  // namespace
}  // namespace tokenbench::sim
