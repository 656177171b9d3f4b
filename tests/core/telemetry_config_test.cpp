// --server-metrics, --gpu-metrics and --label in the configuration: parsed once by the option
// table, and echoed by config.yaml.

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <variant>

#include "tokenbench/core/config_check.h"
#include "tokenbench/core/run_config.h"
#include "tokenbench/core/run_options.h"

namespace tokenbench::core {
namespace {

// What the option table makes of `text` given to `flag`: "" when accepted, else its message.
std::string refusal(const char* flag, const std::string& text) {
  const RunOption* row = find_option_by_flag(flag);
  EXPECT_NE(row, nullptr) << flag;
  RunConfig c;
  if (std::get<TextField>(row->field).set(c, text)) return "";
  return fmt::format(fmt::runtime(row->unknown), text, std::get<TextField>(row->field).names());
}

TEST(TelemetryConfig, GpuMetricsValues) {
  for (const char* ok : {"auto", "off", "nvidia-smi", "dcgm=http://node:9400/metrics",
                         "dcgm=https://node/metrics"}) {
    EXPECT_EQ(refusal("--gpu-metrics", ok), "") << ok;
    EXPECT_EQ(to_string(*parse_gpu_metrics(ok)), ok);
  }
  EXPECT_EQ(parse_gpu_metrics("dcgm=http://node:9400/metrics")->url, "http://node:9400/metrics");
  EXPECT_EQ(parse_gpu_metrics("nvidia-smi")->mode, GpuMetricsSource::Mode::kNvidiaSmi);
  for (const char* bad : {"nvidia", "dcgm=node:9400", "dcgm=", "on"}) {
    EXPECT_EQ(
        refusal("--gpu-metrics", bad).rfind("--gpu-metrics '" + std::string(bad) + "' is not", 0),
        0u)
        << refusal("--gpu-metrics", bad);
  }
  EXPECT_EQ(refusal("--gpu-metrics", "on"),
            "--gpu-metrics 'on' is not auto, nvidia-smi, off or dcgm=URL (an http(s):// URL of "
            "a DCGM exporter's /metrics)");
}

TEST(TelemetryConfig, ServerMetricsValues) {
  RunConfig c;
  EXPECT_EQ(server_metrics_source(c), ServerMetricsSource{});  // auto: the replicas, no URL
  c.server_metrics = {"off"};
  EXPECT_TRUE(server_metrics_source(c).off);
  c.server_metrics = {"auto", "https://h:9/metrics?k=v", "http://p:8001/metrics,name=prefill"};
  const ServerMetricsSource s = server_metrics_source(c);
  EXPECT_FALSE(s.off);
  EXPECT_EQ(s.urls, (std::vector<MetricsUrl>{{"https://h:9/metrics?k=v", ""},
                                             {"http://p:8001/metrics", "prefill"}}));
  const auto refusal_of = [](std::vector<std::string> values) {
    RunConfig bad;
    bad.server_metrics = std::move(values);
    try {
      server_metrics_source(bad);
    } catch (const ConfigError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_EQ(refusal_of({"h:9/metrics"}),
            "--server-metrics 'h:9/metrics' is not auto, off or an http(s):// URL with an "
            "optional ,name=NAME (letters, digits, - _ . :)");
  EXPECT_NE(refusal_of({"http://h/metrics,name=a b"}), "");
  EXPECT_NE(refusal_of({"http://h/metrics,name="}), "");
  EXPECT_EQ(refusal_of({"off", "http://h/metrics"}),
            "--server-metrics off scrapes nothing, yet a URL was given too: drop one of them");
}

TEST(TelemetryConfig, YamlKeepsServerMetricsAsGivenWithCredentialsCut) {
  RunConfig c;
  EXPECT_NE(to_yaml(c).find("server_metrics: auto\n"), std::string::npos);
  c.server_metrics = {"http://d:8002/metrics?api_key=sk-secret-123456,name=decode",
                      "http://p:8001/metrics"};
  const std::string yaml = to_yaml(c);
  EXPECT_EQ(yaml.find("sk-secret"), std::string::npos) << yaml;
  EXPECT_NE(yaml.find(",name=decode"), std::string::npos) << yaml;
  const RunConfig back = run_config_from_yaml(yaml);
  ASSERT_EQ(back.server_metrics.size(), 2u);
  EXPECT_EQ(back.server_metrics[1], "http://p:8001/metrics");
  EXPECT_EQ(server_metrics_source(back).urls[0].name, "decode");
}

TEST(TelemetryConfig, YamlEchoesGpuMetricsAndLabels) {
  RunConfig c;
  c.gpu_metrics = *parse_gpu_metrics("dcgm=http://node:9400/metrics");
  c.labels = {"cuda=12.4", "weights=rev-abc"};
  const std::string yaml = to_yaml(c);
  EXPECT_NE(yaml.find("gpu_metrics: dcgm=http://node:9400/metrics"), std::string::npos) << yaml;
  const RunConfig back = run_config_from_yaml(yaml);
  EXPECT_EQ(back.gpu_metrics, c.gpu_metrics);
  EXPECT_EQ(back.labels, c.labels);
  EXPECT_EQ(run_config_from_yaml("load: {}\n").gpu_metrics.mode, GpuMetricsSource::Mode::kAuto);
  EXPECT_THROW(run_config_from_yaml("load:\n  gpu_metrics: on\n"), std::runtime_error);
}

}  // namespace
}  // namespace tokenbench::core
