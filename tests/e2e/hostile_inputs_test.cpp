// End to end: the hostile local inputs (issue 25, items 6 and 9) through the binary. A
// dataset line nested 100,000 deep (SIGSEGV before), --input-dist empirical:/dev/zero (5 GB and
// never ending before) and lines over --max-line-bytes in a dataset and in requests.jsonl read by
// `report` are each one line on stderr naming the file and the line, with exit code 1.

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <string>

#include "process.h"

namespace tokenbench::e2e {
namespace {

std::vector<std::string> offline_run(const std::string& out_dir) {
  return {TOKENBENCH_BINARY, "run", "--base-url", "http://127.0.0.1:9", "--no-preflight",
          "--model",         "m",   "--quiet",    "--output-dir",       out_dir};
}

void expect_one_line_error(const ProcessResult& r, const std::string& needle) {
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_FALSE(r.timed_out);
  EXPECT_NE(r.err.find(needle), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
}

TEST(EndToEndHostileInputs, DeeplyNestedDatasetLineIsAOneLineError) {
  const std::string dir = make_temp_dir("hostile-deep");
  const std::string path = dir + "/deep.jsonl";
  std::ofstream(path) << "{\"prompt\":\"hi\"}\n{\"messages\":[{\"role\":\"user\",\"content\":"
                      << std::string(100'000, '[') << std::string(100'000, ']') << "}]}\n";
  const auto r =
      run_process(with(offline_run(dir + "/out"), {"--dataset", "jsonl", "--dataset-path", path}));
  expect_one_line_error(r, "dataset " + path +
                               " line 2: nested deeper than 256 levels, the limit of JSON "
                               "documents read (at byte 291)");
}

TEST(EndToEndHostileInputs, EmpiricalLengthsFromDevZeroStopAtTheLineLimit) {
  const std::string dir = make_temp_dir("hostile-zero");
  const auto r =
      run_process(with(offline_run(dir + "/out"), {"--input-dist", "empirical:/dev/zero"}),
                  std::chrono::seconds(30));
  expect_one_line_error(r,
                        "--input-dist 'empirical:/dev/zero': /dev/zero line 1 is longer than "
                        "16 MiB, the limit of --max-line-bytes");
}

TEST(EndToEndHostileInputs, MaxLineBytesBoundsDatasetsAndRecordsReadBack) {
  const std::string dir = make_temp_dir("hostile-lines");
  const std::string path = dir + "/long.jsonl";
  std::ofstream(path) << "{\"prompt\":\"hi\"}\n{\"prompt\":\"" << std::string(10'000, 'w')
                      << "\"}\n";
  const auto base = with(offline_run(dir + "/out"), {"--dataset", "jsonl", "--dataset-path", path});
  expect_one_line_error(run_process(with(base, {"--max-line-bytes", "4KiB"})),
                        "dataset " + path +
                            " line 2 is longer than 4 KiB, the limit of --max-line-bytes: is it "
                            "the right file? If so, raise --max-line-bytes");
  expect_one_line_error(run_process(with(base, {"--max-line-bytes", "10"})),
                        "--max-line-bytes 10 is out of range: give 1024 to 4294967296");

  // requests.jsonl read back by report: an 80 MB "chunks" field took 1.45 GB; past the limit
  // the line is named instead.
  const std::string run_dir = make_temp_dir("hostile-report");
  std::ofstream(run_dir + "/requests.jsonl")
      << "{\"id\":0,\"phase\":\"measure\"}\n{\"id\":1,\"chunks\":\"" << std::string(100'000, 'A')
      << "\"}\n";
  expect_one_line_error(
      run_process({TOKENBENCH_BINARY, "report", run_dir, "--max-line-bytes", "64KiB"}),
      run_dir + "/requests.jsonl line 2 is longer than 64 KiB, the limit of --max-line-bytes");
  expect_one_line_error(
      run_process({TOKENBENCH_BINARY, "compare", run_dir, run_dir, "--max-line-bytes", "64KiB"}),
      "line 2 is longer than 64 KiB");
}

}  // namespace
}  // namespace tokenbench::e2e
