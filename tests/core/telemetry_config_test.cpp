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
  EXPECT_EQ(parse_server_metrics("auto")->mode, ServerMetricsSource::Mode::kAuto);
  EXPECT_EQ(parse_server_metrics("off")->mode, ServerMetricsSource::Mode::kOff);
  const auto url = parse_server_metrics("https://h:9/metrics?k=v");
  ASSERT_TRUE(url.has_value());
  EXPECT_EQ(url->mode, ServerMetricsSource::Mode::kUrl);
  EXPECT_EQ(url->url, "https://h:9/metrics?k=v");
  EXPECT_EQ(refusal("--server-metrics", "h:9/metrics"),
            "--server-metrics 'h:9/metrics' is not auto, off or an http(s):// URL");
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
