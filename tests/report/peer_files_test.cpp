// --export vllm, evalscope (report/peer_files.h): each peer's result files from the hand-built
// run (tests/metrics/test_records.h), their figures under the peer's own definitions, checked
// against what the peer's code requires of them (tests/support/peer_result_schemas.h).

#include "tokenbench/report/peer_files.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "../metrics/test_records.h"
#include "../support/peer_result_schemas.h"
#include "tokenbench/metrics/summary.h"
#include "tokenbench/report/summary_json.h"

namespace tokenbench::report {
namespace {

using nlohmann::json;

struct HandBuiltRun {
  std::vector<core::RequestRecord> records = test_records::hand_built_run();
  core::RunConfig config;
  json summary;
  HandBuiltRun() {
    config.model = "org/sim-model";
    config.max_concurrency = 4;
    config.num_prompts = 3;
    summary = summary_to_json(metrics::summarize(records, {}), config);
  }
  PeerFileInput input() const { return {records, summary, config}; }
};

TEST(PeerFiles, VllmResultHoldsEveryRequestAsVllmDoes) {
  const HandBuiltRun run;
  const json r = vllm_result(run.input());
  EXPECT_EQ(testing::vllm_result_problems(r), std::vector<std::string>{});
  EXPECT_FALSE(r.contains("tokenbench"));
  // In the order sent: the two successes, then the 503 (output 0, TTFT 0, its error).
  EXPECT_EQ(r["input_lens"], json({10, 20, 0}));
  EXPECT_EQ(r["output_lens"], json({3, 4, 0}));
  EXPECT_DOUBLE_EQ(r["ttfts"][0].get<double>(), 0.1);
  EXPECT_DOUBLE_EQ(r["ttfts"][1].get<double>(), 0.2);
  EXPECT_DOUBLE_EQ(r["ttfts"][2].get<double>(), 0.0);
  EXPECT_EQ(r["itls"][1].size(), 3u);  // a gap per chunk after the first
  EXPECT_DOUBLE_EQ(r["itls"][1][0].get<double>(), 0.02);
  EXPECT_DOUBLE_EQ(r["latencies"][1].get<double>(), 0.27);
  EXPECT_DOUBLE_EQ(r["start_times"][2].get<double>(), 0.1);
  EXPECT_EQ(r["errors"][2], "Service Unavailable");
  EXPECT_EQ(r["errors"][0], "");
  EXPECT_EQ(vllm_result_name(run.summary).substr(0, 35), "openai-chat-infqps-concurrency4-sim");
}

TEST(PeerFiles, EvalscopeSummaryUnderItsDefinitions) {
  const HandBuiltRun run;
  const json s = evalscope_summary(run.input());
  EXPECT_EQ(testing::evalscope_summary_problems(s), std::vector<std::string>{});
  EXPECT_DOUBLE_EQ(s["Test Duration (s)"].get<double>(), 0.4);  // first send to last end
  EXPECT_EQ(s["Concurrency"], 4);
  EXPECT_DOUBLE_EQ(s["Request Rate (req/s)"].get<double>(), -1);  // no rate: EvalScope's -1
  EXPECT_EQ(s["Total Requests"], 3);
  EXPECT_EQ(s["Success Requests"], 2);
  EXPECT_EQ(s["Failed Requests"], 1);
  EXPECT_DOUBLE_EQ(s["Req Throughput (req/s)"].get<double>(), 5);
  EXPECT_DOUBLE_EQ(s["Avg Latency (s)"].get<double>(), 0.1975);
  EXPECT_DOUBLE_EQ(s["Avg Input Tokens"].get<double>(), 15);
  EXPECT_DOUBLE_EQ(s["Output Throughput (tok/s)"].get<double>(), 17.5);
  EXPECT_DOUBLE_EQ(s["Total Throughput (tok/s)"].get<double>(), 92.5);
  EXPECT_DOUBLE_EQ(s["Avg TTFT (ms)"].get<double>(), 150);
  // (125 - 100) / 2 and (320 - 50 - 200) / 3 ms, averaged.
  EXPECT_DOUBLE_EQ(s["Avg TPOT (ms)"].get<double>(), 17.92);
  EXPECT_DOUBLE_EQ(s["Avg ITL (ms)"].get<double>(), 16);  // gaps 10, 10, 20, 20, 20, pooled
  EXPECT_DOUBLE_EQ(s["Avg Output Tokens"].get<double>(), 3.5);
}

TEST(PeerFiles, EvalscopePercentileRows) {
  const HandBuiltRun run;
  const json rows = evalscope_percentiles(run.input());
  EXPECT_EQ(testing::evalscope_percentile_problems(rows), std::vector<std::string>{});
  EXPECT_EQ(rows[0]["Percentiles"], "min");
  EXPECT_DOUBLE_EQ(rows[0]["TTFT (ms)"].get<double>(), 100);
  EXPECT_DOUBLE_EQ(rows[5]["TTFT (ms)"].get<double>(), 200);  // 50%: index int(2 * 0.5) = 1
  EXPECT_DOUBLE_EQ(rows[5]["ITL (ms)"].get<double>(), 20);    // index 2 of 10, 10, 20, 20, 20
  EXPECT_DOUBLE_EQ(rows[10]["Latency (s)"].get<double>(), 0.27);
  EXPECT_DOUBLE_EQ(rows[10]["Output (tok/s)"].get<double>(), 24);    // 3 tokens in 0.125 s
  EXPECT_DOUBLE_EQ(rows[0]["Decode (tok/s)"].get<double>(), 42.86);  // 1 / 23.33 ms
  EXPECT_TRUE(testing::evalscope_run_dir_matches(evalscope_run_dir(run.summary)));
  EXPECT_EQ(evalscope_run_dir(run.summary), "parallel_4_number_3");
}

TEST(PeerFiles, WrittenWhereThePeersLook) {
  const HandBuiltRun run;
  const std::string dir = ::testing::TempDir() + "peer_files_" + std::to_string(::getpid());
  std::filesystem::create_directories(dir);
  const auto written = write_peer_files({"vllm", "evalscope"}, dir, run.input());
  ASSERT_EQ(written.size(), 3u);
  EXPECT_EQ(written[1], "evalscope/parallel_4_number_3/benchmark_summary.json");
  for (const auto& file : written) {
    std::ifstream in(dir + "/" + file);
    EXPECT_NO_THROW((void)json::parse(in)) << file;
  }
  std::filesystem::remove_all(dir);
}

TEST(PeerFiles, AiperfExportUnderItsDefinitions) {
  HandBuiltRun run;
  run.config.started_at = "2026-12-03T10:00:00Z";
  const json j = json::parse(aiperf_json(run.input()));
  EXPECT_EQ(testing::aiperf_json_problems(j), std::vector<std::string>{});
  EXPECT_EQ(j["time_to_first_token"]["unit"], "ms");
  EXPECT_DOUBLE_EQ(j["time_to_first_token"]["avg"].get<double>(), 150);
  EXPECT_DOUBLE_EQ(j["time_to_first_token"]["p50"].get<double>(), 150);  // linear, as numpy
  // (120 - 100) / 2 and (310 - 50 - 200) / 3 ms: to the last content chunk, not the end.
  EXPECT_DOUBLE_EQ(j["inter_token_latency"]["min"].get<double>(), 10);
  EXPECT_DOUBLE_EQ(j["inter_token_latency"]["max"].get<double>(), 20);
  EXPECT_DOUBLE_EQ(j["request_latency"]["max"].get<double>(), 260);
  EXPECT_DOUBLE_EQ(j["time_to_second_token"]["avg"].get<double>(), 15);  // 10 and 20 ms
  EXPECT_EQ(j["request_count"], json({{"unit", "requests"}, {"avg", 2.0}}));
  EXPECT_DOUBLE_EQ(j["error_request_count"]["avg"].get<double>(), 1);
  EXPECT_DOUBLE_EQ(j["benchmark_duration"]["avg"].get<double>(), 0.31);  // 0 to 310 ms
  EXPECT_EQ(j["error_summary"][0]["error_details"]["message"], "Service Unavailable");
  EXPECT_EQ(j["start_time"], "2026-12-03T10:00:00.000000");
  EXPECT_EQ(j["end_time"], "2026-12-03T10:00:00.310000");
  const std::string csv = aiperf_csv(run.input());
  EXPECT_EQ(testing::aiperf_csv_problems(csv), std::vector<std::string>{});
  EXPECT_NE(csv.find("\r\nTime to First Token (ms),150.00,100.00,200.00,"), std::string::npos)
      << csv;
  EXPECT_NE(csv.find("\r\nRequest Count,2\r\n"), std::string::npos) << csv;
  EXPECT_NE(csv.find("\r\nRequest Throughput (requests/sec),6.45\r\n"), std::string::npos) << csv;
}

TEST(PeerFiles, GuidellmBenchmarksUnderItsDefinitions) {
  HandBuiltRun run;
  run.config.started_at = "2026-12-03T10:00:00Z";
  run.config.max_concurrency = 2;
  const json j = json::parse(guidellm_benchmarks(run.input()));
  EXPECT_EQ(testing::guidellm_benchmarks_problems(j), std::vector<std::string>{});
  const json& b = j["benchmarks"][0];
  EXPECT_EQ(b["args"]["strategy"], json({{"type_", "concurrent"}, {"streams", 2}}));
  EXPECT_EQ(b["request_totals"],
            json({{"successful", 2}, {"errored", 1}, {"incomplete", 0}, {"total", 3}}));
  EXPECT_DOUBLE_EQ(b["start_time"].get<double>(), 1796292000.0);  // the start label, epoch s
  const json& m = b["metrics"];
  EXPECT_NEAR(m["request_latency"]["successful"]["mean"].get<double>(), 0.1975, 1e-6);
  EXPECT_NEAR(m["time_to_first_token_ms"]["successful"]["median"].get<double>(), 100, 1e-3);
  // TPOT (last - first) / output tokens, weighted by them: 20/3 ms (x3) and 60/4 ms (x4).
  EXPECT_NEAR(m["time_per_output_token_ms"]["successful"]["mean"].get<double>(), 80.0 / 7, 1e-3);
  EXPECT_NEAR(m["time_per_output_token_ms"]["successful"]["median"].get<double>(), 15, 1e-3);
  // ITL (last - first) / (output - 1), weighted by output - 1: 10 ms (x2) and 20 ms (x3).
  EXPECT_NEAR(m["inter_token_latency_ms"]["successful"]["mean"].get<double>(), 16, 1e-3);
  EXPECT_EQ(m["output_token_count"]["errored"]["count"], 0);  // a failed request has no tokens
  EXPECT_EQ(m["request_latency"]["total"]["count"], 3);
  // Concurrency over 0 .. 400 ms: 1 to 50, 2 to 100, 3 to 125, then 2, 1 after 320.
  EXPECT_NEAR(m["request_concurrency"]["total"]["max"].get<double>(), 3, 1e-9);
  EXPECT_EQ(b["requests"]["errored"][0]["error"], "Service Unavailable");
}

TEST(PeerFiles, ExportNames) {
  EXPECT_TRUE(is_peer_export("vllm"));
  EXPECT_TRUE(is_peer_export("evalscope"));
  EXPECT_FALSE(is_peer_export("csv"));
  EXPECT_EQ(peer_exports({"csv", "evalscope"}), std::vector<std::string>{"evalscope"});
}

}  // namespace
}  // namespace tokenbench::report
