// End to end: --repeats N runs a measurement N times with seeds seed, seed+1, ...; the root's
// summary.json holds each figure's mean with its t-interval, which must contain the known mean
// of a fixed-delay server; sweeps show mean ± half-width per level; compare takes groups.

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include "process.h"

namespace tokenbench::e2e {
namespace {

using nlohmann::json;

// TTFT uniform in [20, 60] ms (40 ± 20): its mean is known to be 40 ms.
std::vector<std::string> fixed_delays() {
  return {"--ttft-ms", "40", "--itl-ms", "5", "--jitter-ms", "20", "--seed", "1"};
}

std::vector<std::string> small_load() {
  return {"--num-prompts", "16", "--max-concurrency", "1",
          "--output-len",  "4",  "--input-len",       "16"};
}

TEST(Repeats, IntervalsContainTheKnownMeanOfAFixedDelayServer) {
  SimProcess sim(fixed_delays());
  const std::string dir = make_temp_dir("repeats");
  const auto r = run_process(run_args(sim.url(), dir, with(small_load(), {"--repeats", "3"})),
                             std::chrono::seconds(60));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json s = read_json(dir + "/summary.json");
  const json& rep = s["tokenbench"]["repeats"];
  EXPECT_EQ(rep["n"], 3);
  EXPECT_EQ(rep["seeds"], json({0, 1, 2}));
  const json& ttft = rep["figures"]["mean_ttft_ms"];
  EXPECT_LE(ttft["lo"].get<double>(), 40.0) << ttft;
  EXPECT_GE(ttft["hi"].get<double>(), 40.0) << ttft;
  EXPECT_GT(ttft["half_width"].get<double>(), 0.0);
  // The root's figure is the mean of the runs' own summaries.
  double sum = 0;
  for (int i = 1; i <= 3; ++i) {
    const json run = read_json(dir + "/repeat-" + std::to_string(i) + "/summary.json");
    EXPECT_EQ(run["completed"], 16);
    sum += run["mean_ttft_ms"].get<double>();
  }
  EXPECT_NEAR(s["mean_ttft_ms"].get<double>(), sum / 3, 1e-9);
  EXPECT_TRUE(std::filesystem::is_regular_file(dir + "/config.yaml"));
  EXPECT_NE(r.out.find("Over 3 runs"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Mean TTFT (ms)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(" ± "), std::string::npos) << r.out;

  // `report` on the root prints the same table; compare takes the root as a group of runs.
  const auto rep_out = run_process({TOKENBENCH_BINARY, "report", dir});
  EXPECT_EQ(rep_out.exit_code, 0) << rep_out.err;
  EXPECT_NE(rep_out.out.find("Over 3 runs"), std::string::npos) << rep_out.out;
  const std::string again = make_temp_dir("repeats-again");
  ASSERT_EQ(
      run_process(run_args(sim.url(), again, with(small_load(), {"--repeats", "2", "--seed", "7"})),
                  std::chrono::seconds(60))
          .exit_code,
      0);
  const auto cmp = run_process({TOKENBENCH_BINARY, "compare", dir, again, "--json", "-"});
  ASSERT_EQ(cmp.exit_code, 0) << cmp.err;
  const json doc = json::parse(cmp.out);
  EXPECT_EQ(doc["comparisons"][0]["base_runs"], 3);
  EXPECT_EQ(doc["comparisons"][0]["new_runs"], 2);
  bool found = false;
  for (const auto& f : doc["comparisons"][0]["figures"]) {
    if (f["name"] != "request_throughput") continue;
    found = true;
    EXPECT_EQ(f["interval"], "run-level t");
    EXPECT_TRUE(f["ci_low"].is_number());  // throughput gets an interval from the runs' spread
  }
  EXPECT_TRUE(found);
  // The same groups given with "--": BASE's runs, then NEW's.
  const auto split =
      run_process({TOKENBENCH_BINARY, "compare", dir + "/repeat-1", dir + "/repeat-2", "--",
                   again + "/repeat-1", again + "/repeat-2"});
  ASSERT_EQ(split.exit_code, 0) << split.err;
  EXPECT_NE(split.out.find("BASE 2 runs:"), std::string::npos) << split.out;
  EXPECT_NE(split.out.find("Welch's t over each run's own figure (2 BASE, 2 NEW runs"),
            std::string::npos)
      << split.out;
}

TEST(Repeats, EachSweepLevelShowsItsMeanAndInterval) {
  SimProcess sim(fixed_delays());
  const std::string dir = make_temp_dir("repeats-sweep");
  auto args = run_args(sim.url(), dir,
                       {"--num-prompts", "8", "--max-concurrency", "1,2", "--output-len", "4",
                        "--input-len", "16", "--repeats", "2"});
  const auto r = run_process(args, std::chrono::seconds(60));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json sweep = read_json(dir + "/sweep.json");
  ASSERT_EQ(sweep["levels"].size(), 2u);
  for (const auto& level : sweep["levels"]) {
    const json& rep = level["tokenbench"]["repeats"];
    EXPECT_EQ(rep["n"], 2) << level["dir"];
    EXPECT_TRUE(rep["figures"]["request_throughput"]["lo"].is_number());
  }
  EXPECT_TRUE(std::filesystem::is_directory(dir + "/c2/repeat-2"));
  EXPECT_NE(r.out.find(" ± "), std::string::npos) << r.out;
  // --resume keeps both levels: their config.yaml is at the level's root.
  args.insert(args.end(), {"--resume", dir});
  const auto resumed = run_process(args, std::chrono::seconds(60));
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  EXPECT_NE(resumed.err.find("level c2: complete in an earlier run, kept"), std::string::npos)
      << resumed.err;
}

TEST(Repeats, OutOfRangeIsRefused) {
  const auto r = run_process({TOKENBENCH_BINARY, "run", "--repeats", "0", "--num-prompts", "1"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("--repeats must be 1 to 100"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace tokenbench::e2e
