// End to end: bad input gets one clear line and the documented exit code, never a crash.

#include <gtest/gtest.h>

#include "process.h"

namespace tokenbench::e2e {
namespace {

TEST(EndToEndErrors, UnreachableServerExitsTwoWithOneLine) {
  const std::string dir = make_temp_dir("run");
  // Port 1 on loopback: nothing listens there.
  const auto r = run_process({TOKENBENCH_BINARY, "run", "--base-url", "http://127.0.0.1:1",
                              "--output-dir", dir, "--num-prompts", "2"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(count_lines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("cannot reach http://127.0.0.1:1"), std::string::npos) << r.err;
}

TEST(EndToEndErrors, BadUrlIsAUsageError) {
  const auto r = run_process({TOKENBENCH_BINARY, "run", "--base-url", "127.0.0.1:8000"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(count_lines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("must start with http://"), std::string::npos) << r.err;
}

TEST(EndToEndErrors, MissingDatasetFileIsAUsageError) {
  const auto r = run_process({TOKENBENCH_BINARY, "run", "--dataset", "jsonl", "--dataset-path",
                              "/nonexistent/data.jsonl"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(count_lines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("/nonexistent/data.jsonl"), std::string::npos) << r.err;
}

TEST(EndToEndErrors, BadFlagValuesAreUsageErrors) {
  for (const auto& args : std::vector<std::vector<std::string>>{{"--goodput", "ttft=5"},
                                                                {"--percentiles", "50,abc"},
                                                                {"--api", "grpc"},
                                                                {"--request-rate", "-1"},
                                                                {"--no-such-flag"}}) {
    std::vector<std::string> full{TOKENBENCH_BINARY, "run"};
    full.insert(full.end(), args.begin(), args.end());
    const auto r = run_process(full);
    EXPECT_EQ(r.exit_code, 1) << args[0] << ": " << r.err;
    EXPECT_FALSE(r.err.empty()) << args[0];
  }
}

TEST(EndToEndErrors, ReportOfAMissingDirectory) {
  const auto r = run_process({TOKENBENCH_BINARY, "report", "/nonexistent-results"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(count_lines(r.err), 1) << r.err;
}

}  // namespace
}  // namespace tokenbench::e2e
