// End to end (issue 25, items 15, 16, 18, 19): flag values and input paths are checked when the
// command line is read, in one line with exit 1, before any server is asked or any file written.

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <filesystem>
#include <fstream>
#include <thread>

#include "process.h"

namespace tokenbench::e2e {
namespace {

// `tokenbench run` against port 1 (nothing listens: a value that passed the checks would exit 2,
// "cannot reach") with `extra`; the results directory is left unmade.
ProcessResult refused(const std::vector<std::string>& extra, const std::string& dir) {
  return run_process(with(
      {TOKENBENCH_BINARY, "run", "--base-url", "http://127.0.0.1:1", "--output-dir", dir}, extra));
}

void expect_usage_error(const std::vector<std::string>& extra, const std::string& needle) {
  const std::string dir = make_temp_dir("flag-values") + "/out";
  const auto r = refused(extra, dir);
  EXPECT_EQ(r.exit_code, 1) << extra.front() << ": " << r.err;
  EXPECT_EQ(count_lines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find(needle), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir)) << extra.front();
}

// Item 19: -1 wrapped to 2^64-1 and a 23-digit seed was clamped, both silently.
TEST(FlagValues, SeedOutsideItsRangeIsRefused) {
  expect_usage_error({"--seed", "-1"},
                     "--seed -1 is out of range: give a whole number from 0 to "
                     "18446744073709551615");
  expect_usage_error({"--seed", "12345678901234567890123"},
                     "--seed 12345678901234567890123 is out of range");
  expect_usage_error({"--num-prompts", "99999999999999999999999"}, "--num-prompts");
}

// Item 19: an empty header name and one with a space went on the wire.
TEST(FlagValues, HeaderNameMustBeAToken) {
  expect_usage_error({"--header", ":"}, "has no name before its ':'");
  expect_usage_error({"--header", "X A: b"}, "the name 'X A' is not an HTTP token");
  // A typo in a credential header's name never shows its value.
  const auto r = refused({"--header", "Authorization : Bearer sk-hidden"},
                         make_temp_dir("header-secret") + "/out");
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_EQ(r.err.find("sk-hidden"), std::string::npos) << r.err;
}

// Item 19: a bad port or an unclosed IPv6 bracket was "cannot reach" (exit 2) instead of usage.
TEST(FlagValues, MalformedBaseUrlIsAUsageError) {
  for (const auto& [url, why] : std::vector<std::pair<std::string, std::string>>{
           {"http://127.0.0.1:99999", "its port 99999 is not from 1 to 65535"},
           {"http://127.0.0.1:0", "its port 0 is not from 1 to 65535"},
           {"http://[::1", "its IPv6 address has no closing ']'"},
           {"http://127.0.0.1:80x", "is not a number from 1 to 65535"},
           {"http://:8000", "it names no host"},
           {"http://::1:8000", "an IPv6 address goes in brackets"}}) {
    const std::string dir = make_temp_dir("bad-url") + "/out";
    const auto r = run_process({TOKENBENCH_BINARY, "run", "--base-url", url, "--output-dir", dir});
    EXPECT_EQ(r.exit_code, 1) << url << ": " << r.err;
    EXPECT_EQ(count_lines(r.err), 1) << r.err;
    EXPECT_NE(r.err.find(why), std::string::npos) << r.err;
  }
}

// Item 19: the range of --max-reply-bytes goes to 1 TiB, which was "not a byte size".
TEST(FlagValues, ByteSizesTakeTerabytes) {
  // Accepted: the run goes on to the preflight (nothing listens: exit 2).
  for (const char* size : {"1TiB", "1TB", "1T", "512GiB"}) {
    const auto r = refused({"--max-reply-bytes", size}, make_temp_dir("tib") + "/out");
    EXPECT_EQ(r.exit_code, 2) << size << ": " << r.err;
    EXPECT_NE(r.err.find("cannot reach"), std::string::npos) << r.err;
  }
  expect_usage_error({"--max-reply-bytes", "2TiB"}, "--max-reply-bytes");
  expect_usage_error({"--max-reply-bytes", "nanKiB"}, "is not a byte size");
}

// Item 18: NaN and infinities are refused wherever a number is read, and a ramp setting without
// --ramp-up names the flag it needs (it was written to config.yaml as .nan, which did not replay).
TEST(FlagValues, NonFiniteNumbersAndRampSettingsWithoutARamp) {
  expect_usage_error({"--ramp-up-duration", "nan"}, "--ramp-up-duration nan: give a finite number");
  expect_usage_error({"--ramp-up-duration", "5"}, "--ramp-up-duration 5 needs --ramp-up");
  expect_usage_error({"--ramp-up-start-rps", "2"}, "--ramp-up-start-rps 2 needs --ramp-up");
  expect_usage_error({"--timeout", "inf"}, "--timeout inf: give a finite number");
  expect_usage_error({"--burstiness", "-inf"}, "--burstiness -inf: give a finite number");
  expect_usage_error({"--metrics-interval", "1e999"}, "--metrics-interval 1e999: give a finite");
  // Another command's numbers too.
  const auto sim = run_process({TOKENBENCH_BINARY, "serve-sim", "--port", "0", "--ttft-ms", "nan"});
  EXPECT_EQ(sim.exit_code, 1) << sim.err;
  EXPECT_NE(sim.err.find("--ttft-ms nan: give a finite number"), std::string::npos) << sim.err;
}

// Item 18: a config.yaml with a NaN (as an older run wrote it) is refused with the flag's name.
TEST(FlagValues, ConfigFileWithNaNIsRefused) {
  const std::string dir = make_temp_dir("config-nan");
  std::ofstream(dir + "/config.yaml") << "load:\n  ramp_up_duration_s: .nan\n";
  const auto r = refused({"--config", dir + "/config.yaml"}, dir + "/out");
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("--ramp-up-duration nan"), std::string::npos) << r.err;
}

