// The Prometheus / OpenMetrics text parser against the expositions of llama.cpp (captured), vLLM,
// SGLang and TGI (written from their documented metric names), and against broken and hostile
// input.

#include "tokenbench/telemetry/prometheus.h"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <sstream>

namespace tokenbench::telemetry {
namespace {

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string error_of(std::string_view text, const ParseLimits& limits = {}) {
  try {
    parse_exposition(text, limits);
  } catch (const ParseError& e) {
    return e.what();
  }
  return "";
}

TEST(Prometheus, LlamaCppCapture) {
  const std::string text =
      read_file(std::string(TOKENBENCH_FIXTURES_DIR) + "/llama-server-metrics.prom");
  ASSERT_FALSE(text.empty());
  const Exposition e = parse_exposition(text);
  EXPECT_FALSE(e.openmetrics);
  const Family* predicted = e.find("llamacpp:tokens_predicted_total");
  ASSERT_NE(predicted, nullptr);
  EXPECT_EQ(predicted->type, MetricType::kCounter);
  EXPECT_EQ(predicted->help, "Number of generation tokens processed.");
  EXPECT_EQ(sum_of(e, "llamacpp:tokens_predicted_total"), 60);
  EXPECT_EQ(sum_of(e, "llamacpp:prompt_tokens_total"), 8);
  EXPECT_EQ(sum_of(e, "llamacpp:requests_processing"), 0);
  EXPECT_EQ(e.find("llamacpp:requests_processing")->type, MetricType::kGauge);
  EXPECT_DOUBLE_EQ(*sum_of(e, "llamacpp:predicted_tokens_seconds"), 1052.63);
}

const char* kVllm =
    R"(# HELP vllm:num_requests_running Number of requests in model execution batches.
# TYPE vllm:num_requests_running gauge
vllm:num_requests_running{engine="0",model_name="m"} 7.0
# HELP vllm:generation_tokens_total Number of generation tokens processed.
# TYPE vllm:generation_tokens_total counter
vllm:generation_tokens_total{engine="0",model_name="m"} 1500.0
# HELP vllm:time_to_first_token_seconds Histogram of time to first token in seconds.
# TYPE vllm:time_to_first_token_seconds histogram
vllm:time_to_first_token_seconds_bucket{engine="0",le="0.01",model_name="m"} 0.0
vllm:time_to_first_token_seconds_bucket{engine="0",le="0.05",model_name="m"} 40.0
vllm:time_to_first_token_seconds_bucket{engine="0",le="0.1",model_name="m"} 90.0
vllm:time_to_first_token_seconds_bucket{engine="0",le="+Inf",model_name="m"} 100.0
vllm:time_to_first_token_seconds_count{engine="0",model_name="m"} 100.0
vllm:time_to_first_token_seconds_sum{engine="0",model_name="m"} 5.5
vllm:time_to_first_token_seconds_bucket{engine="1",le="0.01",model_name="m"} 10.0
vllm:time_to_first_token_seconds_bucket{engine="1",le="0.05",model_name="m"} 10.0
vllm:time_to_first_token_seconds_bucket{engine="1",le="0.1",model_name="m"} 10.0
vllm:time_to_first_token_seconds_bucket{engine="1",le="+Inf",model_name="m"} 10.0
vllm:time_to_first_token_seconds_count{engine="1",model_name="m"} 10.0
vllm:time_to_first_token_seconds_sum{engine="1",model_name="m"} 0.05
)";

TEST(Prometheus, VllmHistogramsSumOverSeriesAndGiveQuantiles) {
  const Exposition e = parse_exposition(kVllm);
  EXPECT_EQ(sum_of(e, "vllm:num_requests_running"), 7);
  EXPECT_EQ(sum_of(e, "vllm:generation_tokens_total"), 1500);
  const auto all = histogram_of(e, "vllm:time_to_first_token_seconds");
  ASSERT_TRUE(all);
  EXPECT_EQ(all->count, 110);
  EXPECT_DOUBLE_EQ(all->sum, 5.55);
  ASSERT_EQ(all->buckets.size(), 4u);
  EXPECT_EQ(all->buckets[0], (std::pair<double, double>{0.01, 10}));
  EXPECT_TRUE(std::isinf(all->buckets[3].first));
  const auto engine0 = histogram_of(e, "vllm:time_to_first_token_seconds", {{"engine", "0"}});
  ASSERT_TRUE(engine0);
  EXPECT_EQ(engine0->count, 100);
  // Rank 50 of 100 lies in (0.05, 0.1] holding 50 observations from cumulative 40: 0.05 + 0.05 x
  // 10/50 = 0.06, as Prometheus's histogram_quantile.
  EXPECT_NEAR(histogram_quantile(*engine0, 0.5), 0.06, 1e-12);
  // Rank 95 lies in +Inf: the highest finite bound.
  EXPECT_DOUBLE_EQ(histogram_quantile(*engine0, 0.95), 0.1);
  EXPECT_FALSE(histogram_of(e, "vllm:num_requests_running"));  // a gauge
}

TEST(Prometheus, BoundedQuantileOnlyWhereTheBucketsBoundIt) {
  // Everything in a first bucket of (0, 0.3]: interpolation says 0.15, the buckets say nothing.
  const Histogram coarse{{{0.3, 200}, {0.5, 200}, {INFINITY, 200}}, 0.8, 200};
  EXPECT_DOUBLE_EQ(histogram_quantile(coarse, 0.5), 0.15);
  EXPECT_TRUE(std::isnan(bounded_quantile(coarse, 0.5)));
  // A rank in (0.1, 0.25]: bounded within 2.5x.
  const Histogram fine{{{0.1, 10}, {0.25, 90}, {INFINITY, 100}}, 15, 100};
  EXPECT_NEAR(bounded_quantile(fine, 0.5), 0.1 + 0.15 * 40 / 80, 1e-12);
  // A rank in +Inf is unbounded.
  EXPECT_TRUE(std::isnan(bounded_quantile(fine, 0.95)));
}

TEST(Prometheus, HistogramDeltaIsTheObservationsBetweenScrapes) {
  Histogram before{{{0.1, 5}, {1, 8}, {INFINITY, 10}}, 3.0, 10};
  Histogram after{{{0.1, 7}, {1, 18}, {INFINITY, 20}}, 9.0, 20};
  const Histogram d = histogram_delta(after, before);
  EXPECT_EQ(d.count, 10);
  EXPECT_DOUBLE_EQ(d.sum, 6.0);
  EXPECT_EQ(d.buckets[0].second, 2);
  EXPECT_EQ(d.buckets[1].second, 10);
  EXPECT_EQ(d.buckets[2].second, 10);
  // A restarted server (counters reset): the later scrape alone.
  EXPECT_EQ(histogram_delta(before, after).count, 10);
}

TEST(Prometheus, SglangAndTgiShapes) {
  const Exposition sglang = parse_exposition(
      "# HELP sglang:num_running_reqs The number of running requests.\n"
      "# TYPE sglang:num_running_reqs gauge\n"
      "sglang:num_running_reqs{model_name=\"m\"} 12.0\n"
      "# TYPE sglang:token_usage gauge\n"
      "sglang:token_usage{model_name=\"m\"} 0.42\n"
      "# TYPE sglang:prompt_tokens_total counter\n"
      "sglang:prompt_tokens_total{model_name=\"m\"} 1.2e+06\n");
  EXPECT_EQ(sum_of(sglang, "sglang:num_running_reqs"), 12);
  EXPECT_EQ(sum_of(sglang, "sglang:prompt_tokens_total"), 1.2e6);
  const Exposition tgi = parse_exposition(
      "# TYPE tgi_queue_size gauge\n"
      "tgi_queue_size 3\n"
      "# TYPE tgi_request_queue_duration histogram\n"
      "tgi_request_queue_duration_bucket{le=\"0.005\"} 1\n"
      "tgi_request_queue_duration_bucket{le=\"+Inf\"} 4\n"
      "tgi_request_queue_duration_sum 0.7\n"
      "tgi_request_queue_duration_count 4\n"
      "tgi_request_count 42\n");
  EXPECT_EQ(sum_of(tgi, "tgi_queue_size"), 3);
  EXPECT_EQ(histogram_of(tgi, "tgi_request_queue_duration")->count, 4);
  // A sample without # TYPE is its own untyped family.
  ASSERT_NE(tgi.find("tgi_request_count"), nullptr);
  EXPECT_EQ(tgi.find("tgi_request_count")->type, MetricType::kUntyped);
  EXPECT_EQ(sum_of(tgi, "tgi_request_count"), 42);
}

TEST(Prometheus, OpenMetricsCountersExemplarsTimestampsAndEof) {
  const Exposition e = parse_exposition(
      "# TYPE requests counter\n"
      "# UNIT requests requests\n"
      "# HELP requests Requests served.\\nSecond line, a backslash \\\\ too.\n"
      "requests_total{path=\"/v1/chat/completions\"} 17 1700000000.123 # {trace_id=\"abc\"} 1 "
      "1700000000\n"
      "requests_created{path=\"/v1/chat/completions\"} 1700000000\n"
      "# TYPE build info\n"
      "build_info{version=\"1.0\"} 1\n"
      "# EOF\n");
  EXPECT_TRUE(e.openmetrics);
  const Family* f = e.find("requests");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->type, MetricType::kCounter);
  EXPECT_EQ(f->unit, "requests");
  EXPECT_EQ(f->help, "Requests served.\nSecond line, a backslash \\ too.");
  EXPECT_EQ(f->samples.size(), 2u);
  EXPECT_EQ(sum_of(e, "requests"), 17);  // the _total sample
  EXPECT_EQ(e.find("build")->samples.at(0).label("version"), "1.0");
}

