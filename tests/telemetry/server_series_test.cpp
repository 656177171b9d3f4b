// Mapping each server's metric names onto the common series.

#include "tokenbench/telemetry/server_series.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

namespace tokenbench::telemetry {
namespace {

TEST(ServerSeries, LlamaCppCapture) {
  std::ifstream in(std::string(TOKENBENCH_FIXTURES_DIR) + "/llama-server-metrics.prom");
  std::stringstream ss;
  ss << in.rdbuf();
  const ServerSnapshot s = map_server_metrics(parse_exposition(ss.str()));
  EXPECT_EQ(s.kind, ServerKind::kLlamaCpp);
  EXPECT_EQ(s.prompt_tokens, 8);
  EXPECT_EQ(s.generation_tokens, 60);
  EXPECT_EQ(s.running, 0);
  EXPECT_EQ(s.waiting, 0);
  EXPECT_FALSE(s.ttft);  // llama.cpp exports no latency histograms
}

TEST(ServerSeries, VllmNamesWithLabelsAndTheDeprecatedAliases) {
  const Exposition e = parse_exposition(
      "# TYPE vllm:num_requests_running gauge\n"
      "vllm:num_requests_running{model_name=\"m\"} 5\n"
      "# TYPE vllm:num_requests_waiting gauge\n"
      "vllm:num_requests_waiting{model_name=\"m\"} 2\n"
      "# TYPE vllm:gpu_cache_usage_perc gauge\n"
      "vllm:gpu_cache_usage_perc{model_name=\"m\"} 0.25\n"
      "# TYPE vllm:generation_tokens_total counter\n"
      "vllm:generation_tokens_total{model_name=\"m\"} 900\n"
      "# TYPE vllm:request_success_total counter\n"
      "vllm:request_success_total{finished_reason=\"stop\",model_name=\"m\"} 7\n"
      "vllm:request_success_total{finished_reason=\"length\",model_name=\"m\"} 3\n"
      "# TYPE vllm:time_per_output_token_seconds histogram\n"
      "vllm:time_per_output_token_seconds_bucket{le=\"0.01\",model_name=\"m\"} 4\n"
      "vllm:time_per_output_token_seconds_bucket{le=\"+Inf\",model_name=\"m\"} 5\n"
      "vllm:time_per_output_token_seconds_sum{model_name=\"m\"} 0.05\n"
      "vllm:time_per_output_token_seconds_count{model_name=\"m\"} 5\n");
  const ServerSnapshot s = map_server_metrics(e);
  EXPECT_EQ(s.kind, ServerKind::kVllm);
  EXPECT_EQ(s.running, 5);
  EXPECT_EQ(s.waiting, 2);
  EXPECT_DOUBLE_EQ(*s.kv_cache_usage_pct, 25);
  EXPECT_EQ(s.generation_tokens, 900);
  EXPECT_EQ(s.requests_finished, 10);  // every finished_reason
  ASSERT_TRUE(s.itl);                  // from the deprecated TPOT name
  EXPECT_EQ(s.itl->count, 5);
  EXPECT_FALSE(s.preemptions);
}

TEST(ServerSeries, SglangAndTgi) {
  const ServerSnapshot sg = map_server_metrics(parse_exposition(
      "# TYPE sglang:num_running_reqs gauge\nsglang:num_running_reqs 3\n"
      "# TYPE sglang:num_queue_reqs gauge\nsglang:num_queue_reqs 1\n"
      "# TYPE sglang:token_usage gauge\nsglang:token_usage 0.5\n"
      "# TYPE sglang:generation_tokens_total counter\nsglang:generation_tokens_total 77\n"));
  EXPECT_EQ(sg.kind, ServerKind::kSglang);
  EXPECT_EQ(sg.running, 3);
  EXPECT_EQ(sg.waiting, 1);
  EXPECT_DOUBLE_EQ(*sg.kv_cache_usage_pct, 50);
  EXPECT_EQ(sg.generation_tokens, 77);

  const ServerSnapshot tgi = map_server_metrics(parse_exposition(
      "# TYPE tgi_queue_size gauge\ntgi_queue_size 4\n"
      "# TYPE tgi_batch_current_size gauge\ntgi_batch_current_size 16\n"
      "# TYPE tgi_request_generated_tokens histogram\n"
      "tgi_request_generated_tokens_bucket{le=\"+Inf\"} 3\n"
      "tgi_request_generated_tokens_sum 300\ntgi_request_generated_tokens_count 3\n"));
  EXPECT_EQ(tgi.kind, ServerKind::kTgi);
  EXPECT_EQ(tgi.waiting, 4);
  EXPECT_EQ(tgi.running, 16);
  EXPECT_EQ(tgi.generation_tokens, 300);  // the histogram's sum
}

TEST(ServerSeries, UnknownServerMapsNothing) {
  const ServerSnapshot s = map_server_metrics(parse_exposition("process_cpu_seconds_total 1\n"));
  EXPECT_EQ(s.kind, ServerKind::kUnknown);
  EXPECT_FALSE(s.running);
  EXPECT_EQ(to_string(s.kind), "unknown");
}

}  // namespace
}  // namespace tokenbench::telemetry
