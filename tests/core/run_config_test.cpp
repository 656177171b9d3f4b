#include "tokenbench/core/run_config.h"

#include <gtest/gtest.h>

#include <cmath>

#include "tokenbench/core/clock.h"
#include "tokenbench/core/request.h"

namespace tokenbench::core {
namespace {

TEST(RunConfig, YamlRoundTripKeepsEveryField) {
  RunConfig c;
  c.base_url = "http://127.0.0.1:9000";
  c.endpoint = "/v1/completions";
  c.api = ApiKind::kOpenAICompletions;
  c.model = "m";
  c.headers = {"X-Trace: 1"};
  c.extra_body = R"({"ignore_eos":true})";
  c.max_tokens_field = "max_completion_tokens";
  c.batch_size = 4;
  c.multi_turn = true;
  c.turns = 3;
  c.think_time = "uniform:1,2";
  c.concurrency_unit = ConcurrencyUnit::kRequest;
  c.session_field = "conv";
  c.max_concurrency = 16;
  c.request_rate = 4.5;
  c.burstiness = 0.5;
  c.arrival = ArrivalKind::kConstant;
  c.num_prompts = 100;
  c.warmup = 3;
  c.seed = 42;
  c.dataset = core::Dataset::kJsonl;
  c.dataset_path = "/tmp/x.jsonl";
  c.input_len = 512;
  c.output_len = 64;
  c.range_ratio = 0.25;
  c.random_prefix_len = 12;
  c.tokenizer = "/models/llama3";
  c.tiktoken_encoding = "o200k_base";
  c.percentiles = {50, 99.9};
  c.goodput = {"ttft:200"};
  const RunConfig r = run_config_from_yaml(to_yaml(c));
  EXPECT_EQ(r.base_url, c.base_url);
  EXPECT_EQ(r.endpoint, c.endpoint);
  EXPECT_EQ(r.api, c.api);
  EXPECT_EQ(r.headers, c.headers);
  EXPECT_EQ(r.extra_body, c.extra_body);
  EXPECT_EQ(r.max_tokens_field, "max_completion_tokens");
  EXPECT_EQ(r.batch_size, 4);
  EXPECT_TRUE(r.multi_turn);
  EXPECT_EQ(r.turns, 3);
  EXPECT_EQ(r.think_time, "uniform:1,2");
  EXPECT_EQ(r.concurrency_unit, ConcurrencyUnit::kRequest);
  EXPECT_EQ(r.session_field, "conv");
  EXPECT_EQ(r.max_concurrency, 16);
  EXPECT_DOUBLE_EQ(r.request_rate, 4.5);
  EXPECT_DOUBLE_EQ(r.burstiness, 0.5);
  EXPECT_EQ(r.arrival, ArrivalKind::kConstant);
  EXPECT_EQ(r.num_prompts, 100);
  EXPECT_EQ(r.warmup, 3);
  EXPECT_EQ(r.seed, 42u);
  EXPECT_EQ(r.dataset_path, c.dataset_path);
  EXPECT_EQ(r.input_len, 512);
  EXPECT_DOUBLE_EQ(r.range_ratio, 0.25);
  EXPECT_EQ(r.random_prefix_len, 12);
  EXPECT_EQ(r.tokenizer, "/models/llama3");
  EXPECT_EQ(r.tiktoken_encoding, "o200k_base");
  EXPECT_EQ(r.percentiles, c.percentiles);
  EXPECT_EQ(r.goodput, c.goodput);
}

TEST(RunConfig, InfiniteRateSurvivesYaml) {
  RunConfig c;
  const RunConfig r = run_config_from_yaml(to_yaml(c));
  EXPECT_TRUE(std::isinf(r.request_rate));
}

TEST(RunConfig, ErrorRatesRoundTripAndAnOlderConfigKeepsItsMeaning) {
  RunConfig c;
  c.max_error_rate = 0.1;
  c.abort_on_error_rate = 0.6;
  c.target_load = TargetLoad::kShared;
  c.targets = {TargetSpec{"a", "", "m", ""}, TargetSpec{"b", "", "m", ""}};
  const RunConfig r = run_config_from_yaml(to_yaml(c));
  EXPECT_DOUBLE_EQ(r.max_error_rate, 0.1);
  EXPECT_DOUBLE_EQ(r.abort_on_error_rate, 0.6);
  EXPECT_EQ(r.target_load, TargetLoad::kShared);
  // Before --abort-on-error-rate, config.yaml's max_error_rate was the in-run stop (0: never):
  // replayed, it still is, and the run's verdict keeps its default.
  std::string old = to_yaml(RunConfig{});
  const auto at = old.find("  abort_on_error_rate: 0\n");
  ASSERT_NE(at, std::string::npos) << old;
  old.erase(at, std::string("  abort_on_error_rate: 0\n").size());
  const auto m = old.find("max_error_rate: 0.5");
  ASSERT_NE(m, std::string::npos);
  old.replace(m, std::string("max_error_rate: 0.5").size(), "max_error_rate: 0.3");
  const RunConfig o = run_config_from_yaml(old);
  EXPECT_DOUBLE_EQ(o.abort_on_error_rate, 0.3);
  EXPECT_DOUBLE_EQ(o.max_error_rate, 0.5);
}

// An api this version does not know was once read as chat; it is an error now.
TEST(RunConfig, UnknownApiInYamlIsAnError) {
  RunConfig c;
  c.api = ApiKind::kOpenAICompletions;
  std::string yaml = to_yaml(c);
  EXPECT_EQ(run_config_from_yaml(yaml).api, ApiKind::kOpenAICompletions);
  const auto at = yaml.find("api: openai");
  ASSERT_NE(at, std::string::npos) << yaml;
  yaml.replace(at, std::string("api: openai").size(), "api: grpc");
  try {
    run_config_from_yaml(yaml);
    FAIL() << "an unknown api was accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("'grpc' is not known"), std::string::npos) << e.what();
  }
}

TEST(RunConfig, SecretHeadersAreRedacted) {
  RunConfig c;
  c.headers = {"Authorization: Bearer sk-secret",   "X-Api-Key: abc",    "X-Plain: visible",
               "Ocp-Apim-Subscription-Key: azure1", "Cookie: s=cookie1", "X-Goog-Api-Key: g1"};
  const std::string yaml = to_yaml(c);
  for (const char* secret : {"sk-secret", "abc", "azure1", "cookie1", "g1"}) {
    EXPECT_EQ(yaml.find(secret), std::string::npos) << secret;
  }
  EXPECT_NE(yaml.find("X-Plain: visible"), std::string::npos);
}

TEST(RequestEnums, NamesRoundTrip) {
  for (auto e : {ErrorClass::kNone, ErrorClass::kConnect, ErrorClass::kRateLimited,
                 ErrorClass::kStreamCut, ErrorClass::kServerError, ErrorClass::kCanceled}) {
    EXPECT_EQ(error_class_from_string(to_string(e)), e);
  }
  EXPECT_EQ(to_string(ErrorClass::kHttp4xx), "http_4xx");
  EXPECT_EQ(token_source_from_string("usage"), TokenSource::kUsage);
  EXPECT_EQ(phase_from_string("warmup"), Phase::kWarmup);
  EXPECT_FALSE(phase_from_string("nope").has_value());
}

TEST(Clock, CompactTimestamp) {
  EXPECT_EQ(compact_timestamp("2026-11-29T10:11:12Z"), "20261129-101112");
  EXPECT_EQ(compact_timestamp("not a date"), "not a date");
  EXPECT_EQ(compact_timestamp(wall_clock_iso8601()).size(), 15u);
}

}  // namespace
}  // namespace tokenbench::core
