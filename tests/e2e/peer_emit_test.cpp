// End to end: `run --emit vllm,evalscope` writes each peer's result files where its tools look
// (vLLM's result JSON at the results directory's root, EvalScope's run directory under
// evalscope/), each as the peer's own code requires (tests/support/peer_result_schemas.h), and
// `report DIR --emit` rebuilds the same files from requests.jsonl.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include "../support/peer_result_schemas.h"
#include "process.h"

namespace tokenbench::e2e {
namespace {

// The files under `dir` that --emit writes: vLLM's *.json at the root (not tokenbench's own),
// and everything under evalscope/.
std::map<std::string, std::string> emitted(const std::string& dir) {
  std::map<std::string, std::string> out;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir)) {
    const std::string rel = std::filesystem::relative(e.path(), dir).string();
    const bool vllm = rel.find('/') == std::string::npos && rel.find("qps") != std::string::npos;
    const bool aiperf = rel.rfind("profile_export_aiperf.", 0) == 0 || rel == "benchmarks.json";
    if (e.is_regular_file() && (vllm || aiperf || rel.rfind("evalscope/", 0) == 0)) {
      out[rel] = slurp(e.path().string());
    }
  }
  return out;
}

TEST(PeerEmit, RunAndReportWriteThePeersFiles) {
  SimProcess sim({"--ttft-ms", "2", "--itl-ms", "0.5"});
  const std::string dir = make_temp_dir("peer_emit");
  const auto r = run_process(
      {TOKENBENCH_BINARY,   "run",       "--base-url",    sim.url(),
       "--model",           "sim-model", "--num-prompts", "12",
       "--max-concurrency", "4",         "--input-len",   "32",
       "--output-len",      "8",         "--emit",        "vllm,evalscope,aiperf,guidellm",
       "--output-dir",      dir,         "--gpu-metrics", "off"},
      std::chrono::seconds(60));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto files = emitted(dir);
  ASSERT_EQ(files.size(), 6u);
  const std::string run = "evalscope/parallel_4_number_12/";
  ASSERT_TRUE(files.contains(run + "benchmark_summary.json"));
  ASSERT_TRUE(files.contains(run + "benchmark_percentile.json"));
  EXPECT_TRUE(testing::evalscope_run_dir_matches("parallel_4_number_12"));
  EXPECT_EQ(testing::aiperf_csv_problems(files.at("profile_export_aiperf.csv")),
            std::vector<std::string>{});
  for (const auto& [name, text] : files) {
    if (name.ends_with(".csv")) continue;
    const auto j = nlohmann::json::parse(text);
    if (name.ends_with("benchmark_summary.json")) {
      EXPECT_EQ(testing::evalscope_summary_problems(j), std::vector<std::string>{});
      EXPECT_EQ(j["Success Requests"], 12);
      EXPECT_DOUBLE_EQ(j["Avg Output Tokens"].get<double>(), 8);
    } else if (name.ends_with("benchmark_percentile.json")) {
      EXPECT_EQ(testing::evalscope_percentile_problems(j), std::vector<std::string>{});
    } else if (name == "benchmarks.json") {
      EXPECT_EQ(testing::guidellm_benchmarks_problems(j), std::vector<std::string>{});
      EXPECT_EQ(j["benchmarks"][0]["request_totals"]["successful"], 12);
    } else if (name == "profile_export_aiperf.json") {
      EXPECT_EQ(testing::aiperf_json_problems(j), std::vector<std::string>{});
      EXPECT_DOUBLE_EQ(j["request_count"]["avg"].get<double>(), 12);
      EXPECT_DOUBLE_EQ(j["output_sequence_length"]["avg"].get<double>(), 8);
    } else {
      EXPECT_TRUE(name.starts_with("openai-chat-infqps-concurrency4-sim-model-")) << name;
      EXPECT_EQ(testing::vllm_result_problems(j), std::vector<std::string>{});
      EXPECT_EQ(j["ttfts"].size(), 12u);
      // The same figures as summary.json, which already speaks vLLM's keys.
      const auto summary = read_json(dir + "/summary.json");
      EXPECT_EQ(j["p99_ttft_ms"], summary["p99_ttft_ms"]);
    }
  }
  // report DIR --emit rebuilds them from requests.jsonl, byte for byte.
  for (const auto& [name, text] : files) std::filesystem::remove(dir + "/" + name);
  const auto rebuilt =
      run_process({TOKENBENCH_BINARY, "report", dir, "--emit", "vllm,evalscope,aiperf,guidellm"});
  ASSERT_EQ(rebuilt.exit_code, 0) << rebuilt.err;
  EXPECT_EQ(emitted(dir), files);
  // An unknown format is one line naming the ones there are.
  const auto bad = run_process({TOKENBENCH_BINARY, "report", dir, "--emit", "locust"});
  EXPECT_NE(bad.exit_code, 0);
  EXPECT_NE(bad.err.find("locust"), std::string::npos) << bad.err;
}

