// End to end: `run --otlp-endpoint` and `report DIR --otlp-endpoint` post the run's figures to a
// loopback collector that checks the body against ExportMetricsServiceRequest's JSON encoding;
// a collector that refuses costs a warning and nothing else; --otlp-header never reaches the
// results directory.

#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "../support/otlp_schema.h"
#include "otlp_collector.h"
#include "process.h"

namespace tokenbench::e2e {
namespace {

using nlohmann::json;

const json* metric(const json& request, const std::string& name) {
  for (const auto& m : request["resourceMetrics"][0]["scopeMetrics"][0]["metrics"]) {
    if (m["name"] == name) return &m;
  }
  return nullptr;
}

std::map<std::string, json> resource_of(const json& request) {
  std::map<std::string, json> out;
  for (const auto& kv : request["resourceMetrics"][0]["resource"]["attributes"]) {
    out[kv["key"]] = kv["value"];
  }
  return out;
}

// One posted export, checked against the schema.
json checked_body(const Posted& p) {
  EXPECT_EQ(p.request_line, "POST /v1/metrics HTTP/1.1");
  EXPECT_NE(p.head.find("Content-Type: application/json"), std::string::npos) << p.head;
  const json body = json::parse(p.body);
  EXPECT_EQ(testing::otlp_metrics_problems(body), std::vector<std::string>{});
  return body;
}

TEST(OtlpExport, RunPostsTheGenAiMetricsWithTheLabelsOnTheResource) {
  SimProcess sim({"--ttft-ms", "5", "--itl-ms", "1"});
  OtlpCollector collector;
  const std::string dir = make_temp_dir("otlp") + "/run-otlp";
  const auto r = run_process(
      run_args(sim.url(), dir,
               {"--num-prompts", "5", "--input-len", "16", "--output-len", "4", "--label",
                "gpu=H100", "--otlp-endpoint", collector.url(), "--otlp-header", "x-tenant=acme"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("sent the figures to " + collector.url() + "/v1/metrics (OTLP)"),
            std::string::npos)
      << r.err;
  const auto posted = collector.posted();
  ASSERT_EQ(posted.size(), 1u);
  EXPECT_NE(posted[0].head.find("x-tenant: acme"), std::string::npos) << posted[0].head;
  const json body = checked_body(posted[0]);

  const auto resource = resource_of(body);
  EXPECT_EQ(resource.at("service.name")["stringValue"], "tokenbench");
  EXPECT_EQ(resource.at("gpu")["stringValue"], "H100");
  EXPECT_EQ(resource.at("tokenbench.run.id")["stringValue"], "run-otlp");
  const std::map<std::string, std::string> units{{"gen_ai.client.operation.duration", "s"},
                                                 {"gen_ai.server.time_to_first_token", "s"},
                                                 {"gen_ai.server.time_per_output_token", "s"},
                                                 {"gen_ai.client.token.usage", "{token}"}};
  for (const auto& [name, unit] : units) {
    const json* m = metric(body, name);
    ASSERT_NE(m, nullptr) << name;
    EXPECT_EQ((*m)["unit"], unit) << name;
    EXPECT_EQ((*m)["histogram"]["aggregationTemporality"], 2) << name;
  }
  const json summary = read_json(dir + "/summary.json");
  const json& duration = (*metric(body, "gen_ai.client.operation.duration"))["histogram"];
  ASSERT_EQ(duration["dataPoints"].size(), 1u);  // no failures: one attribute set
  EXPECT_EQ(duration["dataPoints"][0]["count"], std::to_string(summary["completed"].get<int>()));
  std::map<std::string, json> attributes;
  for (const auto& kv : duration["dataPoints"][0]["attributes"])
    attributes[kv["key"]] = kv["value"];
  EXPECT_EQ(attributes["gen_ai.operation.name"]["stringValue"], "chat");
  EXPECT_EQ(attributes["gen_ai.request.model"]["stringValue"], "sim-model");
  EXPECT_EQ(attributes["server.address"]["stringValue"], "127.0.0.1");
  const json* throughput = metric(body, "tokenbench.request_throughput");
  ASSERT_NE(throughput, nullptr);
  EXPECT_DOUBLE_EQ((*throughput)["gauge"]["dataPoints"][0]["asDouble"].get<double>(),
                   summary["request_throughput"].get<double>());

  // A run made without it, exported later from its results directory.
  OtlpCollector later;
  const auto rep = run_process(
      {TOKENBENCH_BINARY, "report", dir, "--otlp-endpoint", later.url() + "/v1/metrics"});
  ASSERT_EQ(rep.exit_code, 0) << rep.err;
  ASSERT_EQ(later.posted().size(), 1u);
  const json again = checked_body(later.posted()[0]);
  EXPECT_EQ(
      (*metric(again,
               "gen_ai.client.operation.duration"))["histogram"]["dataPoints"][0]["bucketCounts"],
      duration["dataPoints"][0]["bucketCounts"]);
}

TEST(OtlpExport, ACollectorThatRefusesCostsAWarningNotTheRun) {
  SimProcess sim({"--ttft-ms", "2", "--itl-ms", "1"});
  OtlpCollector refusing(503);
  const std::string dir = make_temp_dir("otlp_refused");
  const auto r = run_process(run_args(sim.url(), dir,
                                      {"--num-prompts", "3", "--input-len", "16", "--output-len",
                                       "4", "--otlp-endpoint", refusing.url()}));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("tokenbench: warning: the OTLP export to " + refusing.url() +
                       "/v1/metrics was refused: HTTP 503; the results are unchanged"),
            std::string::npos)
      << r.err;
  EXPECT_TRUE(std::filesystem::exists(dir + "/summary.json"));

  unsigned short port = 0;
  close(testing::listen_on_loopback(port));  // nothing listens there
  const std::string nobody = "http://127.0.0.1:" + std::to_string(port);
  const auto rep = run_process({TOKENBENCH_BINARY, "report", dir, "--otlp-endpoint", nobody});
  EXPECT_EQ(rep.exit_code, 0) << rep.err;
  EXPECT_NE(
      rep.err.find("tokenbench: warning: the OTLP export to " + nobody + "/v1/metrics failed: "),
      std::string::npos)
      << rep.err;
}

TEST(OtlpExport, AnOtlpHeaderNeverReachesTheResults) {
  SimProcess sim({"--ttft-ms", "2", "--itl-ms", "1"});
  OtlpCollector collector;
  const std::string secret = "otlp-secret-token-9731";
  const std::string dir = make_temp_dir("otlp_secret");
  const auto r = run_process(run_args(
      sim.url(), dir,
      {"--num-prompts", "3", "--input-len", "16", "--output-len", "4", "--export", "csv",
       "--otlp-endpoint", collector.url(), "--otlp-header", "Authorization=Bearer " + secret}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ASSERT_EQ(collector.posted().size(), 1u);
  EXPECT_NE(collector.posted()[0].head.find("Authorization: Bearer " + secret), std::string::npos);
  EXPECT_EQ(r.out.find(secret), std::string::npos);
  EXPECT_EQ(r.err.find(secret), std::string::npos);
  int files = 0;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir)) {
    if (!e.is_regular_file()) continue;
    ++files;
    EXPECT_EQ(slurp(e.path().string()).find(secret), std::string::npos) << e.path();
  }
  EXPECT_GE(files, 5);  // summary.json, config.yaml, requests.jsonl, report.html, environment.json
  EXPECT_NE(slurp(dir + "/environment.json").find("Authorization=<redacted>"), std::string::npos);

  // Its value is never echoed by a usage error either.
  const auto bad = run_process(
      run_args(sim.url(), make_temp_dir("otlp_bad"),
               {"--otlp-endpoint", collector.url(), "--otlp-header", "Bearer " + secret}));
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_NE(bad.err.find("--otlp-header must look like NAME=VALUE"), std::string::npos) << bad.err;
  EXPECT_EQ(bad.err.find(secret), std::string::npos);
}

}  // namespace
}  // namespace tokenbench::e2e