TEST(Prometheus, LabelEscapesSpecialValuesAndOddSpacing) {
  const Exposition e = parse_exposition(
      "m{a=\"quote \\\" slash \\\\ newline \\n end\", b = \"x\" ,} NaN\n"
      "n +Inf\n"
      "o -Inf\r\n"
      "p 1e-3\n");
  const auto& s = e.find("m")->samples.at(0);
  EXPECT_EQ(s.label("a"), "quote \" slash \\ newline \n end");
  EXPECT_EQ(s.label("b"), "x");
  EXPECT_TRUE(std::isnan(s.value));
  EXPECT_TRUE(std::isinf(*sum_of(e, "n")));
  EXPECT_LT(*sum_of(e, "o"), 0);
  EXPECT_DOUBLE_EQ(*sum_of(e, "p"), 0.001);
}

TEST(Prometheus, BrokenInputNamesTheLine) {
  EXPECT_EQ(error_of("ok 1\nbad{a=\"x\\q\"} 1\n"),
            "line 2: bad escape '\\q' in a label value (only \\\\, \\\" and \\n)");
  EXPECT_EQ(error_of("m{a=\"open} 1\n"), "line 1: a label value is not closed with '\"'");
  EXPECT_EQ(error_of("m one\n"), "line 1: 'one' is not a number");
  EXPECT_EQ(error_of("m\n"), "line 1: a space and a value were expected");
  EXPECT_EQ(error_of("# TYPE m sometimes\n"), "line 1: unknown metric type 'sometimes' for m");
  EXPECT_EQ(error_of("9m 1\n"), "line 1: a metric or label name was expected");
  EXPECT_EQ(error_of("m 1\n# EOF\nn 2\n"), "line 3: text after '# EOF'");
  EXPECT_EQ(error_of("m{a=\"x\" b=\"y\"} 1\n"), "line 1: ',' or '}' was expected after a label");
}

TEST(Prometheus, HostileInputIsRefusedWithinBounds) {
  // One huge line.
  const std::string huge = "m{a=\"" + std::string(1 << 20, 'x') + "\"} 1\n";
  EXPECT_EQ(error_of(huge), "line 1: 1048585 bytes, over the 65536 bytes accepted for one line");
  // A million series: refused once over the sample bound, not held.
  std::string many;
  many.reserve(20 << 20);
  for (int i = 0; i < 1'000'000; ++i) many += "s{i=\"" + std::to_string(i) + "\"} 1\n";
  EXPECT_EQ(error_of(many), "line 200001: more than 200000 samples in one scrape");
  // A whole body over the byte bound is refused before parsing.
  ParseLimits small;
  small.max_bytes = 1024;
  EXPECT_EQ(error_of(std::string(2048, '#'), small),
            "the exposition is 2048 bytes, over the 1024 bytes accepted");
}

}  // namespace
}  // namespace tokenbench::telemetry
