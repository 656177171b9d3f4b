// End to end: the client's read lag and the run's verdict (docs/METRICS.md, "Read lag" and
// "Verdict"). Measured from kernel stamps, per worker and per request, kept in telemetry.jsonl
// and rebuilt by `report`; "not measured" (never 0) with user stamps; and a server that queues,
// read by an idle client, is server-bound, never client-bound.

#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "process.h"

namespace tokenbench::e2e {
namespace {

TEST(ReadLag, MeasuredFromKernelStampsPerWorkerAndPerRequest) {
  SimProcess sim({"--ttft-ms", "2", "--itl-ms", "2"});
  const std::string dir = make_temp_dir("measured");
  const auto r =
      run_process(run_args(sim.url(), dir,
                           {"--num-prompts", "12", "--max-concurrency", "4", "--workers", "2",
                            "--input-len", "16", "--output-len", "20", "--gpu-metrics", "off"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto summary = read_json(dir + "/summary.json");
  const auto& client = summary["tokenbench"]["checks"]["client"];
  ASSERT_EQ(client["read_lag"], "measured") << client.dump();
  // Reads of every measured request's reply (a busy machine's late reads merge tokens: not one
  // read per token).
  EXPECT_GE(client["read_lag_reads"].get<int>(), 12) << client.dump();
  const double p50 = client["read_lag_p50_ms"], p99 = client["read_lag_p99_ms"],
               max = client["read_lag_max_ms"];
  EXPECT_GE(p50, 0);
  EXPECT_LE(p50, p99);
  EXPECT_LE(p99, max);
  ASSERT_EQ(client["workers"].size(), 2u);
  int reads = 0;
  for (const auto& w : client["workers"]) reads += w["read_lag_reads"].get<int>();
  EXPECT_EQ(reads, client["read_lag_reads"].get<int>());
  EXPECT_NE(r.out.find("client read lag: p50 "), std::string::npos) << r.out;
  // Each request's share of chunks read more than one ITL late.
  int shares = 0;
  for (const auto& rec : read_records(dir + "/requests.jsonl")) {
    if (rec["phase"] != "measure") continue;
    ASSERT_TRUE(rec.contains("read_late_share")) << rec.dump();
    EXPECT_GE(rec["read_late_share"].get<double>(), 0);
    EXPECT_LE(rec["read_late_share"].get<double>(), 1);
    ++shares;
  }
  EXPECT_EQ(shares, 12);
  EXPECT_EQ(client["read_late_requests_judged"], 12);
  // The workers' histograms are in telemetry.jsonl.
  int lines = 0;
  for (const auto& line : read_jsonl(dir + "/telemetry.jsonl")) lines += line["type"] == "read_lag";
  EXPECT_EQ(lines, 2);
  // The verdict, in summary.json, on the console, and in report.html's data.
  const auto& verdict = summary["tokenbench"]["verdict"];
  ASSERT_TRUE(verdict.is_object()) << summary["tokenbench"].dump();
  EXPECT_TRUE(verdict["bound"] == "healthy" || verdict["bound"] == "client-bound" ||
              verdict["bound"] == "server-bound" || verdict["bound"] == "network or framework")
      << verdict.dump();
  EXPECT_NE(r.out.find("\nVerdict: " + verdict["bound"].get<std::string>()), std::string::npos)
      << r.out;
  std::ifstream html(dir + "/report.html");
  const std::string page((std::istreambuf_iterator<char>(html)), std::istreambuf_iterator<char>());
  EXPECT_NE(page.find("\"read_lag_p99_ms\":["), std::string::npos);
  EXPECT_NE(page.find("\"verdict\":{\"bound\":"), std::string::npos);
  // `report` rebuilds the same checks and verdict from the results directory.
  const auto checks = summary["tokenbench"]["checks"].dump();
  const auto rep = run_process({TOKENBENCH_BINARY, "report", dir});
  ASSERT_EQ(rep.exit_code, 0) << rep.err;
  const auto again = read_json(dir + "/summary.json");
  EXPECT_EQ(again["tokenbench"]["checks"].dump(), checks);
  EXPECT_EQ(again["tokenbench"]["verdict"], verdict);
}

TEST(ReadLag, NotMeasuredWithUserStampsNeverZero) {
  SimProcess sim({"--ttft-ms", "1", "--itl-ms", "1"});
  const std::string dir = make_temp_dir("user");
  const auto r =
      run_process(run_args(sim.url(), dir,
                           {"--num-prompts", "6", "--max-concurrency", "2", "--output-len", "8",
                            "--stamps", "user", "--gpu-metrics", "off"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto summary = read_json(dir + "/summary.json");
  const auto& client = summary["tokenbench"]["checks"]["client"];
  EXPECT_EQ(client["read_lag"].get<std::string>().rfind("not measured: ", 0), 0u) << client.dump();
  EXPECT_TRUE(client["read_lag_p50_ms"].is_null());
  EXPECT_TRUE(client["read_lag_p99_ms"].is_null());
  EXPECT_TRUE(client["read_lag_max_ms"].is_null());
  EXPECT_EQ(client["read_lag_reads"], 0);
  EXPECT_NE(r.out.find("client read lag: not measured"), std::string::npos) << r.out;
  for (const auto& rec : read_records(dir + "/requests.jsonl")) {
    EXPECT_FALSE(rec.contains("read_late_share")) << rec.dump();
  }
  EXPECT_NE(
      summary["tokenbench"]["verdict"]["line"].get<std::string>().find("read lag not measured"),
      std::string::npos)
      << summary["tokenbench"]["verdict"].dump();
}

TEST(ReadLag, ASlowServerThatQueuesIsServerBoundNeverClientBound) {
  // Two sequences at a time and eight requests at once: six wait in the server's queue.
  SimProcess sim({"--max-num-seqs", "2"});
  const std::string dir = make_temp_dir("queueing");
  const auto r = run_process(
      run_args(sim.url(), dir,
               {"--num-prompts", "24", "--max-concurrency", "8", "--input-len", "64",
                "--output-len", "16", "--gpu-metrics", "off", "--fail-on-client-bound"}));
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  const auto summary = read_json(dir + "/summary.json");
  const auto& verdict = summary["tokenbench"]["verdict"];
  EXPECT_EQ(verdict["bound"], "server-bound") << verdict.dump() << r.out;
  EXPECT_EQ(verdict["kind"], "queueing") << verdict.dump();
  EXPECT_NE(verdict["line"].get<std::string>().find("server queue time mean"), std::string::npos)
      << verdict.dump();
  EXPECT_NE(r.out.find("\nVerdict: server-bound (queueing): server queue time mean"),
            std::string::npos)
      << r.out;
}

}  // namespace
}  // namespace tokenbench::e2e
