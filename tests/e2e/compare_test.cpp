// End to end: `tokenbench compare` on real runs of `tokenbench run` against serve-sim.

#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "process.h"

namespace tokenbench::e2e {
namespace {

using nlohmann::json;

// Fixed-delay timing of the baseline server and of one 15% slower in every delay. The jitter
// (uniform in [-J, +J] on each delay) makes repeated runs differ as real ones do.
const std::vector<std::string> kBaseSim{"--ttft-ms", "100", "--itl-ms", "10", "--jitter-ms", "3"};
const std::vector<std::string> kSlowSim{"--ttft-ms", "115", "--itl-ms", "11.5", "--jitter-ms", "3"};

// One small run: 80 requests, 8 in flight, OUTPUT_LEN output tokens each: about 2.5 s.
void bench_into(const std::string& url, const std::string& dir,
                const std::string& output_len = "16") {
  const auto r = run_process(
      {TOKENBENCH_BINARY, "run", "--base-url", url, "--output-dir", dir, "--quiet", "--num-prompts",
       "80", "--max-concurrency", "8", "--input-len", "32", "--output-len", output_len},
      std::chrono::seconds(30));
  ASSERT_EQ(r.exit_code, 0) << r.err;
}

ProcessResult compare(std::vector<std::string> args) {
  args.insert(args.begin(), {TOKENBENCH_BINARY, "compare"});
  return run_process(args, std::chrono::seconds(30));
}

// The table row of `figure` in compare's console output ("" when absent).
std::string row_of(const std::string& out, const std::string& figure) {
  std::istringstream in(out);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("| " + figure + " ", 0) == 0) return line;
  }
  return "";
}

const json* figure_of(const json& comparison, const std::string& name) {
  for (const json& f : comparison["figures"]) {
    if (f["name"] == name) return &f;
  }
  return nullptr;
}

// Four runs shared by the tests: BASE and AGAIN on the baseline server, SHORT there too with
// 8 output tokens instead of 16, and SLOW on the slow server (another port: another base URL).
class CompareEndToEnd : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    base_ = make_temp_dir("base");
    again_ = make_temp_dir("again");
    short_ = make_temp_dir("short");
    slow_ = make_temp_dir("slow");
    {
      SimProcess sim(kBaseSim);
      bench_into(sim.url(), base_);
      bench_into(sim.url(), again_);
      bench_into(sim.url(), short_, "8");
    }
    SimProcess slow_sim(kSlowSim);
    bench_into(slow_sim.url(), slow_);
  }
  static std::string base_, again_, short_, slow_;
};

std::string CompareEndToEnd::base_;
std::string CompareEndToEnd::again_;
std::string CompareEndToEnd::short_;
std::string CompareEndToEnd::slow_;

