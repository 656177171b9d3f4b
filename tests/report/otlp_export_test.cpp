// --otlp-endpoint's export: the GenAI histograms of a hand-made set of records, bucket for
// bucket, and the whole request checked against ExportMetricsServiceRequest's JSON encoding.

#include "tokenbench/report/otlp_export.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "../support/otlp_schema.h"

namespace tokenbench::report {
namespace {

using nlohmann::json;

constexpr core::Nanos kMs = 1'000'000;

core::RequestRecord streamed(core::Nanos sent_ms, core::Nanos first_ms, core::Nanos last_ms,
                             std::int64_t prompt, std::int64_t output) {
  core::RequestRecord r;
  r.sent = sent_ms * kMs;
  r.first_token = first_ms * kMs;
  r.last_token = last_ms * kMs;
  r.done = last_ms * kMs + kMs;
  r.prompt_tokens = prompt;
  r.prompt_source = core::TokenSource::kUsage;
  r.output_tokens = output;
  r.output_source = core::TokenSource::kUsage;
  return r;
}

core::RunConfig config() {
  core::RunConfig c;
  c.api = core::ApiKind::kOpenAIChat;
  c.model = "m";
  c.base_url = "http://10.0.0.5:8000";
  return c;
}

// Two successes, one failure; a warmup request, a retried attempt and a canceled request that
// no figure counts.
GenAiFigures figures() {
  GenAiFigures g(config());
  g.add(streamed(0, 30, 130, 100, 11));   // TTFT .030 s, E2EL .130 s, TPOT .010 s
  g.add(streamed(0, 5, 505, 2000, 101));  // TTFT .005 s, E2EL .505 s, TPOT .005 s
  core::RequestRecord failed;
  failed.sent = 10 * kMs;
  failed.done = 60 * kMs;  // .050 s
  failed.error = core::ErrorClass::kHttp5xx;
  failed.http_status = 503;
  g.add(failed);
  core::RequestRecord warm = streamed(0, 1, 2, 5, 5);
  warm.phase = core::Phase::kWarmup;
  g.add(warm);
  core::RequestRecord retried = failed;
  retried.retried = true;
  g.add(retried);
  core::RequestRecord canceled = failed;
  canceled.error = core::ErrorClass::kCanceled;
  g.add(canceled);
  return g;
}

std::vector<std::uint64_t> one_in(std::size_t buckets, std::vector<std::size_t> at) {
  std::vector<std::uint64_t> out(buckets, 0);
  for (const std::size_t i : at) ++out[i];
  return out;
}

TEST(OtlpExport, BucketsFollowTheConventionsBoundsUpperInclusive) {
  const GenAiFigures g = figures();
  const PointKey ok{};
  ASSERT_EQ(g.duration().size(), 2u);
  const ExplicitHistogram& e2el = g.duration().at(ok);
  EXPECT_EQ(e2el.count, 2u);
  EXPECT_DOUBLE_EQ(e2el.sum, 0.635);
  EXPECT_EQ(e2el.buckets, one_in(15, {4, 6}));  // (0.08, 0.16] and (0.32, 0.64]
  EXPECT_DOUBLE_EQ(e2el.min, 0.13);
  EXPECT_DOUBLE_EQ(e2el.max, 0.505);
  const ExplicitHistogram& failed = g.duration().at(PointKey{-1, 0, "http_5xx", ""});
  EXPECT_EQ(failed.count, 1u);
  EXPECT_DOUBLE_EQ(failed.sum, 0.05);
  EXPECT_EQ(failed.buckets, one_in(15, {3}));  // (0.04, 0.08]

  const ExplicitHistogram& ttft = g.ttft().at(ok);
  EXPECT_EQ(ttft.buckets, one_in(17, {4, 1}));  // (0.02, 0.04] and (0.001, 0.005]: inclusive
  EXPECT_DOUBLE_EQ(ttft.sum, 0.035);
  const ExplicitHistogram& tpot = g.tpot().at(ok);
  EXPECT_EQ(tpot.buckets, one_in(14, {0, 0}));  // 0.010 is the first bound: its bucket
  EXPECT_DOUBLE_EQ(tpot.sum, 0.015);

  const ExplicitHistogram& input = g.tokens().at(PointKey{-1, 0, "", "input"});
  EXPECT_EQ(input.buckets, one_in(15, {4, 6}));  // 100 in (64, 256], 2000 in (1024, 4096]
  EXPECT_DOUBLE_EQ(input.sum, 2100);
  const ExplicitHistogram& output = g.tokens().at(PointKey{-1, 0, "", "output"});
  EXPECT_EQ(output.buckets, one_in(15, {2, 4}));  // 11 in (4, 16], 101 in (64, 256]
  EXPECT_EQ(g.measure_end(), 506 * kMs);
}

TEST(OtlpExport, AttributesFollowTheConventions) {
  const GenAiFigures g = figures();
  const std::vector<OtlpAttribute> failed = g.attributes(PointKey{-1, 0, "http_5xx", ""});
  const std::vector<OtlpAttribute> want{{"gen_ai.operation.name", "chat"},
                                        {"gen_ai.provider.name", "openai"},
                                        {"gen_ai.request.model", "m"},
                                        {"server.address", "10.0.0.5"},
                                        {"server.port", 8000},
                                        {"error.type", "http_5xx"}};
  EXPECT_EQ(failed, want);
  core::RunConfig legacy = config();
  legacy.api = core::ApiKind::kOpenAICompletions;
  legacy.base_url = "https://[::1]/v1";
  const auto a = GenAiFigures(legacy).attributes(PointKey{-1, 0, "", "output"});
  ASSERT_EQ(a.size(), 6u);
  EXPECT_EQ(a[0].second, "text_completion");
  EXPECT_EQ(a[3].second, "::1");
  EXPECT_EQ(a[4].second, 443);
  EXPECT_EQ(a[5], OtlpAttribute("gen_ai.token.type", "output"));
}

const json* metric(const json& request, const std::string& name) {
  for (const auto& m : request["resourceMetrics"][0]["scopeMetrics"][0]["metrics"]) {
    if (m["name"] == name) return &m;
  }
  return nullptr;
}

TEST(OtlpExport, RequestIsExportMetricsServiceRequestJson) {
  const json summary = json::parse(R"({
    "date": "20261203-100000", "completed": 2, "failed": 1, "request_throughput": 3.5,
    "p99_ttft_ms": 29.75, "request_goodput": null, "model_id": "m",
    "tokenbench": {"started_at": "2026-12-03T10:00:00Z",
                   "environment": {"labels": {"gpu": "H100", "service.name": "not-this"}},
                   "mix": {"kind": "lora", "members": [{"name": "a", "completed": 2}]}}})");
  const json request = otlp_metrics_request(summary, figures(), OtlpRun{"run-1", 0});
  EXPECT_EQ(testing::otlp_metrics_problems(request), std::vector<std::string>{});

