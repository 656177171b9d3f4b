// report --as prometheus: summary.json's figures as exposition text that a Prometheus parser
// (tokenbench's own, telemetry/prometheus.h) reads back value for value.

#include "tokenbench/report/prometheus_export.h"

#include <gtest/gtest.h>

#include "tokenbench/telemetry/prometheus.h"

namespace tokenbench::report {
namespace {

TEST(PrometheusExport, EveryNumericFigureIsAGaugeLabelledWithTheRun) {
  const nlohmann::json summary = nlohmann::json::parse(R"({
    "model_id": "llama \"8b\"", "backend": "openai-chat", "date": "20261203-110504",
    "completed": 300, "p99_ttft_ms": 1403.25, "request_goodput": null, "duration": 8.9,
    "tokenbench": {
      "environment": {"labels": {"gpu": "H100", "engine-rev": "abc"}},
      "server": {"speculative_decoding": {"acceptance_rate": 0.5, "acceptance_length": 2.5}},
      "mix": {"kind": "lora", "members": [
        {"name": "a", "completed": 180, "median_ttft_ms": 138.7, "p95_ttft_ms": null},
        {"name": "b", "completed": 120, "median_ttft_ms": 158.4}]}}})");
  const std::string text = summary_to_prometheus(summary);
  const telemetry::Exposition e = telemetry::parse_exposition(text);
  const std::vector<telemetry::Label> run{{"model", "llama \"8b\""},
                                          {"backend", "openai-chat"},
                                          {"label_engine_rev", "abc"},
                                          {"label_gpu", "H100"}};
  EXPECT_EQ(telemetry::sum_of(e, "tokenbench_completed", {}, run), 300);
  EXPECT_EQ(telemetry::sum_of(e, "tokenbench_p99_ttft_ms", {}, run), 1403.25);
  EXPECT_EQ(e.find("tokenbench_request_goodput"), nullptr);  // undefined: left out, not NaN
  EXPECT_EQ(telemetry::sum_of(e, "tokenbench_run_info", {}, {{"date", "20261203-110504"}}), 1);
  EXPECT_EQ(telemetry::sum_of(e, "tokenbench_spec_decode_acceptance_length"), 2.5);
  EXPECT_EQ(telemetry::sum_of(e, "tokenbench_mix_median_ttft_ms", {}, {{"adapter", "b"}}), 158.4);
  EXPECT_EQ(telemetry::sum_of(e, "tokenbench_mix_completed"), 300);
  const telemetry::Family* completed = e.find("tokenbench_completed");
  ASSERT_NE(completed, nullptr);
  EXPECT_EQ(completed->type, telemetry::MetricType::kGauge);
  EXPECT_EQ(completed->help, "summary.json's completed");
}

}  // namespace
}  // namespace tokenbench::report
