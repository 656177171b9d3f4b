// The GPU account: mean and max over the measure phase, and energy by the trapezoid rule.

#include "tokenbench/telemetry/gpu_account.h"

#include <gtest/gtest.h>

namespace tokenbench::telemetry {
namespace {

constexpr core::Nanos kSecond = 1'000'000'000;

GpuSample sample(core::Nanos t, int index, double util, double power, double temp) {
  GpuSample s;
  s.t = t;
  s.index = index;
  s.name = index == 0 ? "NVIDIA H100" : "NVIDIA A10";
  s.uuid = "GPU-" + std::to_string(index);
  s.util_pct = util;
  s.mem_used_mib = 1000 * (index + 1) + util;
  s.mem_total_mib = 80000;
  s.power_w = power;
  s.sm_clock_mhz = 1500;
  s.temp_c = temp;
  return s;
}

TEST(IntegratePower, TrapezoidsClippedToTheInterval) {
  const std::vector<std::pair<core::Nanos, double>> points{
      {0, 100}, {1 * kSecond, 200}, {3 * kSecond, 200}};
  double covered = 0;
  EXPECT_DOUBLE_EQ(integrate_power(points, 0, 3 * kSecond, &covered), 150 + 400);
  EXPECT_DOUBLE_EQ(covered, 3);
  // From 0.5 s: the line from 100 W to 200 W is 150 W there.
  EXPECT_DOUBLE_EQ(integrate_power(points, kSecond / 2, 2 * kSecond, &covered),
                   (150 + 200) / 2.0 * 0.5 + 200);
  EXPECT_DOUBLE_EQ(covered, 1.5);
  // Beyond the samples' span nothing is counted, and the coverage says so.
  EXPECT_DOUBLE_EQ(integrate_power(points, -kSecond, 4 * kSecond, &covered), 550);
  EXPECT_DOUBLE_EQ(covered, 3);
  EXPECT_DOUBLE_EQ(integrate_power({{0, 100}}, 0, kSecond, &covered), 0);
  EXPECT_DOUBLE_EQ(covered, 0);
}

TEST(GpuAccount, MeanMaxAndEnergyOverTheMeasurePhase) {
  std::vector<GpuSample> samples;
  const double power0[] = {100, 200, 300, 400, 1000};
  const double util0[] = {0, 50, 70, 90, 100};
  for (int i = 0; i < 5; ++i) {
    samples.push_back(sample(i * kSecond, 0, util0[i], power0[i], 50 + i));
    samples.push_back(sample(i * kSecond, 1, 10, 50, 40));
  }
  GpuSamplerInfo info;
  info.source = "nvidia-smi";
  info.interval_s = 1;
  info.failed_samples = 2;
  info.first_error = "nvidia-smi: 'x' is not a GPU reading";
  metrics::Summary client;
  client.completed = 7;
  client.total_output_tokens = 350;
  const GpuAccount a = gpu_account_for(samples, info, kSecond, 3 * kSecond, client);
  EXPECT_TRUE(a.measured);
  EXPECT_DOUBLE_EQ(a.measure_s, 2);
  EXPECT_EQ(a.samples, 10);
  ASSERT_EQ(a.gpus.size(), 2u);
  const GpuDeviceAccount& g0 = a.gpus[0];
  EXPECT_EQ(g0.name, "NVIDIA H100");
  EXPECT_EQ(g0.uuid, "GPU-0");
  EXPECT_EQ(g0.samples, 3);  // at 1, 2 and 3 s
  EXPECT_DOUBLE_EQ(g0.util_pct->mean, 70);
  EXPECT_DOUBLE_EQ(g0.util_pct->max, 90);
  EXPECT_DOUBLE_EQ(g0.power_w->mean, 300);
  EXPECT_DOUBLE_EQ(g0.power_w->max, 400);
  EXPECT_DOUBLE_EQ(g0.temp_c->max, 53);
  EXPECT_DOUBLE_EQ(g0.mem_used_mib->max, 1090);
  EXPECT_DOUBLE_EQ(*g0.mem_total_mib, 80000);
  EXPECT_DOUBLE_EQ(*g0.energy_j, (200 + 300) / 2.0 + (300 + 400) / 2.0);
  EXPECT_DOUBLE_EQ(*a.gpus[1].energy_j, 100);
  EXPECT_DOUBLE_EQ(*a.energy_j, 700);
  EXPECT_DOUBLE_EQ(*a.energy_coverage, 1);
  EXPECT_DOUBLE_EQ(*a.j_per_output_token, 2);
  EXPECT_DOUBLE_EQ(*a.j_per_request, 100);

  const auto j = gpu_account_to_json(a);
  EXPECT_EQ(j["source"], "nvidia-smi");
  EXPECT_EQ(j["failed_samples"], 2);
  EXPECT_EQ(j["gpus"][0]["power_w"]["mean"], 300);
  EXPECT_EQ(j["gpus"][1]["util_pct"]["max"], 10);
  EXPECT_EQ(j["energy_j"], 700);
  EXPECT_EQ(j["j_per_output_token"], 2);
  const std::string text = render_gpu_account(a);
  EXPECT_NE(text.find("GPU (nvidia-smi, 2 GPUs, 10 samples every 1 s; 2 failed: nvidia-smi: 'x'"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("0 NVIDIA H100"), std::string::npos) << text;
  EXPECT_NE(text.find("util mean/max 70/90%, mem max 1090/80000 MiB, power mean 300.0 W, temp max "
                      "53 C"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("energy 700.0 J over the measure phase (2.00 s, 100% covered): 2 J/output "
                      "token, 100 J/request"),
            std::string::npos)
      << text;
}

TEST(GpuAccount, PartialCoverageSharedGpusAndNoEdges) {
  std::vector<GpuSample> samples{sample(2 * kSecond, 0, 1, 100, 30),
                                 sample(3 * kSecond, 0, 1, 100, 30)};
  GpuSamplerInfo info;
  info.source = "dcgm";
  metrics::Summary client;
  client.completed = 1;
  client.total_output_tokens = 10;
  const GpuAccount a = gpu_account_for(samples, info, 0, 4 * kSecond, client, /*shared=*/true);
  EXPECT_DOUBLE_EQ(*a.energy_j, 100);
  EXPECT_DOUBLE_EQ(*a.energy_coverage, 0.25);
  EXPECT_FALSE(a.j_per_output_token);  // several targets shared the GPUs
  EXPECT_FALSE(a.j_per_request);
  const GpuAccount none = gpu_account_for(samples, info, core::kNever, core::kNever, client);
  EXPECT_FALSE(none.measured);
  EXPECT_EQ(none.gpus[0].samples, 2);  // every sample counts
  EXPECT_FALSE(none.energy_j);
}

TEST(GpuAccount, SamplerLineRoundTrips) {
  GpuSamplerInfo info;
  info.source = "dcgm";
  info.url = "http://node:9400/metrics";
  info.interval_s = 0.5;
  info.failed_samples = 3;
  info.first_error = "dcgm: HTTP 503";
  const GpuSamplerInfo back = gpu_sampler_from_json(gpu_sampler_to_json(info));
  EXPECT_EQ(back.source, "dcgm");
  EXPECT_EQ(back.url, info.url);
  EXPECT_EQ(back.interval_s, 0.5);
  EXPECT_EQ(back.failed_samples, 3);
  EXPECT_EQ(back.first_error, "dcgm: HTTP 503");
}

}  // namespace
}  // namespace tokenbench::telemetry
