// End to end, run alone (RUN_SERIAL): a sweep and an SLO search against serve-sim's engine model,
// whose curves must not be bent by other tests competing for the 2 cores. Loopback only.

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "process.h"

namespace tokenbench::e2e {
namespace {

using nlohmann::json;

// The documented knee rule, restated independently of the implementation: walk up the levels
// while each step's throughput gain is at least `threshold` times its p95 E2EL rise.
std::size_t knee_of(const json& levels, double threshold) {
  std::size_t knee = 0;
  for (std::size_t i = 1; i < levels.size(); ++i) {
    const double x0 = levels[i - 1]["request_throughput"], x1 = levels[i]["request_throughput"];
    const double l0 = levels[i - 1]["p95_e2el_ms"], l1 = levels[i]["p95_e2el_ms"];
    const double gain = x1 / x0 - 1;
    if (!(gain > 0) || gain < threshold * (l1 / l0 - 1)) break;
    knee = i;
  }
  return knee;
}

TEST(ExperimentSerial, SweepRisesFallsAndMarksItsKneeAndBestLevel) {
  SimProcess sim({"--preset", "llama3.1-8b-a100", "--time-scale", "10", "--seed", "1"});
  const std::string dir = make_temp_dir("sweep");
  const double slo_ms = 50;  // p95 TTFT in the sim's sped-up time
  const auto r = run_process({TOKENBENCH_BINARY,
                              "run",
                              "--base-url",
                              sim.url(),
                              "--output-dir",
                              dir,
                              "--quiet",
                              "--max-concurrency",
                              "1,8,16,32,64",
                              "--duration",
                              "3",
                              "--warmup",
                              "8",
                              "--input-len",
                              "512",
                              "--output-len",
                              "256",
                              "--seed",
                              "1",
                              "--slo",
                              fmt::format("p95_ttft_ms<={}", slo_ms)},
                             std::chrono::seconds(120));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json sweep = read_json(dir + "/sweep.json");
  const json& levels = sweep["levels"];
  ASSERT_EQ(levels.size(), 5u);
  SCOPED_TRACE(r.out);
  std::vector<double> x;
  for (std::size_t i = 0; i < levels.size(); ++i) {
    EXPECT_EQ(levels[i]["dir"], fmt::format("c{}", std::vector<int>{1, 8, 16, 32, 64}[i]));
    EXPECT_TRUE(levels[i]["complete"].get<bool>());
    EXPECT_EQ(levels[i]["failed"], 0);
    x.push_back(levels[i]["request_throughput"].get<double>());
    // Each level is a complete results directory whose summary the sweep carries.
    const json own = read_json(dir + "/" + levels[i]["dir"].get<std::string>() + "/summary.json");
    EXPECT_EQ(own["completed"], levels[i]["completed"]);
    EXPECT_EQ(own["p95_ttft_ms"], levels[i]["p95_ttft_ms"]);
  }
  // The preset's shape: throughput rises while the batch fills, then falls once the KV cache
  // thrashes at 64.
  EXPECT_GT(x[1], 4 * x[0]);
  EXPECT_GT(x[2], x[1]);
  EXPECT_GT(x[3], x[2]);
  EXPECT_LT(x[4], x[3]);

  // The readings are the levels that the per-level figures imply.
  const std::size_t knee = knee_of(levels, 1.0);
  ASSERT_FALSE(sweep["knee"].is_null());
  EXPECT_EQ(sweep["knee"]["index"], knee);
  std::optional<std::size_t> best;
  for (std::size_t i = 0; i < levels.size(); ++i) {
    if (levels[i]["p95_ttft_ms"].get<double>() <= slo_ms && (!best || x[i] > x[*best])) best = i;
    EXPECT_EQ(levels[i]["meets_slo"].get<bool>(), levels[i]["p95_ttft_ms"].get<double>() <= slo_ms);
  }
  ASSERT_TRUE(best.has_value());
  EXPECT_EQ(sweep["best"]["index"], *best);
  // The console marks both on their rows.
  const std::string knee_dir = levels[knee]["dir"].get<std::string>().substr(1);
  const auto knee_row = r.out.find(fmt::format("{:>14} ", knee_dir));
  ASSERT_NE(knee_row, std::string::npos);
  EXPECT_NE(r.out.substr(knee_row, r.out.find('\n', knee_row) - knee_row).find("<- knee"),
            std::string::npos);
  EXPECT_NE(r.out.find("Best under SLO (p95_ttft_ms<=50)"), std::string::npos);
}

TEST(ExperimentSerial, SearchAnswerIsWhereTheSloFlips) {
  // At most 8 sequences run at once: from concurrency 9 on, requests queue for a slot and the
  // p95 TTFT jumps by a share of a whole request's time.
  const std::vector<std::string> sim_args{"--time-scale",   "5", "--seed", "1",
                                          "--max-num-seqs", "8"};
  const std::string slo = "p95_ttft_ms<=35";
  const std::vector<std::string> workload{"--num-prompts", "60", "--input-len", "256",
                                          "--output-len",  "64", "--seed",      "2"};
  SimProcess sim(sim_args);
  // Establish the flip independently: separate plain runs at 8 and 9.
  auto p95_at = [&](int c) {
    const std::string dir = make_temp_dir(fmt::format("fixed-{}", c));
    std::vector<std::string> args{TOKENBENCH_BINARY, "run", "--base-url", sim.url(),
                                  "--output-dir",    dir,   "--quiet",    "--max-concurrency",
                                  std::to_string(c)};
    args.insert(args.end(), workload.begin(), workload.end());
    const auto r = run_process(args, std::chrono::seconds(60));
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return read_json(dir + "/summary.json")["p95_ttft_ms"].get<double>();
  };
  const double at8 = p95_at(8);
  const double at9 = p95_at(9);
  ASSERT_LE(at8, 35) << "p95 TTFT at concurrency 8: " << at8;
  ASSERT_GT(at9, 35) << "p95 TTFT at concurrency 9: " << at9;

  const std::string dir = make_temp_dir("search");
  std::vector<std::string> args{TOKENBENCH_BINARY,
                                "search",
                                "--base-url",
                                sim.url(),
                                "--output-dir",
                                dir,
                                "--quiet",
                                "--slo",
                                slo,
                                "--vary",
                                "max-concurrency",
                                "--min",
                                "1",
                                "--max",
                                "32"};
  args.insert(args.end(), workload.begin(), workload.end());
  const auto r = run_process(args, std::chrono::seconds(120));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json s = read_json(dir + "/search.json");
  EXPECT_EQ(s["answer"]["status"], "found") << s.dump(1);
  EXPECT_EQ(s["answer"]["value"], 8) << s.dump(1);
  EXPECT_EQ(s["answer"]["failing_value"], 9) << s.dump(1);
  EXPECT_NE(r.out.find("Under p95_ttft_ms<=35 the maximum throughput is "), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("at concurrency 8, the largest load meeting them (9 breaks them)"),
            std::string::npos)
      << r.out;
  // Every probe is a normal results directory.
  for (const auto& p : s["probes"]) {
    EXPECT_EQ(read_json(dir + "/" + p["dir"].get<std::string>() + "/summary.json")["completed"],
              60);
  }
  // Bracketing doubled 1, 2, 4, 8, 16; bisection then tried 12, 10, 9.
  std::vector<double> probed;
  for (const auto& d : s["trajectory"]) probed.push_back(d["value"].get<double>());
  EXPECT_EQ(probed, (std::vector<double>{1, 2, 4, 8, 16, 12, 10, 9}));
}

}  // namespace
}  // namespace tokenbench::e2e
