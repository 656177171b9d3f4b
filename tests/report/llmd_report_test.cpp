// report --as llm-d: llm-d-benchmark's benchmark report v0.2 from a summary.json, field for
// field, checked against the schema's rules (tests/support/llmd_schema.h: llm-d/llm-d-benchmark
// 8bc9f1dd, llmdbenchmark/analysis/benchmark_report/br_v0_2_json_schema.json and
// schema_v0_2.py's unit checks).

#include "tokenbench/report/llmd_report.h"

#include <gtest/gtest.h>

#include "../support/llmd_schema.h"

namespace tokenbench::report {
namespace {

using nlohmann::json;

json summary() {
  return json::parse(R"({
    "completed": 98, "failed": 2, "request_throughput": 9.5, "output_throughput": 1216.0,
    "total_token_throughput": 10944.0, "request_goodput": null,
    "tokenbench": {
      "started_at": "2026-12-03T10:00:00Z",
      "requests": {"measured": 100, "completed": 98, "failed": 2, "canceled": 1},
      "config": {"dataset": "random", "input_len": 1024},
      "distributions": {
        "ttft_ms": {"count": 98, "mean": 41.5, "std": 3.25, "min": 30.0, "max": 60.0,
                    "median": 41.0, "percentiles": {"p50": 41.0, "p90": 50.0, "p99": 59.0,
                                                    "p99.9": 59.9, "p99.99": 60.0}},
        "tpot_ms": {"count": 98, "mean": 8.0, "std": 0.5, "min": 7.0, "max": 9.0,
                    "median": 8.0, "percentiles": {"p50": 8.0}},
        "itl_ms": {"count": 12446, "mean": 7.9, "std": 1.0, "min": 0.1, "max": 20.0,
                   "median": 7.8, "percentiles": {"p50": 7.8}},
        "e2el_ms": {"count": 98, "mean": 1060.0, "std": 30.0, "min": 1000.0, "max": 1100.0,
                    "median": 1058.0, "percentiles": {"p50": 1058.0}},
        "input_tokens": {"count": 98, "mean": 1024.0, "std": 0.0, "min": 1024, "max": 1024,
                         "median": 1024.0, "percentiles": {"p50": 1024.0}},
        "output_tokens": {"count": 98, "mean": 128.0, "std": 0.0, "min": 128, "max": 128,
                          "median": 128.0, "percentiles": {"p50": 128.0}},
        "decode_tps": {"count": 0, "mean": null}}}})");
}

core::RunConfig config() {
  core::RunConfig c;
  c.dataset = core::Dataset::kRandom;
  c.input_len = 1024;
  c.output_len = 128;
  c.output_len_from_dataset = false;
  c.max_concurrency = 16;
  return c;
}

TEST(LlmdReport, MapsTheSummaryFieldForField) {
  const json br = summary_to_llmd_report(summary(), config(), "run-7");
  EXPECT_EQ(testing::llmd_report_problems(br), std::vector<std::string>{});
  EXPECT_EQ(br["version"], "0.2");
  EXPECT_EQ(br["run"],
            json::parse(R"({"uid": "run-7", "time": {"start": "2026-12-03T10:00:00Z"}})"));
  const json& load = br["scenario"]["load"]["standardized"];
  EXPECT_EQ(load["tool"], "tokenbench");
  EXPECT_EQ(load["source"], "random");
  EXPECT_EQ(load["input_seq_len"], json::parse(R"({"distribution": "fixed", "value": 1024})"));
  EXPECT_EQ(load["output_seq_len"], json::parse(R"({"distribution": "fixed", "value": 128})"));
  EXPECT_EQ(load["concurrency"], 16);
  EXPECT_FALSE(load.contains("rate_qps"));  // infinite: all at once, no rate
  EXPECT_EQ(br["scenario"]["load"]["native"]["config"]["input_len"], 1024);

  const json& agg = br["results"]["request_performance"]["aggregate"];
  EXPECT_EQ(agg["requests"]["total"], 101);  // measured + canceled
  EXPECT_EQ(agg["requests"]["failures"], 2);
  EXPECT_EQ(agg["requests"]["incomplete"], 1);
  EXPECT_EQ(agg["requests"]["input_length"]["units"], "count");
  EXPECT_EQ(agg["latency"]["time_to_first_token"],
            json::parse(R"({"units": "ms", "mean": 41.5, "stddev": 3.25, "min": 30.0,
                            "max": 60.0, "p50": 41.0, "p90": 50.0, "p99": 59.0,
                            "p99p9": 59.9})"));  // p99.99 has no field: left out
  EXPECT_EQ(agg["latency"]["time_per_output_token"]["units"], "ms/token");
  EXPECT_EQ(agg["latency"]["inter_token_latency"]["mean"], 7.9);
  EXPECT_EQ(agg["latency"]["request_latency"]["units"], "ms");
  EXPECT_FALSE(agg["latency"].contains("normalized_time_per_output_token"));
  EXPECT_EQ(agg["throughput"]["request_rate"],
            json::parse(R"({"units": "queries/s", "mean": 9.5})"));
  EXPECT_EQ(agg["throughput"]["output_token_rate"]["mean"], 1216.0);
  EXPECT_EQ(agg["throughput"]["total_token_rate"]["units"], "tokens/s");
  EXPECT_FALSE(agg["throughput"].contains("input_token_rate"));
}

TEST(LlmdReport, WhatTokenbenchDidNotDecideIsOtherOrLeftOut) {
  core::RunConfig c = config();
  c.dataset = core::Dataset::kShareGpt;
  c.output_len_from_dataset = true;
  c.max_concurrency = 0;
  c.request_rate = 4;
  json s = summary();
  s["tokenbench"]["distributions"]["ttft_ms"] = {{"count", 0}, {"mean", nullptr}};
  const json br = summary_to_llmd_report(s, c, "r");
  EXPECT_EQ(testing::llmd_report_problems(br), std::vector<std::string>{});
  const json& load = br["scenario"]["load"]["standardized"];
  EXPECT_EQ(load["source"], "sampled");
  EXPECT_EQ(load["input_seq_len"], json::parse(R"({"distribution": "other", "value": 1024.0})"));
  EXPECT_FALSE(load.contains("output_seq_len"));  // the dataset's own lengths
  EXPECT_FALSE(load.contains("concurrency"));
  EXPECT_EQ(load["rate_qps"], 4.0);
  EXPECT_FALSE(br["results"]["request_performance"]["aggregate"]["latency"].contains(
      "time_to_first_token"));  // no value: no Statistics (the schema requires a mean)

  core::RunConfig normal = config();
  normal.input_dist = "normal:512,64";
  normal.output_dist = "uniform:16,256";
  const json nb = summary_to_llmd_report(summary(), normal, "n");
  EXPECT_EQ(testing::llmd_report_problems(nb), std::vector<std::string>{});
  EXPECT_EQ(nb["scenario"]["load"]["standardized"]["input_seq_len"],
            json::parse(R"({"distribution": "gaussian", "value": 512.0, "std_dev": 64.0})"));
  EXPECT_EQ(nb["scenario"]["load"]["standardized"]["output_seq_len"],
            json::parse(R"({"distribution": "uniform", "value": 136.0, "min": 16, "max": 256})"));
}

TEST(LlmdReport, TheSchemaCheckRefusesWhatTheModelRefuses) {
  json br = summary_to_llmd_report(summary(), config(), "run-7");
  br["results"]["request_performance"]["aggregate"]["latency"]["time_to_first_token"]["units"] =
      "ms/token";
  br["run"].erase("uid");
  br["scenario"]["load"]["standardized"]["source"] = "synthetic";
  br["results"]["request_performance"]["aggregate"]["requests"]["P25"] = 1;
  const std::string all = json(testing::llmd_report_problems(br)).dump();
  EXPECT_NE(all.find("time_to_first_token.units is not one of UNITS_TIME"), std::string::npos)
      << all;
  EXPECT_NE(all.find("$.run.uid is required"), std::string::npos) << all;
  EXPECT_NE(all.find("source is not a LoadSource"), std::string::npos) << all;
  EXPECT_NE(all.find("P25 is not a field of AggregateRequests"), std::string::npos) << all;
}

}  // namespace
}  // namespace tokenbench::report
