// End to end: --stop-on-saturation ends a run whose request rate the server cannot carry (the
// wait for a first token grows without bound), keeps what it measured, and says why.

#include <gtest/gtest.h>

#include "process.h"

namespace tokenbench::e2e {
namespace {

using nlohmann::json;

TEST(Saturation, ARateTheServerCannotCarryStopsTheRunEarly) {
  // Two running sequences carry about 90 req/s of these requests (ten times real time): 300 req/s
  // queue up in the client behind --max-concurrency 32, and the wait grows.
  SimProcess sim({"--time-scale", "10", "--max-num-seqs", "2", "--seed", "1"});
  const std::string dir = make_temp_dir("saturation");
  const auto r = run_process(run_args(sim.url(), dir,
                                      {"--request-rate", "300", "--max-concurrency", "32",
                                       "--duration", "40", "--num-prompts", "0", "--input-len",
                                       "256", "--output-len", "64", "--stop-on-saturation"}),
                             std::chrono::seconds(90));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("stopped early: --stop-on-saturation: the wait for a first token kept "
                       "growing"),
            std::string::npos)
      << r.out;
  const json s = read_json(dir + "/summary.json");
  EXPECT_LT(s["duration"].get<double>(), 20.0);  // of 40 s asked for
  EXPECT_GT(s["completed"].get<int>(), 100);
  const std::string stopped = s["tokenbench"]["stopped"].dump();
  EXPECT_NE(stopped.find("--stop-on-saturation"), std::string::npos) << stopped;
}

TEST(Saturation, AClosedLoopIsRefused) {
  const auto r = run_process({TOKENBENCH_BINARY, "run", "--max-concurrency", "8", "--num-prompts",
                              "1", "--stop-on-saturation"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("--stop-on-saturation needs --request-rate R"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace tokenbench::e2e