  const json& resource = request["resourceMetrics"][0]["resource"]["attributes"];
  EXPECT_EQ(resource, json::parse(R"([
    {"key": "service.name", "value": {"stringValue": "tokenbench"}},
    {"key": "service.version", "value": {"stringValue": "0.1.0"}},
    {"key": "tokenbench.run.id", "value": {"stringValue": "run-1"}},
    {"key": "gpu", "value": {"stringValue": "H100"}}])"));

  const json* duration = metric(request, "gen_ai.client.operation.duration");
  ASSERT_NE(duration, nullptr);
  EXPECT_EQ((*duration)["unit"], "s");
  EXPECT_EQ((*duration)["histogram"]["aggregationTemporality"], 2);
  const json& point = (*duration)["histogram"]["dataPoints"][0];
  EXPECT_EQ(point["count"], "2");
  EXPECT_EQ(point["bucketCounts"][4], "1");
  EXPECT_EQ(point["startTimeUnixNano"], "1796292000000000000");
  EXPECT_EQ(point["timeUnixNano"], "1796292000506000000");
  EXPECT_EQ(point["explicitBounds"].size(), kOperationDurationBounds.size());
  EXPECT_EQ(point["attributes"][4], json::parse(R"({"key": "server.port",
                                                    "value": {"intValue": "8000"}})"));
  const json* usage = metric(request, "gen_ai.client.token.usage");
  ASSERT_NE(usage, nullptr);
  EXPECT_EQ((*usage)["unit"], "{token}");
  EXPECT_EQ((*usage)["histogram"]["dataPoints"].size(), 2u);  // input, output

  const json* completed = metric(request, "tokenbench.completed");
  ASSERT_NE(completed, nullptr);
  EXPECT_EQ((*completed)["unit"], "{request}");
  EXPECT_EQ((*completed)["gauge"]["dataPoints"][0]["asDouble"], 2.0);
  EXPECT_EQ(metric(request, "tokenbench.p99_ttft_ms")->at("unit"), "ms");
  EXPECT_EQ(metric(request, "tokenbench.request_goodput"), nullptr);  // null: left out
  const json& member = metric(request, "tokenbench.mix.completed")->at("gauge")["dataPoints"][0];
  EXPECT_EQ(member["attributes"][2], json::parse(R"({"key": "gen_ai.request.model",
                                                     "value": {"stringValue": "a"}})"));
}

TEST(OtlpExport, SchemaCheckCatchesWhatAReceiverWouldMisread) {
  json bad = json::parse(R"({"resourceMetrics": [{"scopeMetrics": [{"metrics": [
    {"name": "x", "histogram": {"aggregationTemporality": 2, "dataPoints": [
      {"timeUnixNano": 5, "count": "3", "bucketCounts": ["1", "1"], "explicitBounds": [1, 2]}]}},
    {"name": "y", "gauge": {"dataPoints": [{"timeUnixNano": "1", "as_double": 1}]}}]}]}]})");
  const auto problems = testing::otlp_metrics_problems(bad);
  const std::string all = json(problems).dump();
  EXPECT_NE(all.find("timeUnixNano is not an unsigned 64-bit integer as a decimal string"),
            std::string::npos)
      << all;
  EXPECT_NE(all.find("2 bucketCounts for 2 explicitBounds"), std::string::npos) << all;
  EXPECT_NE(all.find("summing to 2, not its count"), std::string::npos) << all;
  EXPECT_NE(all.find("as_double is not a field of NumberDataPoint"), std::string::npos) << all;
  EXPECT_NE(all.find("must set exactly one of asDouble, asInt"), std::string::npos) << all;
}

TEST(OtlpExport, Iso8601) {
  EXPECT_EQ(iso8601_to_unix_ns("1970-01-01T00:00:01Z"), 1'000'000'000);
  EXPECT_EQ(iso8601_to_unix_ns("20261203-100000"), -1);
  EXPECT_EQ(iso8601_to_unix_ns("2026-12-03T10:00:00+01:00"), -1);
}

}  // namespace
}  // namespace tokenbench::report