// Item 16: a workload that cannot fit is refused with its estimate before it is built. Since
// issue 27 a long single-turn run makes its prompts as it goes; a multi-turn run holds its
// sessions.
TEST(FlagValues, WorkloadBeyondTheMemoryLimitIsRefused) {
  const std::string dir = make_temp_dir("workload-memory") + "/out";
  const auto r = refused({"--num-prompts", "100000", "--input-len", "1000", "--multi-turn",
                          "--turns", "2", "--max-workload-memory", "100MiB"},
                         dir);
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_EQ(count_lines(r.err), 1) << r.err;
  // 200,000 turns x (7,000 bytes + the request's own): 1.4 GiB.
  EXPECT_NE(r.err.find("the workload needs about 1.4 GiB (200000 prompts held for the run, 0 "
                       "requests made ahead), more than --max-workload-memory 100MiB"),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir));
  // Within the limit, the run goes on (to the preflight: nothing listens): 10^7 prompts of a
  // single-turn run are made as it goes.
  const auto fits = refused({"--num-prompts", "10000000", "--input-len", "1000", "--duration", "2",
                             "--max-workload-memory", "100MiB"},
                            dir);
  EXPECT_EQ(fits.exit_code, 2) << fits.err;
}

// Item 15: /dev/null, an empty file and a socket were "does not exist"; each is named for what
// it is.
TEST(FlagValues, DatasetPathThatIsNoFileSaysWhatItIs) {
  const std::string dir = make_temp_dir("dataset-kinds");
  std::ofstream(dir + "/empty.jsonl").flush();
  expect_usage_error({"--dataset", "jsonl", "--dataset-path", "/dev/null"},
                     "--dataset-path '/dev/null' is a character device, not a file or a pipe");
  expect_usage_error({"--dataset", "jsonl", "--dataset-path", dir + "/empty.jsonl"},
                     "is an empty file: a dataset needs at least one prompt");
  expect_usage_error({"--dataset", "jsonl", "--dataset-path", dir + "/missing.jsonl"},
                     "does not exist: check --dataset-path");
  expect_usage_error({"--tokenizer", "/dev/null"},
                     "--tokenizer '/dev/null' is a character device, not a file");
}

// Item 15: a named pipe is read once, as a stream, and serves every level of a sweep.
TEST(FlagValues, DatasetFromANamedPipeIsRead) {
  SimProcess sim({"--ttft-ms", "1", "--itl-ms", "1"});
  const std::string dir = make_temp_dir("dataset-fifo");
  const std::string fifo = dir + "/prompts.fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  // The writer waits for a reader (a run that refused the pipe never opens it) and gives up.
  std::atomic<bool> finished{false};
  std::thread writer([&fifo, &finished] {
    int fd = -1;
    while ((fd = ::open(fifo.c_str(), O_WRONLY | O_NONBLOCK)) < 0 && errno == ENXIO &&
           !finished.load()) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    if (fd < 0) return;
    ::fcntl(fd, F_SETFL, 0);
    std::string text;
    for (int i = 0; i < 5; ++i) text += "{\"prompt\": \"hello " + std::to_string(i) + "\"}\n";
    [[maybe_unused]] const auto n = ::write(fd, text.data(), text.size());
    ::close(fd);
  });
  const auto r =
      run_process(run_args(sim.url(), dir + "/out",
                           {"--dataset", "jsonl", "--dataset-path", fifo, "--num-prompts", "4",
                            "--output-len", "2", "--max-concurrency", "1,2"}));
  finished.store(true);
  writer.join();
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* level : {"/out/c1", "/out/c2"}) {
    const auto s = read_json(dir + level + "/summary.json");
    EXPECT_EQ(s["completed"], 4) << level;
  }
}

}  // namespace
}  // namespace tokenbench::e2e
