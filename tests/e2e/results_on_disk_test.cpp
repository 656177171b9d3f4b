// End to end (issue 25, items 7 and 17): what a run leaves on disk. The summary is the result:
// written first, and printed on stdout (exit 6) when even it cannot be written; every other file
// is a warning. A run refused before it measured leaves no directory behind.
//
// A full disk is simulated with a file-size limit (ulimit -f, RLIMIT_FSIZE): a write past it
// fails with EFBIG as one on a full disk fails with ENOSPC, without root or a tmpfs.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "process.h"

namespace tokenbench::e2e {
namespace {

// `args` run under `ulimit -f blocks` (512-byte blocks), SIGXFSZ ignored as a full disk sends none.
// Its stdout goes through a pipe (cat), which the limit does not bound: the summary printed
// there is whole.
ProcessResult run_limited(int blocks, const std::vector<std::string>& args) {
  const std::string script = "trap '' XFSZ; st=$(mktemp); (ulimit -f " + std::to_string(blocks) +
                             "; \"$@\"; echo $? > \"$st\") | cat; rc=$(cat \"$st\"); "
                             "rm -f \"$st\"; exit \"$rc\"";
  return run_process(with({"/bin/sh", "-c", script, "sh"}, args), std::chrono::seconds(120));
}

// The JSON document that ends stdout (after the console tables).
nlohmann::json trailing_json(const std::string& out) {
  const auto at = out.rfind("\n{\n");
  if (at == std::string::npos) return nullptr;
  return nlohmann::json::parse(out.substr(at + 1), nullptr, false);
}

std::uintmax_t size_of(const std::string& path) {
  std::error_code ec;
  const auto n = std::filesystem::file_size(path, ec);
  return ec ? 0 : n;
}

// Item 7: report.html (about 1 MB with its chart library) and requests.jsonl outgrow a 64 KiB
// limit; the run keeps its summary, says what it could not write, and succeeds. It exited 2
// ("nothing measured") and kept nothing.
TEST(ResultsOnDisk, OptionalFilesThatCannotBeWrittenAreWarnings) {
  SimProcess sim({"--ttft-ms", "1", "--itl-ms", "1"});
  const std::string dir = make_temp_dir("disk-optional") + "/out";
  const auto r =
      run_limited(128, run_args(sim.url(), dir,
                                {"--num-prompts", "200", "--output-len", "8", "--input-len", "64",
                                 "--max-concurrency", "8", "--export", "csv"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto s = read_json(dir + "/summary.json");
  EXPECT_EQ(s["completed"], 200);
  EXPECT_NE(r.err.find("warning: cannot write " + dir +
                       "/report.html: File too large; the run "
                       "goes on without it"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("cannot write " + dir + "/requests.jsonl"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir + "/report.html"));
  EXPECT_FALSE(std::filesystem::exists(dir + "/report.html.tmp"));
  EXPECT_FALSE(std::filesystem::exists(dir + "/.summary-reserve"));
  EXPECT_GT(size_of(dir + "/report.txt"), 0u);
  EXPECT_TRUE(std::filesystem::exists(dir + "/environment.json"));
}

// Item 7: when summary.json itself cannot be written, the summary is printed on stdout, the
// reason on stderr, and the run exits 6 (measured, but not saved).
TEST(ResultsOnDisk, SummaryThatCannotBeWrittenIsPrintedAndExitsSix) {
  SimProcess sim({"--ttft-ms", "1", "--itl-ms", "1"});
  const std::string dir = make_temp_dir("disk-summary") + "/out";
  // 6 KiB: config.yaml fits, the summary does not.
  const auto r = run_limited(12, run_args(sim.url(), dir,
                                          {"--num-prompts", "40", "--output-len", "4",
                                           "--input-len", "16", "--max-concurrency", "4"}));
  ASSERT_EQ(r.exit_code, 6) << r.err;
  const auto printed = trailing_json(r.out);
  ASSERT_TRUE(printed.is_object()) << r.out;
  EXPECT_EQ(printed["completed"], 40);
  EXPECT_NE(r.err.find("the summary was not saved: cannot write " + dir +
                       "/summary.json: File too large"),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir + "/summary.json"));
}

// Item 7, a sweep: a level's summary that cannot be written ends in the same exit 6, with the
// sweep's document on stdout.
TEST(ResultsOnDisk, SweepWhoseSummariesCannotBeWrittenExitsSix) {
  SimProcess sim({"--ttft-ms", "1", "--itl-ms", "1"});
  const std::string dir = make_temp_dir("disk-sweep") + "/out";
  const auto r = run_limited(12, run_args(sim.url(), dir,
                                          {"--num-prompts", "30", "--output-len", "4",
                                           "--input-len", "16", "--max-concurrency", "1,2"}));
  ASSERT_EQ(r.exit_code, 6) << r.err;
  const auto printed = trailing_json(r.out);
  ASSERT_TRUE(printed.is_object()) << r.out;
  ASSERT_TRUE(printed.contains("levels")) << printed.dump();
  EXPECT_EQ(printed["levels"].size(), 2u);
  EXPECT_NE(r.err.find("the summary was not saved: cannot write " + dir + "/c1/summary.json"),
            std::string::npos)
      << r.err;
}

// Item 17: a usage error found once the server answered (--extra-body '{') left config.yaml and
// an empty requests.jsonl, and the corrected command was refused ("already holds results").
TEST(ResultsOnDisk, RefusedRunLeavesNoDirectoryBehind) {
  SimProcess sim({"--ttft-ms", "1", "--itl-ms", "1"});
  const std::string root = make_temp_dir("refused-run");
  const std::string dir = root + "/out";
  const auto bad =
      run_process(run_args(sim.url(), dir, {"--num-prompts", "3", "--extra-body", "{"}));
  EXPECT_EQ(bad.exit_code, 1) << bad.err;
  EXPECT_NE(bad.err.find("--extra-body is not valid JSON"), std::string::npos) << bad.err;
  EXPECT_FALSE(std::filesystem::exists(dir));
  // A dataset refused while the workload is built (after the preflight): nothing left either.
  std::ofstream(root + "/two.jsonl") << "{\"prompt\": \"a\"}\n{\"prompt\": \"b\"}\n";
  const auto warmup =
      run_process(run_args(sim.url(), dir,
                           {"--num-prompts", "3", "--dataset", "jsonl", "--dataset-path",
                            root + "/two.jsonl", "--warmup", "5"}));
  EXPECT_EQ(warmup.exit_code, 1) << warmup.err;
  EXPECT_NE(warmup.err.find("--warmup 5 needs fewer requests"), std::string::npos) << warmup.err;
  EXPECT_FALSE(std::filesystem::exists(dir));
  // An empty directory given is kept, and stays empty.
  std::filesystem::create_directory(dir);
  const auto again =
      run_process(run_args(sim.url(), dir,
                           {"--num-prompts", "3", "--dataset", "jsonl", "--dataset-path",
                            root + "/two.jsonl", "--warmup", "5"}));
  EXPECT_EQ(again.exit_code, 1) << again.err;
  EXPECT_TRUE(std::filesystem::is_empty(dir));
  // The corrected command runs.
  const auto good = run_process(run_args(
      sim.url(), dir,
      {"--num-prompts", "3", "--output-len", "2", "--extra-body", "{\"temperature\": 0}"}));
  ASSERT_EQ(good.exit_code, 0) << good.err;
  EXPECT_EQ(read_json(dir + "/summary.json")["completed"], 3);
}

}  // namespace
}  // namespace tokenbench::e2e
