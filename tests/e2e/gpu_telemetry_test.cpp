// End to end: the GPU sampler runs a fake nvidia-smi (a shell script first on PATH) as a child,
// joins its samples to telemetry.jsonl, and summary.json, the console and `report` carry the
// figures it produced; without nvidia-smi a run says so in one line and goes on.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include "../support/fake_nvidia_smi.h"
#include "process.h"
#include "tokenbench/core/clock.h"

namespace tokenbench::e2e {
namespace {

std::string path_with(const std::string& dir) {
  const char* path = std::getenv("PATH");
  return dir + ":" + (path != nullptr ? path : "/usr/bin:/bin");
}

TEST(EndToEndGpu, FakeNvidiaSmiGivesExactFiguresAndEnergy) {
  SimProcess sim({"--time-scale", "10"});
  const std::string bin = make_temp_dir("fake-smi-bin");
  testing::write_fake_nvidia_smi(bin);
  const std::string dir = make_temp_dir("gpu");
  const auto r = run_process(
      run_args(sim.url(), dir,
               {"--duration", "1.5", "--max-concurrency", "4", "--warmup", "2", "--input-len", "32",
                "--output-len", "16", "--metrics-interval", "0.1", "--server-metrics", "off"}),
      std::chrono::seconds(60), {{"PATH", path_with(bin)}});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err.find("no GPU sampler"), std::string::npos) << r.err;

  // telemetry.jsonl: the measure phase's edges, the sampler, and both GPUs' samples.
  core::Nanos start = -1, end = -1;
  int gpu_lines = 0;
  for (const auto& line : read_jsonl(dir + "/telemetry.jsonl")) {
    if (line["type"] == "phase" && line["label"] == "measure_start") start = line["t_ns"];
    if (line["type"] == "phase" && line["label"] == "measure_end") end = line["t_ns"];
    if (line["type"] == "gpu") {
      ++gpu_lines;
      EXPECT_EQ(line["name"], "Fake GPU 80GB");
      EXPECT_GE(line["t_ns"].get<core::Nanos>(), 0);
    }
  }
  ASSERT_GT(start, 0);
  ASSERT_GT(end, start);
  EXPECT_GE(gpu_lines, 2 * 10);  // 1.5 s at 10 samples a second, two GPUs
  const double measure_s = static_cast<double>(end - start) / 1e9;

  const auto summary = read_json(dir + "/summary.json");
  const auto& gpu = summary["tokenbench"]["gpu"];
  EXPECT_EQ(gpu["source"], "nvidia-smi");
  EXPECT_EQ(gpu["failed_samples"], 0);
  EXPECT_TRUE(gpu["measured"].get<bool>());
  ASSERT_EQ(gpu["gpus"].size(), 2u) << gpu.dump();
  const auto& g0 = gpu["gpus"][0];
  const auto& g1 = gpu["gpus"][1];
  EXPECT_EQ(g0["uuid"], "GPU-0000aaaa");
  EXPECT_EQ(g0["util_pct"]["mean"], 50);
  EXPECT_EQ(g0["util_pct"]["max"], 50);
  EXPECT_EQ(g0["mem_used_mib"]["max"], 1000);
  EXPECT_EQ(g0["mem_total_mib"], 8000);
  EXPECT_EQ(g0["power_w"]["mean"], 100);
  EXPECT_EQ(g0["sm_clock_mhz"]["mean"], 1500);
  EXPECT_EQ(g0["temp_c"]["max"], 40);
  EXPECT_EQ(g1["util_pct"]["mean"], 70);
  EXPECT_EQ(g1["power_w"]["max"], 300);
  EXPECT_EQ(g1["temp_c"]["max"], 60);
  EXPECT_GE(g0["samples"].get<int>(), 10);

  // Constant power, 100 W + 300 W, over the whole measure phase: 400 W x its length. The
  // sampler waits for a sample after the phase's end, so the samples span it (coverage 1); the
  // tolerance covers rounding only.
  EXPECT_NEAR(gpu["energy_coverage"].get<double>(), 1.0, 1e-9);
  const double energy = gpu["energy_j"];
  EXPECT_NEAR(energy, 400 * measure_s, 1e-6 * energy);
  EXPECT_NEAR(gpu["measure_s"].get<double>(), measure_s, 1e-9);
  // The phase's edges hold the client's measured duration (first send to last reply).
  const double duration = summary["duration"];
  EXPECT_GE(measure_s, duration);
  EXPECT_LT(measure_s - duration, 0.5);
  EXPECT_NEAR(gpu["j_per_output_token"].get<double>(),
              energy / summary["total_output_tokens"].get<double>(), 1e-9);
  EXPECT_NEAR(gpu["j_per_request"].get<double>(), energy / summary["completed"].get<double>(),
              1e-9);

