// End to end: the run's guards against a failing server (retries, --max-error-rate, preflight)
// with serve-sim's fault injection.

#include <gtest/gtest.h>

#include "process.h"

namespace tokenbench::e2e {
namespace {

TEST(EndToEndFaults, RetriedRequestsAreRecordedAndCountedOnce) {
  SimProcess sim({"--time-scale", "10", "--fault", "http_429:every=4"});
  const std::string dir = make_temp_dir("retries");
  const auto r =
      run_process(run_args(sim.url(), dir,
                           {"--num-prompts", "12", "--max-concurrency", "2", "--input-len", "16",
                            "--output-len", "4", "--retries", "3", "--seed", "1"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto records = read_records(dir + "/requests.jsonl");
  int retried = 0;
  int final_after_retry = 0;
  int finals = 0;
  for (const auto& rec : records) {
    if (rec.value("retried", false)) {
      ++retried;
      EXPECT_EQ(rec["error"], "rate_limited");
      EXPECT_EQ(rec["http_status"], 429);
    } else {
      ++finals;
      if (rec.value("attempt", 0) > 0) ++final_after_retry;
    }
  }
  EXPECT_GT(retried, 0);
  EXPECT_EQ(finals, 12);
  const auto summary = read_json(dir + "/summary.json")["tokenbench"];
  EXPECT_EQ(summary["requests"]["measured"], 12);
  EXPECT_EQ(summary["requests"]["completed"], 12);
  EXPECT_EQ(summary["retries"]["retried_attempts"], retried);
  EXPECT_EQ(summary["retries"]["by_class"]["rate_limited"], retried);
  EXPECT_EQ(summary["retries"]["completed_after_retry"], final_after_retry);
  EXPECT_NE(r.out.find("failed attempts were retried (rate_limited x"), std::string::npos) << r.out;
}

TEST(EndToEndFaults, AbortOnErrorRateStopsARunThatOnlyMeasuresErrors) {
  SimProcess sim({"--time-scale", "10", "--fault", "http_500:0.9", "--seed", "3"});
  const std::string dir = make_temp_dir("error-rate");
  const auto r = run_process(
      run_args(sim.url(), dir,
               {"--num-prompts", "2000", "--max-concurrency", "4", "--input-len", "16",
                "--output-len", "4", "--abort-on-error-rate", "0.5", "--fail-fast", "0"}));
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("stopped early (--abort-on-error-rate 0.5)"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("most as http_5xx"), std::string::npos) << r.err;
  const auto summary = read_json(dir + "/summary.json")["tokenbench"];
  EXPECT_LT(summary["requests"]["measured"].get<int>(), 200);
  EXPECT_NE(summary["stopped"].get<std::string>().find("--abort-on-error-rate"), std::string::npos);
  // Requests stopped in flight are recorded as canceled, every one of them kept.
  EXPECT_EQ(read_records(dir + "/requests.jsonl").size(),
            summary["requests"]["measured"].get<std::size_t>() +
                summary["requests"]["canceled"].get<std::size_t>());
}

TEST(EndToEndFaults, ARunWhereMostRequestsFailedExitsTwoWithTheErrorsFirst) {
  SimProcess sim({"--time-scale", "10", "--fault", "http_500:0.8", "--seed", "3"});
  const std::string dir = make_temp_dir("mostly-errors");
  const std::vector<std::string> common{"--num-prompts", "60", "--max-concurrency", "4",
                                        "--input-len",   "16", "--output-len",      "4",
                                        "--fail-fast",   "0"};
  const auto r = run_process(run_args(sim.url(), dir, common));
  EXPECT_EQ(r.exit_code, 2) << r.err;
  // The first error said is the summary of the errors (printed before the tables), the last
  // the run's verdict.
  const auto first = r.err.find("tokenbench: error: ");
  ASSERT_NE(first, std::string::npos) << r.err;
  const std::string first_line = r.err.substr(first, r.err.find('\n', first) - first);
  EXPECT_NE(first_line.find("measured requests failed"), std::string::npos) << r.err;
  EXPECT_LT(r.err.find("measured requests failed"), r.err.find("the run failed")) << r.err;
  EXPECT_NE(r.err.find("http_5xx"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("over --max-error-rate 50%"), std::string::npos) << r.err;
  // The threshold is the user's: 1 never fails a run on its errors.
  const std::string tolerant = make_temp_dir("mostly-errors-tolerated");
  std::vector<std::string> args = common;
  args.insert(args.end(), {"--max-error-rate", "1"});
  EXPECT_EQ(run_process(run_args(sim.url(), tolerant, args)).exit_code, 0);
}

TEST(EndToEndFaults, NoPreflightNeedsAModelAndSkipsModelsList) {
  const std::string dir = make_temp_dir("no-preflight");
  const auto without = run_process({TOKENBENCH_BINARY, "run", "--base-url", "http://127.0.0.1:1",
                                    "--output-dir", dir, "--no-preflight", "--num-prompts", "1"});
  EXPECT_EQ(without.exit_code, 1) << without.err;
  EXPECT_NE(without.err.find("pass --model NAME"), std::string::npos) << without.err;

  SimProcess sim({"--time-scale", "10"});
  const auto with_model =
      run_process(run_args(sim.url(), dir,
                           {"--no-preflight", "--model", "sim-model", "--num-prompts", "3",
                            "--input-len", "16", "--output-len", "4"}));
  EXPECT_EQ(with_model.exit_code, 0) << with_model.err;
  EXPECT_EQ(read_json(dir + "/summary.json")["tokenbench"]["requests"]["completed"], 3);
}

TEST(EndToEndFaults, DatasetPathThatIsADirectoryIsNamedSo) {
  const std::string dir = make_temp_dir("dataset-dir");
  const auto r =
      run_process({TOKENBENCH_BINARY, "run", "--dataset", "jsonl", "--dataset-path", dir});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("is a directory"), std::string::npos) << r.err;
}

TEST(EndToEndFaults, NewLimitFlagsAreValidated) {
  for (const auto& args : std::vector<std::vector<std::string>>{{"--max-event-bytes", "lots"},
                                                                {"--max-event-bytes", "10"},
                                                                {"--ttft-timeout", "-1"},
                                                                {"--connect-timeout", "0"},
                                                                {"--retries", "1000"},
                                                                {"--max-error-rate", "1.5"},
                                                                {"--abort-on-error-rate", "1"},
                                                                {"--target-load", "both"}}) {
    std::vector<std::string> full{TOKENBENCH_BINARY, "run"};
    full.insert(full.end(), args.begin(), args.end());
    const auto r = run_process(full);
    EXPECT_EQ(r.exit_code, 1) << args[0] << ": " << r.err;
    EXPECT_NE(r.err.find(args[0]), std::string::npos) << r.err;
  }
}

}  // namespace
}  // namespace tokenbench::e2e
