// End to end: --steady-state auto on a run whose rate ramps up: the window leaves the ramp out,
// its figures beside the whole run's, and `tokenbench report` finds the same window again.

#include <gtest/gtest.h>

#include "process.h"

namespace tokenbench::e2e {
namespace {

using nlohmann::json;

TEST(SteadyState, TheWindowOfARampedRunLeavesTheRampOut) {
  SimProcess sim({"--ttft-ms", "20", "--itl-ms", "5", "--seed", "1"});
  const std::string dir = make_temp_dir("steady-state");
  // 5 req/s climbing to 60 over 3 s, then 60 req/s to the end at 8 s.
  const auto r =
      run_process(run_args(sim.url(), dir,
                           {"--request-rate", "60", "--ramp-up", "linear", "--ramp-up-start-rps",
                            "5", "--ramp-up-duration", "3", "--duration", "8", "--num-prompts", "0",
                            "--output-len", "20", "--input-len", "16", "--steady-state", "auto"}),
                  std::chrono::seconds(60));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json s = read_json(dir + "/summary.json");
  const json& steady = s["tokenbench"]["steady_state"];
  ASSERT_EQ(steady["found"], true) << steady;
  EXPECT_GT(steady["start_s"].get<double>(), 1.0) << steady;  // after most of the ramp
  EXPECT_LT(steady["start_s"].get<double>(), 3.3) << steady;
  EXPECT_GT(steady["end_s"].get<double>(), 7.0) << steady;
  EXPECT_LT(steady["requests"].get<int>(), s["completed"].get<int>());
  // The steady rate is the plateau's, above the whole run's average over the ramp.
  EXPECT_GT(steady["figures"]["request_throughput"].get<double>(),
            1.08 * s["request_throughput"].get<double>())
      << steady;
  EXPECT_NE(r.out.find("Steady state (--steady-state auto): "), std::string::npos) << r.out;
  // Rebuilt from requests.jsonl alone: the same window and figures.
  const auto rep = run_process({TOKENBENCH_BINARY, "report", dir});
  ASSERT_EQ(rep.exit_code, 0) << rep.err;
  EXPECT_EQ(read_json(dir + "/summary.json")["tokenbench"]["steady_state"], steady);
}

TEST(SteadyState, AnUnknownModeIsRefused) {
  const auto r =
      run_process({TOKENBENCH_BINARY, "run", "--num-prompts", "1", "--steady-state", "sometimes"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("--steady-state 'sometimes' is not known: give off or auto"),
            std::string::npos)
      << r.err;
}

}  // namespace
}  // namespace tokenbench::e2e