TEST_F(CompareEndToEnd, PlantedSlowdownIsWorseAndFailsTheGate) {
  const std::string json_path = make_temp_dir("out") + "/compare.json";
  // The slow server listens on another port: another target, compared on request, and the
  // difference listed above the table.
  const auto r = compare({base_, slow_, "--allow-different", "--fail-on-regression",
                          "p50_ttft_ms:5%", "--json", json_path});
  EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
  EXPECT_NE(r.out.find("configurations differ:\n  target.base_url: http://127.0.0.1:"),
            std::string::npos)
      << r.out;
  for (const char* name : {"p50_ttft_ms", "mean_ttft_ms", "p50_e2el_ms", "mean_tpot_ms"}) {
    EXPECT_NE(row_of(r.out, name).find("| worse"), std::string::npos) << name << "\n" << r.out;
  }
  EXPECT_NE(r.out.find("gate p50_ttft_ms:5%: FAILED"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(slow_ + " vs " + base_ + ": worse in "), std::string::npos) << r.out;

  const json doc = json::parse(slurp(json_path));
  EXPECT_EQ(doc["base"], base_);
  const json& cmp = doc["comparisons"][0];
  EXPECT_EQ(cmp["new"], slow_);
  const json* p50 = figure_of(cmp, "p50_ttft_ms");
  ASSERT_NE(p50, nullptr);
  EXPECT_EQ((*p50)["verdict"], "worse");
  // 15 ms more of about 100 ms (plus a little client time).
  EXPECT_NEAR((*p50)["delta_pct"].get<double>(), 15.0, 4.0);
  EXPECT_GT((*p50)["ci_low_pct"].get<double>(), 5.0);
  ASSERT_EQ(cmp["regressions"].size(), 1u);
  EXPECT_EQ(cmp["regressions"][0]["figure"], "p50_ttft_ms");
  ASSERT_EQ(cmp["config_differences"].size(), 1u);
  EXPECT_EQ(cmp["config_differences"][0]["field"], "target.base_url");

  // A margin the slowdown does not reach passes.
  const auto lenient =
      compare({base_, slow_, "--allow-different", "--fail-on-regression", "p50_ttft_ms:30%"});
  EXPECT_EQ(lenient.exit_code, 0) << lenient.out << lenient.err;
  // A failed gate outranks one that could not be judged.
  const auto both = compare(
      {base_, slow_, "--allow-different", "--fail-on-regression", "p50_ttft_ms:5%,p99_ttft_ms:5%"});
  EXPECT_EQ(both.exit_code, 3) << both.out << both.err;
}

TEST_F(CompareEndToEnd, GateThatCannotBeJudgedFailsWithItsOwnCode) {
  // p99 of 80 requests: nothing bounds BASE's p99 from above, so no regression could fail this
  // gate. It used to pass (exit 0); it exits 5 now unless --unjudged pass.
  const auto r = compare({base_, again_, "--fail-on-regression", "p99_ttft_ms:5%"});
  EXPECT_EQ(r.exit_code, 5) << r.out << r.err;
  EXPECT_NE(r.out.find("gate p99_ttft_ms:5%: NOT JUDGED"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("error: gate p99_ttft_ms could not be judged for " + again_),
            std::string::npos)
      << r.err;
  const auto passing =
      compare({base_, again_, "--fail-on-regression", "p99_ttft_ms:5%", "--unjudged", "pass"});
  EXPECT_EQ(passing.exit_code, 0) << passing.out << passing.err;
  EXPECT_NE(passing.err.find("warning: gate p99_ttft_ms could not be judged"), std::string::npos)
      << passing.err;
  EXPECT_EQ(compare({base_, again_, "--unjudged", "maybe"}).exit_code, 1);
}

TEST_F(CompareEndToEnd, RunsOfAnotherWorkloadAreRefused) {
  const auto r = compare({base_, short_, "--fail-on-regression", "p50_ttft_ms:5%"});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
  EXPECT_NE(r.err.find(short_ + " and " + base_ +
                       " were measured with different configurations: workload.output_len (16 -> "
                       "8); compare runs of one workload and target, or pass --allow-different"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << r.err;

  // A directory without config.yaml cannot be checked: a warning, and the comparison goes on.
  const std::string unchecked = make_temp_dir("unchecked") + "/short";
  std::filesystem::copy(short_, unchecked);
  std::filesystem::remove(unchecked + "/config.yaml");
  const auto warned = compare({base_, unchecked});
  EXPECT_EQ(warned.exit_code, 0) << warned.err;
  EXPECT_NE(warned.err.find("warning: cannot check that " + base_ + " and " + unchecked +
                            " measured the same workload: " + unchecked + " has no config.yaml"),
            std::string::npos)
      << warned.err;

  const auto allowed = compare({base_, short_, "--allow-different"});
  EXPECT_EQ(allowed.exit_code, 0) << allowed.out << allowed.err;
  EXPECT_NE(allowed.out.find("configurations differ:\n  workload.output_len: 16 -> 8\n+---"),
            std::string::npos)
      << allowed.out;
}

TEST_F(CompareEndToEnd, RepeatedRunShowsNoSignificantChange) {
  const auto r = compare({base_, again_, "--fail-on-regression", "p50_ttft_ms:5%,p50_e2el_ms:5"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(row_of(r.out, "p50_ttft_ms").find("| ~"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("gate p50_ttft_ms:5%: passed"), std::string::npos) << r.out;

  // --json - prints the document instead of the tables; several NEW runs give several entries.
  const auto j =
      compare({base_, again_, slow_, "--json", "-", "--resamples", "500", "--allow-different"});
  EXPECT_EQ(j.exit_code, 0) << j.err;
  const json doc = json::parse(j.out);
  EXPECT_EQ(doc["resamples"], 500);
  ASSERT_EQ(doc["comparisons"].size(), 2u);
  EXPECT_EQ(figure_of(doc["comparisons"][0], "p50_ttft_ms")->at("verdict"),
            "no significant change");
  EXPECT_EQ(figure_of(doc["comparisons"][1], "p50_ttft_ms")->at("verdict"), "worse");
  EXPECT_EQ(figure_of(doc["comparisons"][0], "request_throughput")->at("interval"),
            "window bootstrap");
  EXPECT_TRUE(doc["comparisons"][0]["config_differences"].empty());
}

TEST(CompareEndToEndErrors, BadDirectoryOrGateExitsOne) {
  const std::string empty = make_temp_dir("empty");
  const auto missing = compare({empty + "/nope", empty});
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_NE(missing.err.find("is not a directory"), std::string::npos) << missing.err;
  EXPECT_EQ(missing.err.find('\n'), missing.err.size() - 1) << missing.err;

  const auto not_results = compare({empty, empty});
  EXPECT_EQ(not_results.exit_code, 1);
  EXPECT_NE(not_results.err.find("has no requests.jsonl"), std::string::npos) << not_results.err;

  const auto gate = compare({empty, empty, "--fail-on-regression", "p95_latency_ms:5%"});
  EXPECT_EQ(gate.exit_code, 1);
  EXPECT_NE(gate.err.find("unknown figure 'p95_latency_ms'"), std::string::npos) << gate.err;
  EXPECT_NE(gate.err.find("p95_ttft_ms"), std::string::npos) << gate.err;
  EXPECT_EQ(gate.err.find('\n'), gate.err.size() - 1) << gate.err;

  EXPECT_EQ(compare({empty}).exit_code, 1);  // NEW is required
  EXPECT_EQ(compare({empty, empty, "--min-effect", "lots"}).exit_code, 1);
}

}  // namespace
}  // namespace tokenbench::e2e
