// Speculative decoding, LoRA adapters and replicas' totals from /metrics: vLLM's names (the
// fixtures in tests/data/metrics are built from vLLM's code, which they cite), TensorRT-LLM's,
// SGLang's, and NVIDIA Dynamo's.

#include "tokenbench/telemetry/engine_features.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "tokenbench/telemetry/prometheus.h"
#include "tokenbench/telemetry/server_account.h"
#include "tokenbench/telemetry/server_series.h"

namespace tokenbench::telemetry {
namespace {

std::string fixture(const std::string& name) {
  std::ifstream in(std::string(TOKENBENCH_TEST_DATA_DIR) + "/metrics/" + name);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

Scrape scrape_of(const std::string& text, core::Nanos t, const char* label) {
  Scrape s;
  s.t = t;
  s.label = label;
  s.ok = true;
  s.snapshot = map_server_metrics(parse_exposition(text));
  return s;
}

TEST(EngineFeatures, VllmSpecDecodeAndLoraFromItsOwnNames) {
  const Scrape start = scrape_of(fixture("vllm-spec-lora-before.prom"), 10, "measure_start");
  const Scrape end = scrape_of(fixture("vllm-spec-lora-after.prom"), 20, "measure_end");
  ASSERT_TRUE(end.snapshot.spec);
  EXPECT_EQ(end.snapshot.spec->drafts, 1100);
  EXPECT_EQ(end.snapshot.spec->accepted_per_position, (std::vector<double>{980, 660, 340}));
  ASSERT_TRUE(end.snapshot.lora);
  EXPECT_EQ(end.snapshot.lora->running, (std::vector<std::string>{"sql-lora", "chat-lora"}));
  EXPECT_EQ(end.snapshot.lora->waiting, (std::vector<std::string>{"math-lora"}));
  EXPECT_EQ(end.snapshot.lora->max_lora, 4);

  const std::vector<Scrape> scrapes{start, end};
  const auto spec = spec_decode_stat(scrapes, start, end);
  ASSERT_TRUE(spec);
  EXPECT_EQ(spec->source, "counters");
  EXPECT_EQ(spec->drafts, 1000);
  EXPECT_EQ(spec->draft_tokens, 3000);
  EXPECT_EQ(spec->accepted, 1800);
  EXPECT_DOUBLE_EQ(spec->acceptance_rate, 0.6);    // vLLM bench serve: accepted / draft tokens
  EXPECT_DOUBLE_EQ(spec->acceptance_length, 2.8);  // 1 + accepted / drafts
  ASSERT_EQ(spec->per_position.size(), 3u);        // per position / drafts
  EXPECT_DOUBLE_EQ(spec->per_position[0], 0.9);
  EXPECT_DOUBLE_EQ(spec->per_position[1], 0.6);
  EXPECT_DOUBLE_EQ(spec->per_position[2], 0.3);
  EXPECT_NE(render_spec_decode(spec).find("acceptance rate 60.00 %, mean acceptance length 2.80"),
            std::string::npos);

  const auto lora = lora_stat(scrapes, start, end);
  ASSERT_TRUE(lora);
  EXPECT_EQ(lora->adapters, (std::vector<std::string>{"chat-lora", "sql-lora"}));
  EXPECT_EQ(lora->max_running, 2);
  EXPECT_EQ(lora->max_waiting, 1);
  EXPECT_EQ(lora->max_lora, 4);

  // Without spec decode lines there is nothing to say.
  Scrape plain = start;
  plain.snapshot.spec.reset();
  EXPECT_FALSE(spec_decode_stat({plain, end}, plain, end));
}

TEST(EngineFeatures, TensorRtLlmCountsByPositionAndGivesTheLengthAsAGauge) {
  const auto text = [](double drafted, double accepted, double length) {
    std::ostringstream s;
    s << "# TYPE trtllm_num_requests_running gauge\n"
         "trtllm_num_requests_running{model_name=\"undefined\",engine_type=\"undefined\"} 3\n"
         "# TYPE trtllm_generation_tokens_total counter\n"
         "trtllm_generation_tokens_total{model_name=\"undefined\",engine_type=\"undefined\"} 900\n"
         "# TYPE trtllm_spec_decode_num_draft_tokens_total counter\n"
         "trtllm_spec_decode_num_draft_tokens_total "
      << drafted << "\n# TYPE trtllm_spec_decode_num_accepted_tokens_total counter\n"
      << "trtllm_spec_decode_num_accepted_tokens_total " << accepted
      << "\n# TYPE trtllm_spec_decode_acceptance_length gauge\n"
      << "trtllm_spec_decode_acceptance_length " << length
      << "\n# TYPE trtllm_spec_decode_drafted_tokens_total counter\n"
      << "trtllm_spec_decode_drafted_tokens_total{token_position=\"0\"} " << drafted / 2
      << "\ntrtllm_spec_decode_drafted_tokens_total{token_position=\"1\"} " << drafted / 2
      << "\n# TYPE trtllm_spec_decode_accepted_tokens_total counter\n"
      << "trtllm_spec_decode_accepted_tokens_total{token_position=\"0\"} " << accepted * 0.75
      << "\ntrtllm_spec_decode_accepted_tokens_total{token_position=\"1\"} " << accepted * 0.25
      << "\n";
    return s.str();
  };
  const Scrape start = scrape_of(text(0, 0, 1.0), 10, "measure_start");
  const Scrape end = scrape_of(text(400, 200, 2.0), 20, "measure_end");
  EXPECT_EQ(end.snapshot.kind, ServerKind::kTrtLlm);
  EXPECT_EQ(end.snapshot.running, 3);
  EXPECT_EQ(end.snapshot.generation_tokens, 900);
  const auto spec = spec_decode_stat({start, end}, start, end);
  ASSERT_TRUE(spec);
  EXPECT_DOUBLE_EQ(spec->acceptance_rate, 0.5);
  EXPECT_DOUBLE_EQ(spec->acceptance_length, 1.5);  // the gauge's mean over the phase
  EXPECT_TRUE(std::isnan(spec->drafts));
  EXPECT_EQ(spec->per_position, (std::vector<double>{0.75, 0.25}));  // accepted / drafted there
}

TEST(EngineFeatures, SglangGivesOnlyTheMeanLength) {
  const auto at = [](core::Nanos t, const char* label, double length) {
    return scrape_of(
        "# TYPE sglang:spec_accept_length gauge\nsglang:spec_accept_length{"
        "model_name=\"m\",engine_type=\"unified\",tp_rank=\"0\",pp_rank=\"0\"} " +
            std::to_string(length) + "\n",
        t, label);
  };
  const std::vector<Scrape> scrapes{at(10, "measure_start", 2.0), at(15, "interval", 3.0),
                                    at(20, "measure_end", 4.0), at(30, "interval", 9.0)};
  EXPECT_EQ(scrapes[0].snapshot.kind, ServerKind::kSglang);
  const auto spec = spec_decode_stat(scrapes, scrapes[0], scrapes[2]);
  ASSERT_TRUE(spec);
  EXPECT_EQ(spec->source, "gauge");
  EXPECT_DOUBLE_EQ(spec->acceptance_length, 3.0);
  EXPECT_NE(render_spec_decode(spec).find("mean acceptance length 3.00"), std::string::npos);
}

TEST(EngineFeatures, DynamoFrontendAndWorkerNamesAreRecognised) {
  const ServerSnapshot frontend = map_server_metrics(parse_exposition(
      "# TYPE dynamo_frontend_inflight_requests gauge\n"
      "dynamo_frontend_inflight_requests{model=\"m\"} 5\n"
      "# TYPE dynamo_frontend_queued_requests gauge\n"
      "dynamo_frontend_queued_requests{model=\"m\"} 2\n"
      "# TYPE dynamo_frontend_requests_total counter\n"
      "dynamo_frontend_requests_total{model=\"m\",endpoint=\"chat_completions\","
      "request_type=\"stream\",status=\"success\"} 40\n"
      "dynamo_frontend_requests_total{model=\"m\",endpoint=\"chat_completions\","
      "request_type=\"stream\",status=\"error\"} 3\n"
      "# TYPE dynamo_frontend_output_tokens_total counter\n"
      "dynamo_frontend_output_tokens_total{model=\"m\"} 640\n"
      "# TYPE dynamo_frontend_time_to_first_token_seconds histogram\n"
      "dynamo_frontend_time_to_first_token_seconds_bucket{model=\"m\",le=\"0.1\"} 30\n"
      "dynamo_frontend_time_to_first_token_seconds_bucket{model=\"m\",le=\"+Inf\"} 40\n"
      "dynamo_frontend_time_to_first_token_seconds_sum{model=\"m\"} 2.5\n"
      "dynamo_frontend_time_to_first_token_seconds_count{model=\"m\"} 40\n"));
  EXPECT_EQ(frontend.kind, ServerKind::kDynamo);
  EXPECT_EQ(frontend.running, 5);
  EXPECT_EQ(frontend.waiting, 2);
  EXPECT_EQ(frontend.requests_finished, 40);  // the successful ones
  EXPECT_EQ(frontend.generation_tokens, 640);
  ASSERT_TRUE(frontend.ttft);
  EXPECT_EQ(frontend.ttft->count, 40);

  const ServerSnapshot worker = map_server_metrics(parse_exposition(
      "# TYPE dynamo_component_inflight_requests gauge\n"
      "dynamo_component_inflight_requests{dynamo_namespace=\"d\",dynamo_component=\"backend\","
      "dynamo_endpoint=\"generate\"} 7\n"
      "# TYPE dynamo_component_kvstats_gpu_cache_usage_percent gauge\n"
      "dynamo_component_kvstats_gpu_cache_usage_percent{dynamo_namespace=\"d\"} 0.25\n"));
  EXPECT_EQ(worker.kind, ServerKind::kDynamo);
  EXPECT_EQ(worker.running, 7);
  EXPECT_EQ(worker.kv_cache_usage_pct, 25);
}

TEST(EngineFeatures, ReplicasSumIntoOneServerWhoseCountersTheClientChecks) {
  const auto replica = [](double base, double running, double drafts) {
    std::vector<Scrape> out;
    for (const auto& [t, label, grow] :
         {std::tuple{0, "before", 0.0}, std::tuple{10, "measure_start", 0.0},
          std::tuple{20, "measure_end", 1.0}}) {
      Scrape s;
      s.t = t;
      s.label = label;
      s.ok = true;
      s.snapshot.kind = ServerKind::kVllm;
      s.snapshot.running = running;
      s.snapshot.kv_cache_usage_pct = running * 10;
      s.snapshot.generation_tokens = base + grow * 500;
      s.snapshot.requests_finished = base + grow * 25;
      s.snapshot.spec = SpecDecodeCounters{drafts * grow, 2 * drafts * grow, drafts * grow, {}, {}};
      out.push_back(s);
    }
    return out;
  };
  const auto a = replica(1000, 2, 100);
  const auto b = replica(7, 4, 300);
  metrics::Summary summary;
  summary.total_output_tokens = 1000;
  summary.measured = 50;
  const ServerAccount ra = account_for(a, "http://a/metrics", summary, 1.0, false);
  const ServerAccount rb = account_for(b, "http://b/metrics", summary, 1.0, false);
  EXPECT_TRUE(ra.findings.empty());  // one of two replicas: no cross-check
  const ServerAccount total = total_account({&a, &b}, {ra, rb}, summary);
  EXPECT_EQ(total.role, "total");
  EXPECT_EQ(total.generation_tokens, 1000);
  EXPECT_EQ(total.requests_finished, 50);
  ASSERT_TRUE(total.running);
  EXPECT_EQ(total.running->mean, 6);              // summed
  EXPECT_EQ(total.kv_cache_usage_pct->mean, 30);  // averaged
  ASSERT_TRUE(total.spec);
  EXPECT_DOUBLE_EQ(total.spec->acceptance_length, 2);  // 1 + 400 / 400
  EXPECT_DOUBLE_EQ(total.spec->acceptance_rate, 0.5);
  ASSERT_FALSE(total.findings.empty());
  EXPECT_EQ(total.findings.front(),
            "the server's counters agree with the client's: 50 requests, 1000 generation tokens");
}

}  // namespace
}  // namespace tokenbench::telemetry
