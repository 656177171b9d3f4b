// Signals during a run against serve-sim: SIGINT stops it with partial results, a second SIGINT
// ends it at once, and SIGKILL loses at most the last second of requests.jsonl, from which
// `tokenbench report` rebuilds summary.json. They bound real time (how soon the run ends), so
// they run alone (RUN_SERIAL) in the serial test binary.

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/types.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "../sim/prometheus_text.h"
#include "../sim/sim_test_client.h"
#include "process.h"

namespace tokenbench::e2e {
namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

constexpr int kConcurrency = 4;

// A run of many short streamed requests (about 80 ms each with serve-sim's 1 ms TTFT and 20 ms
// ITL), far more than the few seconds it is given.
std::vector<std::string> long_run(const std::string& url, const std::string& dir) {
  return run_args(url, dir,
                  {"--num-prompts", "1000", "--max-concurrency", std::to_string(kConcurrency),
                   "--input-len", "4", "--output-len", "5"});
}

// The records of the complete lines of requests.jsonl (a final line cut by a kill is left out).
std::vector<json> complete_records(const std::string& path) {
  const std::string text = slurp(path);
  std::vector<json> out;
  std::size_t pos = 0;
  for (std::size_t nl; (nl = text.find('\n', pos)) != std::string::npos; pos = nl + 1) {
    if (nl > pos) out.push_back(json::parse(text.substr(pos, nl - pos)));
  }
  return out;
}

// Waits (up to 20 s) until requests.jsonl holds at least `n` complete lines: the run is measuring.
bool wait_for_records(const std::string& path, std::size_t n) {
  const auto deadline = Clock::now() + std::chrono::seconds(20);
  while (Clock::now() < deadline) {
    const std::string text = slurp(path);
    if (static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')) >= n) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return false;
}

std::uint16_t port_of(const std::string& url) {
  return static_cast<std::uint16_t>(std::stoi(url.substr(url.rfind(':') + 1)));
}

// Requests serve-sim has finished (every finish reason, aborts left out).
double sim_finished(const std::string& url) {
  sim::testing::TestConnection conn(port_of(url));
  conn.send_request("GET", "/metrics");
  const auto m = sim::testing::parse_prom_text(conn.read_reply().body);
  double n = 0;
  for (const char* reason : {"stop", "length"}) {
    n +=
        m.at(std::string("vllm:request_success_total{model_name=\"sim-model\",finished_reason=\"") +
             reason + "\"}");
  }
  return n;
}

TEST(Signals, InterruptWritesAPartialReportWithinTwoSeconds) {
  SimProcess sim({"--ttft-ms", "1", "--itl-ms", "20"});
  const std::string dir = make_temp_dir("run");
  BackgroundProcess run(long_run(sim.url(), dir));
  ASSERT_TRUE(wait_for_records(dir + "/requests.jsonl", 10));
  const auto signaled = Clock::now();
  const int code = run.stop(SIGINT);
  const auto took = Clock::now() - signaled;
  EXPECT_EQ(code, 130);  // a stopped run never passes for a finished one: 128 + SIGINT
  EXPECT_LT(took, std::chrono::seconds(2));
  const json s = read_json(dir + "/summary.json");
  EXPECT_GE(s["completed"].get<int>(), 10);
  EXPECT_LT(s["completed"].get<int>(), 1000);
  // It says it stopped, and why; the requests the signal cut short are not the server's errors.
  EXPECT_NE(s["tokenbench"]["stopped"].get<std::string>().find("SIGINT"), std::string::npos);
  EXPECT_EQ(s["failed"], 0);
  EXPECT_NE(slurp(dir + "/report.txt").find("stopped early: SIGINT"), std::string::npos);
  const std::vector<json> records = complete_records(dir + "/requests.jsonl");
  int ok = 0;
  int canceled = 0;
  for (const json& rec : records) {
    ok += rec.value("error", "none") == "none";  // written only for a failed request
    canceled += rec.value("error", "none") == "canceled";
  }
  EXPECT_EQ(ok, s["completed"].get<int>());
  EXPECT_LE(canceled, kConcurrency);  // only those in flight at the signal
  EXPECT_EQ(static_cast<int>(records.size()), ok + canceled);
  EXPECT_EQ(s["tokenbench"]["requests"]["canceled"], canceled);
  // `report` rebuilds the summary from the records and keeps why the run stopped.
  ASSERT_EQ(run_process({TOKENBENCH_BINARY, "report", dir}).exit_code, 0);
  EXPECT_NE(
      read_json(dir + "/summary.json")["tokenbench"]["stopped"].get<std::string>().find("SIGINT"),
      std::string::npos);
}

TEST(Signals, TerminatedRunAndSweepExitNonZeroAndSaySo) {
  SimProcess sim({"--ttft-ms", "1", "--itl-ms", "20"});
  const std::string dir = make_temp_dir("term");
  BackgroundProcess run(long_run(sim.url(), dir));
  ASSERT_TRUE(wait_for_records(dir + "/requests.jsonl", 10));
  EXPECT_EQ(run.stop(SIGTERM), 143);  // 128 + SIGTERM: a Kubernetes job's stop is a failure
  EXPECT_NE(
      read_json(dir + "/summary.json")["tokenbench"]["stopped"].get<std::string>().find("SIGTERM"),
      std::string::npos);
  // A sweep stopped midway: the same exit, and sweep.json says it was interrupted.
  const std::string sweep_dir = make_temp_dir("term-sweep");
  std::vector<std::string> args = long_run(sim.url(), sweep_dir);
  for (std::size_t i = 0; i + 1 < args.size(); ++i) {
    if (args[i] == "--max-concurrency") args[i + 1] = "2,4";
  }
  BackgroundProcess sweep(args);
  ASSERT_TRUE(wait_for_records(sweep_dir + "/c2/requests.jsonl", 10));
  EXPECT_EQ(sweep.stop(SIGTERM), 143);
  const json j = read_json(sweep_dir + "/sweep.json");
  EXPECT_TRUE(j["canceled"].get<bool>());
  EXPECT_NE(j["interrupted"].get<std::string>().find("SIGTERM"), std::string::npos);
  // A search stopped midway: the same exit, and search.json says so.
  const std::string search_dir = make_temp_dir("term-search");
  BackgroundProcess search({TOKENBENCH_BINARY,
                            "search",
                            "--base-url",
                            sim.url(),
                            "--output-dir",
                            search_dir,
                            "--quiet",
                            "--vary",
                            "max-concurrency",
                            "--min",
                            "1",
                            "--max",
                            "8",
                            "--slo",
                            "p95_ttft_ms<=100000",
                            "--num-prompts",
                            "1000",
                            "--input-len",
                            "4",
                            "--output-len",
                            "5"});
  ASSERT_TRUE(wait_for_records(search_dir + "/conc-1/requests.jsonl", 5));
  EXPECT_EQ(search.stop(SIGTERM), 143);
  const json sj = read_json(search_dir + "/search.json");
  EXPECT_NE(sj["answer"]["interrupted"].get<std::string>().find("SIGTERM"), std::string::npos)
      << sj.dump(1);
}

TEST(Signals, SecondInterruptEndsTheRunAtOnce) {
  SimProcess sim({"--ttft-ms", "1", "--itl-ms", "20"});
  const std::string dir = make_temp_dir("run");
  BackgroundProcess run(long_run(sim.url(), dir));
  ASSERT_TRUE(wait_for_records(dir + "/requests.jsonl", 10));
  // The first SIGINT stops the run; the second, right behind it, asks for an exit at once
  // after the records measured so far are written; either way the exit code is 130.
  const auto signaled = Clock::now();
  ::kill(run.pid(), SIGINT);
  const int code = run.stop(SIGINT);
  EXPECT_LT(Clock::now() - signaled, std::chrono::seconds(1));
  EXPECT_TRUE(code == 130) << code;
  // What the recorder flushed is whole records, from which `report` rebuilds the summary.
  const std::vector<json> records = complete_records(dir + "/requests.jsonl");
  EXPECT_GE(records.size(), 10u);
  const auto rep = run_process({TOKENBENCH_BINARY, "report", dir});
  EXPECT_EQ(rep.exit_code, 0) << rep.err;
  EXPECT_GE(read_json(dir + "/summary.json")["completed"].get<int>(), 10);
}

TEST(Signals, KillLosesAtMostTheLastSecondAndReportRebuildsTheRest) {
  SimProcess sim({"--ttft-ms", "1", "--itl-ms", "20"});
  const std::string dir = make_temp_dir("run");
  BackgroundProcess run(long_run(sim.url(), dir));
  ASSERT_TRUE(wait_for_records(dir + "/requests.jsonl", 40));
  run.stop(SIGKILL);
  const double finished = sim_finished(sim.url());  // no request is in flight any more

  const std::vector<json> records = complete_records(dir + "/requests.jsonl");
  int ok = 0;
  long long first_sent = -1;
  long long last_done = 0;
  for (const json& rec : records) {
    if (rec.value("error", "none") != "none") continue;
    ++ok;
    const long long sent = rec["sent_ns"].get<long long>();
    if (first_sent < 0 || sent < first_sent) first_sent = sent;
    last_done = std::max(last_done, rec["done_ns"].get<long long>());
  }
  ASSERT_GE(ok, 40);
  // What the server finished but the file lacks: at most a second's worth at the run's own pace,
  // plus those in flight (finished by the server, not yet read by the client) at the kill.
  const double per_second = ok / ((last_done - first_sent) / 1e9);
  const double lost = finished - ok;
  EXPECT_GE(lost, 0);
  EXPECT_LE(lost, per_second * 1.0 + kConcurrency)
      << "finished " << finished << ", recorded " << ok;

  std::filesystem::remove(dir + "/summary.json");
  const auto rep = run_process({TOKENBENCH_BINARY, "report", dir});
  EXPECT_EQ(rep.exit_code, 0) << rep.err;
  EXPECT_EQ(read_json(dir + "/summary.json")["completed"].get<int>(), ok);
}

}  // namespace
}  // namespace tokenbench::e2e