  const auto& env_gpus = summary["tokenbench"]["environment"]["gpus"];
  EXPECT_EQ(env_gpus["count"], 2);
  EXPECT_EQ(env_gpus["driver"], "999.01");
  EXPECT_EQ(env_gpus["devices"][1]["name"], "Fake GPU 80GB");

  EXPECT_NE(r.out.find("\nGPU (nvidia-smi, 2 GPUs, "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("  0 Fake GPU 80GB"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("util mean/max 50/50%, mem max 1000/8000 MiB, power mean 100.0 W, temp "
                       "max 40 C"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("% covered): "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("J/output token"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("GPUs     2 x Fake GPU 80GB, driver 999.01 (nvidia-smi)"), std::string::npos)
      << r.out;

  // `report` rebuilds the same GPU account, environment and console from the stored files.
  const std::string console = slurp(dir + "/report.txt");
  std::filesystem::remove(dir + "/report.txt");
  const auto rep = run_process({TOKENBENCH_BINARY, "report", dir});
  ASSERT_EQ(rep.exit_code, 0) << rep.err;
  const auto rebuilt = read_json(dir + "/summary.json");
  EXPECT_EQ(rebuilt["tokenbench"]["gpu"].dump(), gpu.dump());
  EXPECT_EQ(rebuilt["tokenbench"]["environment"].dump(),
            summary["tokenbench"]["environment"].dump());
  EXPECT_EQ(slurp(dir + "/report.txt"), console);
}

TEST(EndToEndGpu, AutoWithoutNvidiaSmiSaysSoOnceAndRuns) {
  SimProcess sim({"--time-scale", "10"});
  const std::string empty = make_temp_dir("empty-path");
  const std::string dir = make_temp_dir("no-gpu");
  const auto r = run_process(
      run_args(sim.url(), dir, {"--num-prompts", "5", "--input-len", "16", "--output-len", "4"}),
      std::chrono::seconds(60), {{"PATH", empty}});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string line =
      "tokenbench: no GPU sampler: nvidia-smi is not on PATH (use --gpu-metrics dcgm=URL for a "
      "remote server's GPUs)\n";
  const auto at = r.err.find(line);
  EXPECT_NE(at, std::string::npos) << r.err;
  EXPECT_EQ(r.err.find(line, at + 1), std::string::npos) << r.err;
  const auto summary = read_json(dir + "/summary.json");
  EXPECT_FALSE(summary["tokenbench"].contains("gpu"));
  EXPECT_TRUE(summary["tokenbench"]["environment"]["gpus"].is_null());
  EXPECT_EQ(r.out.find("\nGPU ("), std::string::npos);
}

TEST(EndToEndGpu, ExplicitNvidiaSmiMissingIsAOneLineError) {
  SimProcess sim({"--time-scale", "10"});
  const std::string empty = make_temp_dir("empty-path");
  const std::string dir = make_temp_dir("no-smi");
  const auto r =
      run_process(run_args(sim.url(), dir, {"--num-prompts", "2", "--gpu-metrics", "nvidia-smi"}),
                  std::chrono::seconds(60), {{"PATH", empty}});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_EQ(
      r.err.rfind("tokenbench: error: --gpu-metrics nvidia-smi: nvidia-smi is not on PATH", 0), 0u)
      << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir + "/summary.json"));
}

TEST(EndToEndGpu, ADcgmEndpointWithoutGpusIsRecordedNotFatal) {
  SimProcess sim({"--time-scale", "10"});
  const std::string dir = make_temp_dir("dcgm");
  // serve-sim's /metrics has vLLM's names, no DCGM_FI_DEV_*: every sample fails, the run goes on.
  const auto r = run_process(
      run_args(sim.url(), dir,
               {"--num-prompts", "5", "--input-len", "16", "--output-len", "4", "--gpu-metrics",
                "dcgm=" + sim.url() + "/metrics", "--metrics-interval", "0.2"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("tokenbench: warning: --gpu-metrics dcgm="), std::string::npos) << r.err;
  const auto gpu = read_json(dir + "/summary.json")["tokenbench"]["gpu"];
  EXPECT_EQ(gpu["source"], "dcgm");
  EXPECT_GE(gpu["failed_samples"].get<int>(), 1);
  EXPECT_NE(gpu["first_error"].get<std::string>().find("no DCGM_FI_DEV_* series"),
            std::string::npos);
  EXPECT_TRUE(gpu["gpus"].empty());
}

}  // namespace
}  // namespace tokenbench::e2e
