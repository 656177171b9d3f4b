// End to end: --export csv on run and report, and report --as PEER, against serve-sim.

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>

#include "../support/llmd_schema.h"
#include "process.h"

namespace tokenbench::e2e {
namespace {

std::size_t lines(const std::string& text) {
  return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
}

TEST(Exports, RunWritesRequestsCsvAndReportRebuildsIt) {
  SimProcess sim({"--ttft-ms", "5", "--itl-ms", "1"});
  const std::string dir = make_temp_dir("export");
  const auto r =
      run_process(run_args(sim.url(), dir,
                           {"--num-prompts", "6", "--max-concurrency", "2", "--input-len", "16",
                            "--output-len", "4", "--warmup", "1", "--export", "csv"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string csv = slurp(dir + "/requests.csv");
  EXPECT_EQ(csv.rfind("id,phase,streamed,", 0), 0u);
  EXPECT_EQ(lines(csv), 1u + 6u + 1u);  // header, 6 measured, 1 warmup
  EXPECT_NE(csv.find(",warmup,"), std::string::npos);
  EXPECT_NE(csv.find("\r\n"), std::string::npos);

  std::filesystem::remove(dir + "/requests.csv");
  const auto rep = run_process({TOKENBENCH_BINARY, "report", dir, "--export", "csv"});
  ASSERT_EQ(rep.exit_code, 0) << rep.err;
  EXPECT_EQ(slurp(dir + "/requests.csv"), csv);
}

TEST(Exports, ReportAsPeerPrintsBothColumns) {
  SimProcess sim({"--ttft-ms", "5", "--itl-ms", "1"});
  const std::string dir = make_temp_dir("peer");
  const auto r = run_process(
      run_args(sim.url(), dir, {"--num-prompts", "4", "--input-len", "16", "--output-len", "4"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto rep = run_process({TOKENBENCH_BINARY, "report", dir, "--as", "guidellm"});
  ASSERT_EQ(rep.exit_code, 0) << rep.err;
  EXPECT_NE(rep.out.find("Peer view: guidellm definitions (4 requests)"), std::string::npos)
      << rep.out;
  EXPECT_NE(rep.out.find("INCLUDING the first token"), std::string::npos);
  EXPECT_NE(rep.out.find("Benchmarking summary"), std::string::npos);

  // vLLM's peaks: the summary's (a record at a time) and vLLM's (every record at once) agree.
  const auto vllm = run_process({TOKENBENCH_BINARY, "report", dir, "--as", "vllm"});
  ASSERT_EQ(vllm.exit_code, 0) << vllm.err;
  const nlohmann::json summary = read_json(dir + "/summary.json");
  EXPECT_EQ(summary["tokenbench"]["vllm_peaks_exact"], true);
  EXPECT_GE(summary["max_output_tokens_per_s"].get<double>(), 4.0);  // a request's 4 chunks
  EXPECT_GE(summary["max_concurrent_requests"].get<std::int64_t>(), 1);
  for (const char* row : {"max output tokens per s", "max concurrent requests"}) {
    const auto at = vllm.out.find(row);
    ASSERT_NE(at, std::string::npos) << vllm.out;
    const std::string line = vllm.out.substr(at, vllm.out.find('\n', at) - at);
    EXPECT_NE(line.find("+0.000"), std::string::npos) << line;
  }
  const auto bad = run_process({TOKENBENCH_BINARY, "report", dir, "--as", "genai-perf"});
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_NE(bad.err.find("unknown peer"), std::string::npos) << bad.err;
}

// For a node exporter's textfile collector: stdout holds exposition text and nothing else.
TEST(Exports, ReportAsPrometheusPrintsOnlyExpositionText) {
  SimProcess sim({"--ttft-ms", "5", "--itl-ms", "1"});
  const std::string dir = make_temp_dir("prometheus");
  const auto r = run_process(run_args(
      sim.url(), dir,
      {"--num-prompts", "4", "--input-len", "16", "--output-len", "4", "--label", "gpu=H100"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto rep = run_process({TOKENBENCH_BINARY, "report", dir, "--as", "prometheus"});
  ASSERT_EQ(rep.exit_code, 0) << rep.err;
  EXPECT_EQ(rep.out.rfind("# HELP tokenbench_run_info ", 0), 0u) << rep.out;
  EXPECT_NE(rep.out.find("tokenbench_completed{model=\"sim-model\",backend=\"openai-chat\","
                         "label_gpu=\"H100\"} 4\n"),
            std::string::npos)
      << rep.out;
  EXPECT_EQ(rep.out.find("Benchmarking summary"), std::string::npos);
  for (std::size_t at = 0; at < rep.out.size();) {  // every line a comment or a sample
    const std::size_t end = rep.out.find('\n', at);
    const std::string line = rep.out.substr(at, end - at);
    EXPECT_TRUE(line.rfind("# ", 0) == 0 || line.rfind("tokenbench_", 0) == 0) << line;
    at = end + 1;
  }
}

// llm-d-benchmark's benchmark report: stdout is the report (JSON, which their YAML loader reads
// too) and nothing else, and it keeps the schema's rules.
TEST(Exports, ReportAsLlmdPrintsABenchmarkReport) {
  SimProcess sim({"--ttft-ms", "5", "--itl-ms", "1"});
  const std::string dir = make_temp_dir("llmd") + "/run-llmd";
  const auto r = run_process(run_args(
      sim.url(), dir,
      {"--num-prompts", "4", "--input-len", "16", "--output-len", "4", "--max-concurrency", "2"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto rep = run_process({TOKENBENCH_BINARY, "report", dir, "--as", "llm-d"});
  ASSERT_EQ(rep.exit_code, 0) << rep.err;
  const nlohmann::json br = nlohmann::json::parse(rep.out);  // throws on anything else
  EXPECT_EQ(testing::llmd_report_problems(br), std::vector<std::string>{}) << rep.out;
  EXPECT_EQ(br["run"]["uid"], "run-llmd");
  const nlohmann::json& agg = br["results"]["request_performance"]["aggregate"];
  EXPECT_EQ(agg["requests"]["total"], 4);
  EXPECT_EQ(agg["requests"]["output_length"]["mean"], 4.0);
  const nlohmann::json summary = read_json(dir + "/summary.json");
  EXPECT_EQ(agg["latency"]["time_to_first_token"]["mean"], summary["mean_ttft_ms"]);
  EXPECT_EQ(agg["throughput"]["request_rate"]["mean"], summary["request_throughput"]);
  EXPECT_EQ(br["scenario"]["load"]["standardized"]["concurrency"], 2);
}

TEST(Exports, SweepWritesLevelsCsv) {
  SimProcess sim({"--ttft-ms", "2", "--itl-ms", "1"});
  const std::string dir = make_temp_dir("levels");
  const auto r = run_process(run_args(sim.url(), dir,
                                      {"--num-prompts", "4", "--input-len", "8", "--output-len",
                                       "2", "--max-concurrency", "1,2", "--export", "csv"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string levels = slurp(dir + "/levels.csv");
  EXPECT_EQ(levels.rfind("dir,max_concurrency,request_rate,", 0), 0u);
  EXPECT_EQ(lines(levels), 3u);
  EXPECT_NE(levels.find("\r\nc1,1,"), std::string::npos) << levels;
  EXPECT_TRUE(std::filesystem::is_regular_file(dir + "/c2/requests.csv"));

  std::filesystem::remove(dir + "/levels.csv");
  std::filesystem::remove(dir + "/c1/requests.csv");
  const auto rep = run_process({TOKENBENCH_BINARY, "report", dir, "--export", "csv"});
  ASSERT_EQ(rep.exit_code, 0) << rep.err;
  EXPECT_EQ(slurp(dir + "/levels.csv"), levels);
  EXPECT_TRUE(std::filesystem::is_regular_file(dir + "/c1/requests.csv"));
}

}  // namespace
}  // namespace tokenbench::e2e
