// The server advertises its time scale: the X-Sim-Time-Scale header on every response, and
// "tokenbench_sim" in each model object of GET /v1/models.

#include <gtest/gtest.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "sim_test_client.h"
#include "tokenbench/sim/engine_params.h"
#include "tokenbench/sim/fault_injector.h"
#include "tokenbench/sim/sim_server.h"

namespace tokenbench::sim {
namespace {

using testing::start_server;

using nlohmann::json;
using testing::HttpReply;
using testing::TestConnection;

// Fixed delays of zero: what `serve-sim --preset fixed --ttft-ms 0 --itl-ms 0` builds.
SimConfig fixed_config(double time_scale = 1.0) {
  SimConfig c;
  c.port = 0;
  c.seed = 3;
  c.timing.ttft_ms = 0;
  c.timing.itl_ms = 0;
  c.time_scale = time_scale;
  return c;
}

// The "zero" engine preset, unchanged: what `serve-sim --preset zero --time-scale X` builds.
SimConfig zero_engine_config(double time_scale) {
  SimConfig c;
  c.port = 0;
  c.seed = 3;
  c.mode = TimingMode::kEngine;
  c.engine = *find_engine_preset("zero");
  c.time_scale = time_scale;
  return c;
}

HttpReply request(std::uint16_t port, std::string_view method, std::string_view path,
                  std::string_view body = {}, std::string_view headers = {}) {
  TestConnection conn(port);
  conn.send_request(method, path, body, headers);
  return conn.read_reply();
}

std::string chat_body(bool stream) {
  return std::string(R"({"messages":[{"role":"user","content":"one two three"}],"max_tokens":4,)") +
         R"("ignore_eos":true,"stream":)" + (stream ? "true" : "false") + "}";
}

// The one model object of GET /v1/models, its OpenAI shape checked.
json model_object(std::uint16_t port) {
  const HttpReply reply = request(port, "GET", "/v1/models");
  EXPECT_EQ(reply.status, 200);
  const json body = json::parse(reply.body);
  EXPECT_EQ(body["object"], "list");
  EXPECT_EQ(body["data"].size(), 1u);
  const json model = body["data"][0];
  EXPECT_EQ(model["id"], "sim-model");
  EXPECT_EQ(model["object"], "model");
  EXPECT_TRUE(model["created"].is_number_integer());
  EXPECT_EQ(model["owned_by"], "tokenbench-sim");
  return model;
}

// Every endpoint, success or error, streaming or not, carries the header.
void expect_header_everywhere(std::uint16_t port, const std::string& scale) {
  const HttpReply stream = request(port, "POST", "/v1/chat/completions", chat_body(true));
  EXPECT_EQ(stream.status, 200);
  EXPECT_TRUE(stream.chunked);
  EXPECT_TRUE(stream.complete);
  EXPECT_EQ(stream.header("x-sim-time-scale"), scale);

  const HttpReply whole = request(port, "POST", "/v1/chat/completions", chat_body(false));
  EXPECT_EQ(whole.status, 200);
  EXPECT_TRUE(whole.complete);
  EXPECT_EQ(whole.header("x-sim-time-scale"), scale);

  const HttpReply completions =
      request(port, "POST", "/v1/completions", R"({"prompt":"a b","max_tokens":2,"stream":true})");
  EXPECT_EQ(completions.status, 200);
  EXPECT_EQ(completions.header("x-sim-time-scale"), scale);

  const HttpReply not_found = request(port, "GET", "/v1/nothing");
  EXPECT_EQ(not_found.status, 404);
  EXPECT_EQ(not_found.header("x-sim-time-scale"), scale);

  const HttpReply bad_body = request(port, "POST", "/v1/chat/completions", "{not json");
  EXPECT_EQ(bad_body.status, 400);
  EXPECT_EQ(bad_body.header("x-sim-time-scale"), scale);

  const HttpReply wrong_method = request(port, "GET", "/v1/completions");
  EXPECT_EQ(wrong_method.status, 405);
  EXPECT_EQ(wrong_method.header("x-sim-time-scale"), scale);

  for (const char* path : {"/v1/models", "/health", "/metrics"}) {
    const HttpReply reply = request(port, "GET", path);
    EXPECT_EQ(reply.status, 200) << path;
    EXPECT_EQ(reply.header("x-sim-time-scale"), scale) << path;
  }
}

TEST(SimTimeScaleTest, DefaultScaleIsOneOnEveryResponse) {
  auto server = start_server(fixed_config());
  expect_header_everywhere(server->port(), "1");
  const json model = model_object(server->port());
  EXPECT_EQ(model["tokenbench_sim"], (json{{"time_scale", 1}, {"preset", "fixed"}}));
}

TEST(SimTimeScaleTest, ScaleTenOnEveryResponse) {
  auto server = start_server(zero_engine_config(10));
  expect_header_everywhere(server->port(), "10");
  const json model = model_object(server->port());
  ASSERT_TRUE(model.contains("tokenbench_sim"));
  EXPECT_TRUE(model["tokenbench_sim"]["time_scale"].is_number());
  EXPECT_EQ(model["tokenbench_sim"]["time_scale"].get<double>(), 10.0);
  EXPECT_EQ(model["tokenbench_sim"]["preset"], "zero");
}

TEST(SimTimeScaleTest, FixedDelaysScaledToo) {
  auto server = start_server(fixed_config(10));
  expect_header_everywhere(server->port(), "10");
  EXPECT_EQ(model_object(server->port())["tokenbench_sim"],
            (json{{"time_scale", 10}, {"preset", "fixed"}}));
}

TEST(SimTimeScaleTest, FractionalScaleFormattedShort) {
  auto server = start_server(zero_engine_config(0.5));
  const HttpReply reply = request(server->port(), "GET", "/health");
  EXPECT_EQ(reply.header("x-sim-time-scale"), "0.5");
  EXPECT_EQ(model_object(server->port())["tokenbench_sim"]["time_scale"].get<double>(), 0.5);
}

TEST(SimTimeScaleTest, AScaleThatIsNotPositiveIsOne) {
  auto server = start_server(zero_engine_config(0));
  EXPECT_EQ(request(server->port(), "GET", "/health").header("x-sim-time-scale"), "1");
  EXPECT_EQ(model_object(server->port())["tokenbench_sim"]["time_scale"].get<double>(), 1.0);
}

TEST(SimTimeScaleTest, PresetNamedChangedOrGiven) {
  {
    auto server = start_server(zero_engine_config(1));
    EXPECT_EQ(model_object(server->port())["tokenbench_sim"]["preset"], "zero");
  }
  {
    SimConfig config = zero_engine_config(1);
    config.engine = *find_engine_preset(kDefaultPreset);
    auto server = start_server(config);
    EXPECT_EQ(model_object(server->port())["tokenbench_sim"]["preset"], kDefaultPreset);
  }
  {
    SimConfig config = zero_engine_config(1);
    config.engine.max_num_seqs = 7;  // an engine flag changed the preset's parameters
    auto server = start_server(config);
    EXPECT_EQ(model_object(server->port())["tokenbench_sim"]["preset"], "custom");
  }
  {
    SimConfig config = zero_engine_config(1);
    config.engine.max_num_seqs = 7;
    config.preset = "zero";  // the caller names it
    auto server = start_server(config);
    EXPECT_EQ(model_object(server->port())["tokenbench_sim"]["preset"], "zero");
  }
}

TEST(SimTimeScaleTest, HeaderWithAuthErrorsAndFaults) {
  SimConfig config = zero_engine_config(10);
  config.api_key = "k";
  config.faults = {parse_fault_rule("http_429:every=3"), parse_fault_rule("http_503:every=2"),
                   parse_fault_rule("stream_cut:1")};
  auto server = start_server(config);
  const auto port = server->port();
  const std::string auth = "Authorization: Bearer k\r\n";

  const HttpReply unauthorized = request(port, "GET", "/v1/models");
  EXPECT_EQ(unauthorized.status, 401);
  EXPECT_EQ(unauthorized.header("x-sim-time-scale"), "10");

  // Arrival 0: stream_cut (the body ends early, the head has the header).
  const HttpReply cut = request(port, "POST", "/v1/chat/completions", chat_body(true), auth);
  EXPECT_EQ(cut.status, 200);
  EXPECT_FALSE(cut.complete);
  EXPECT_EQ(cut.header("x-sim-time-scale"), "10");
  // Arrival 1: 503.
  const HttpReply unavailable =
      request(port, "POST", "/v1/chat/completions", chat_body(false), auth);
  EXPECT_EQ(unavailable.status, 503);
  EXPECT_EQ(unavailable.header("x-sim-time-scale"), "10");
  // Arrival 2: 429, with its own Retry-After beside it.
  const HttpReply limited = request(port, "POST", "/v1/chat/completions", chat_body(false), auth);
  EXPECT_EQ(limited.status, 429);
  EXPECT_EQ(limited.header("retry-after"), "1");
  EXPECT_EQ(limited.header("x-sim-time-scale"), "10");
}

TEST(SimTimeScaleTest, HeaderOnKeepAliveAndClosingReplies) {
  auto server = start_server(fixed_config(10));
  TestConnection conn(server->port());
  conn.send_request("POST", "/v1/chat/completions", chat_body(true));
  EXPECT_EQ(conn.read_reply().header("x-sim-time-scale"), "10");
  conn.send_request("GET", "/health", {}, "Connection: close\r\n");
  const HttpReply last = conn.read_reply();
  EXPECT_EQ(last.header("connection"), "close");
  EXPECT_EQ(last.header("x-sim-time-scale"), "10");
}

}  // namespace
}  // namespace tokenbench::sim
