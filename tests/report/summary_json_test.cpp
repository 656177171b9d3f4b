#include "tokenbench/report/summary_json.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "../metrics/test_records.h"
#include "tokenbench/metrics/summary.h"

namespace tokenbench::report {
namespace {

core::RunConfig hand_built_config() {
  core::RunConfig config;
  config.model = "meta-llama/Llama-3.1-8B-Instruct";
  config.num_prompts = 3;
  config.started_at = "2025-03-04T05:06:07Z";
  config.headers = {"Authorization: Bearer sk-secret-value"};
  config.goodput = {"ttft:150"};
  return config;
}

nlohmann::json hand_built_json(std::vector<double> percentiles = {50, 90, 95, 99}) {
  metrics::SummaryOptions options;
  options.percentiles = std::move(percentiles);
  options.slo = metrics::parse_slo({"ttft:150"});
  return summary_to_json(metrics::summarize(test_records::hand_built_run(), options),
                         hand_built_config());
}

TEST(SummaryJsonTest, PercentileWordFollowsVllm) {
  EXPECT_EQ(percentile_word(99), "99");
  EXPECT_EQ(percentile_word(50.0), "50");
  EXPECT_EQ(percentile_word(99.9), "99.9");
  EXPECT_EQ(percentile_word(12.5), "12.5");
}

TEST(SummaryJsonTest, HasEveryVllmKeyWithTheHandComputedValues) {
  const nlohmann::json j = hand_built_json();
  EXPECT_EQ(j.at("date"), "20250304-050607");
  EXPECT_EQ(j.at("backend"), "openai-chat");
  EXPECT_EQ(j.at("endpoint_type"), "openai-chat");
  EXPECT_EQ(j.at("model_id"), "meta-llama/Llama-3.1-8B-Instruct");
  EXPECT_EQ(j.at("num_prompts"), 3);
  EXPECT_EQ(j.at("request_rate"), "inf");
  EXPECT_DOUBLE_EQ(j.at("burstiness").get<double>(), 1.0);
  EXPECT_TRUE(j.at("max_concurrency").is_null());
  EXPECT_DOUBLE_EQ(j.at("duration").get<double>(), 0.4);
  EXPECT_EQ(j.at("completed"), 2);
  EXPECT_EQ(j.at("failed"), 1);
  EXPECT_EQ(j.at("total_input_tokens"), 30);
  EXPECT_EQ(j.at("total_output_tokens"), 7);
  EXPECT_DOUBLE_EQ(j.at("request_throughput").get<double>(), 5.0);
  EXPECT_DOUBLE_EQ(j.at("request_goodput").get<double>(), 2.5);
  EXPECT_DOUBLE_EQ(j.at("output_throughput").get<double>(), 17.5);
  EXPECT_DOUBLE_EQ(j.at("total_token_throughput").get<double>(), 92.5);

  EXPECT_DOUBLE_EQ(j.at("mean_ttft_ms").get<double>(), 150.0);
  EXPECT_DOUBLE_EQ(j.at("median_ttft_ms").get<double>(), 150.0);
  EXPECT_DOUBLE_EQ(j.at("std_ttft_ms").get<double>(), 50.0);
  EXPECT_DOUBLE_EQ(j.at("p50_ttft_ms").get<double>(), 150.0);
  EXPECT_DOUBLE_EQ(j.at("p90_ttft_ms").get<double>(), 190.0);
  EXPECT_DOUBLE_EQ(j.at("p95_ttft_ms").get<double>(), 195.0);
  EXPECT_DOUBLE_EQ(j.at("p99_ttft_ms").get<double>(), 199.0);
  EXPECT_DOUBLE_EQ(j.at("mean_tpot_ms").get<double>(), 15.0);
  EXPECT_DOUBLE_EQ(j.at("std_tpot_ms").get<double>(), 5.0);
  EXPECT_DOUBLE_EQ(j.at("p99_tpot_ms").get<double>(), 19.9);
  EXPECT_DOUBLE_EQ(j.at("mean_itl_ms").get<double>(), 16.0);
  EXPECT_DOUBLE_EQ(j.at("median_itl_ms").get<double>(), 20.0);
  EXPECT_DOUBLE_EQ(j.at("std_itl_ms").get<double>(), std::sqrt(24.0));
  EXPECT_DOUBLE_EQ(j.at("p90_itl_ms").get<double>(), 20.0);
  EXPECT_DOUBLE_EQ(j.at("mean_e2el_ms").get<double>(), 190.0);
  EXPECT_DOUBLE_EQ(j.at("std_e2el_ms").get<double>(), 70.0);
  EXPECT_DOUBLE_EQ(j.at("p99_e2el_ms").get<double>(), 258.6);

  for (const char* metric : {"ttft", "tpot", "itl", "e2el"}) {
    for (const char* stat : {"mean", "median", "std", "p50", "p90", "p95", "p99"}) {
      const std::string key = std::string(stat) + "_" + metric + "_ms";
      EXPECT_TRUE(j.contains(key)) << key;
    }
  }
  // Console-only percentiles stay out of the vLLM keys.
  EXPECT_FALSE(j.contains("p66_ttft_ms"));
}

TEST(SummaryJsonTest, NonIntegerPercentileKeys) {
  const nlohmann::json j = hand_built_json({99.9});
  ASSERT_TRUE(j.contains("p99.9_ttft_ms"));
  EXPECT_DOUBLE_EQ(j.at("p99.9_ttft_ms").get<double>(), 199.9);
  EXPECT_TRUE(j.contains("p99_ttft_ms"));  // the vLLM defaults are always present
}

TEST(SummaryJsonTest, NestedSectionCarriesTheDetail) {
  const nlohmann::json tb = hand_built_json().at("tokenbench");
  EXPECT_EQ(tb.at("requests").at("warmup"), 1);
  EXPECT_EQ(tb.at("errors").at("by_class").at("http_5xx"), 1);
  EXPECT_EQ(tb.at("errors").at("by_http_status").at("503"), 1);
  EXPECT_EQ(tb.at("max_concurrency_observed"), 3);
  EXPECT_EQ(tb.at("goodput").at("good_completed"), 1);
  EXPECT_DOUBLE_EQ(tb.at("goodput").at("slo").at("ttft_ms").get<double>(), 150.0);
  EXPECT_EQ(tb.at("token_sources").at("output").at("usage"), 2);
  const auto& d = tb.at("distributions");
  for (const char* name :
       {"ttft_ms", "tpot_ms", "itl_ms", "itl_per_token_ms", "e2el_ms", "decode_tps", "total_tps",
        "queue_time_ms", "input_tokens", "output_tokens"}) {
    EXPECT_TRUE(d.contains(name)) << name;
  }
  EXPECT_EQ(d.at("itl_ms").at("count"), 5);
  EXPECT_DOUBLE_EQ(d.at("ttft_ms").at("percentiles").at("p66").get<double>(), 166.0);
  EXPECT_EQ(tb.at("config").at("model"), "meta-llama/Llama-3.1-8B-Instruct");
  EXPECT_TRUE(tb.at("warnings").is_array());
}

TEST(SummaryJsonTest, NoSecretsAndNoNaN) {
  const std::string text = hand_built_json().dump();
  EXPECT_EQ(text.find("sk-secret-value"), std::string::npos);
  EXPECT_EQ(text.find("NaN"), std::string::npos);
}

TEST(SummaryJsonTest, UndefinedFiguresAreNull) {
  core::RunConfig config;
  config.request_rate = 12.5;
  config.max_concurrency = 8;
  const nlohmann::json j = summary_to_json(metrics::summarize({}, {}), config);
  EXPECT_DOUBLE_EQ(j.at("request_rate").get<double>(), 12.5);
  EXPECT_EQ(j.at("max_concurrency"), 8);
  EXPECT_TRUE(j.at("duration").is_null());
  EXPECT_TRUE(j.at("mean_ttft_ms").is_null());
  EXPECT_TRUE(j.at("p99_e2el_ms").is_null());
  EXPECT_TRUE(j.at("request_goodput").is_null());
  EXPECT_EQ(j.at("completed"), 0);
}

}  // namespace
}  // namespace tokenbench::report