// A peer's own command line writes the peer's own files too: AIPerf's profile its export,
// EvalScope's perf its run directory, vLLM's --save-result its result JSON.
TEST(PeerEmit, PeerCommandsWriteTheirOwnFiles) {
  SimProcess sim({"--ttft-ms", "1", "--itl-ms", "0.2"});
  const std::string aiperf = make_temp_dir("peer_emit_aiperf");
  auto r = run_process({TOKENBENCH_BINARY, "profile", "-m", "sim-model", "--url", sim.url(),
                        "--streaming", "--request-count", "4", "--output-tokens-mean", "4",
                        "--artifact-dir", aiperf, "--gpu-metrics", "off"},
                       std::chrono::seconds(60));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(testing::aiperf_json_problems(read_json(aiperf + "/profile_export_aiperf.json")),
            std::vector<std::string>{});
  EXPECT_TRUE(std::filesystem::exists(aiperf + "/profile_export_aiperf.csv"));

  const std::string evalscope = make_temp_dir("peer_emit_evalscope");
  r = run_process({TOKENBENCH_BINARY, "perf", "--url", sim.url() + "/v1/chat/completions",
                   "--parallel", "2", "--number", "4", "--model", "sim-model", "--api", "openai",
                   "--max-tokens", "4", "--outputs-dir", evalscope, "--gpu-metrics", "off"},
                  std::chrono::seconds(60));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(read_json(evalscope +
                      "/evalscope/parallel_2_number_4/benchmark_summary.json")["Success Requests"],
            4);

  const std::string vllm = make_temp_dir("peer_emit_vllm");
  r = run_process(
      {TOKENBENCH_BINARY, "bench", "serve", "--base-url", sim.url(), "--model", "sim-model",
       "--num-prompts", "4", "--random-input-len", "16", "--random-output-len", "4",
       "--save-result", "--result-dir", vllm, "--gpu-metrics", "off"},
      std::chrono::seconds(60));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto files = emitted(vllm);
  ASSERT_EQ(files.size(), 1u);  // BACKEND-infqps-sim-model-DATE.json (summary.json's backend)
  EXPECT_TRUE(files.begin()->first.starts_with("openai-infqps-sim-model-")) << files.begin()->first;
  EXPECT_EQ(testing::vllm_result_problems(nlohmann::json::parse(files.begin()->second)),
            std::vector<std::string>{});
}

// GuideLLM's own command line writes its benchmarks.json; a sweep's levels are gathered at the
// root as GuideLLM lists them (one benchmark a level), and EvalScope's runs side by side.
TEST(PeerEmit, GuidellmSweepListsEveryLevel) {
  SimProcess sim({"--ttft-ms", "1", "--itl-ms", "0.2"});
  const std::string dir = make_temp_dir("peer_emit_guidellm");
  const auto r = run_process(
      {TOKENBENCH_BINARY, "benchmark", "--target", sim.url(), "--rate-type", "concurrent", "--rate",
       "1,2", "--max-requests", "4", "--data", "prompt_tokens=16,output_tokens=4", "--output-path",
       dir, "--emit", "evalscope", "--gpu-metrics", "off"},
      std::chrono::seconds(60));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = read_json(dir + "/benchmarks.json");
  EXPECT_EQ(testing::guidellm_benchmarks_problems(j), std::vector<std::string>{});
  ASSERT_EQ(j["benchmarks"].size(), 2u);
  EXPECT_EQ(j["benchmarks"][1]["args"]["strategy_index"], 1);
  EXPECT_EQ(j["benchmarks"][1]["args"]["strategy"]["streams"], 2);
  EXPECT_EQ(j["benchmarks"][0]["requests"]["successful"][0]["request_type"], "text_completions");
  for (const char* run : {"parallel_1_number_4", "parallel_2_number_4"}) {
    EXPECT_TRUE(std::filesystem::exists(dir + "/evalscope/" + run + "/benchmark_summary.json"))
        << run;
  }
}

}  // namespace
}  // namespace tokenbench::e2e
