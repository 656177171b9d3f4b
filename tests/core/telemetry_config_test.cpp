// --gpu-metrics and --label in the configuration: checked, and echoed by config.yaml.

#include <gtest/gtest.h>

#include "tokenbench/core/config_check.h"
#include "tokenbench/core/run_config.h"

namespace tokenbench::core {
namespace {

TEST(TelemetryConfig, GpuMetricsValues) {
  RunConfig c;
  c.num_prompts = 1;
  for (const char* ok : {"auto", "off", "nvidia-smi", "dcgm=http://node:9400/metrics",
                         "dcgm=https://node/metrics"}) {
    c.gpu_metrics = ok;
    EXPECT_NO_THROW(validate(c)) << ok;
  }
  for (const char* bad : {"nvidia", "dcgm=node:9400", "dcgm=", "on"}) {
    c.gpu_metrics = bad;
    try {
      validate(c);
      ADD_FAILURE() << bad;
    } catch (const ConfigError& e) {
      EXPECT_EQ(std::string(e.what()).rfind("--gpu-metrics '", 0), 0u) << e.what();
    }
  }
}

TEST(TelemetryConfig, YamlEchoesGpuMetricsAndLabels) {
  RunConfig c;
  c.gpu_metrics = "dcgm=http://node:9400/metrics";
  c.labels = {"cuda=12.4", "weights=rev-abc"};
  const std::string yaml = to_yaml(c);
  EXPECT_NE(yaml.find("gpu_metrics: dcgm=http://node:9400/metrics"), std::string::npos) << yaml;
  const RunConfig back = run_config_from_yaml(yaml);
  EXPECT_EQ(back.gpu_metrics, c.gpu_metrics);
  EXPECT_EQ(back.labels, c.labels);
  EXPECT_EQ(run_config_from_yaml("load: {}\n").gpu_metrics, "auto");
}

}  // namespace
}  // namespace tokenbench::core
