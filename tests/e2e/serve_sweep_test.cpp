// End to end: a sweep over server configurations (run --serve-cmd), with serve-sim as the server
// under test: each configuration started on a free loopback port, made ready, swept and stopped;
// one that exits at once or crashes mid-level recorded with its log, the sweep going on; --resume
// keeping finished configurations; and the hooks around configurations and levels.

#include <gtest/gtest.h>
#include <signal.h>

#include <cerrno>
#include <filesystem>
#include <sstream>
#include <thread>

#include "process.h"

namespace tokenbench::e2e {
namespace {

using nlohmann::json;

std::vector<pid_t> pids_in(const std::string& path) {
  std::vector<pid_t> out;
  std::istringstream in(slurp(path));
  for (pid_t p; in >> p;) out.push_back(p);
  return out;
}

bool alive(pid_t pid) { return ::kill(pid, 0) == 0 || errno != ESRCH; }

// serve-sim ten times faster than real time, its PID kept (the shell execs it).
std::string sim_cmd(const std::string& pids, const std::string& extra) {
  return "echo $$ >> " + pids + "; exec " + std::string(TOKENBENCH_BINARY) +
         " serve-sim --port {port} --time-scale 10 --seed 1 " + extra;
}

const json* config_named(const json& sweep, const std::string& dir) {
  for (const auto& c : sweep["configurations"]) {
    if (c["dir"] == dir) return &c;
  }
  return nullptr;
}

double throughput_at(const json& sweep, const std::string& dir) {
  for (const auto& l : sweep["levels"]) {
    if (l["dir"] == dir) return l["request_throughput"].get<double>();
  }
  ADD_FAILURE() << "no level " << dir;
  return 0;
}

TEST(ServeSweep, StartsStopsAndComparesEachServerConfiguration) {
  const std::string dir = make_temp_dir("serve-sweep");
  const std::string pids = dir + "-pids";
  const std::vector<std::string> args = {
      TOKENBENCH_BINARY, "run", "--serve-cmd", sim_cmd(pids, "--max-num-seqs {max_num_seqs}"),
      // 0 is refused by serve-sim: that server exits at once, and the sweep goes on.
      "--serve-param", "max_num_seqs=2,0,16", "--max-concurrency", "2,16", "--num-prompts", "48",
      "--input-len", "256", "--output-len", "64", "--output-dir", dir, "--quiet", "--slo",
      "p95_ttft_ms<=5000", "--gpus", "({max_num_seqs}+2)/2", "--gpu-hour-price", "2"};
  const auto r = run_process(args, std::chrono::seconds(90));
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;

  // Every server started was stopped: no PID is left.
  const auto started = pids_in(pids);
  ASSERT_EQ(started.size(), 3u) << slurp(pids);
  for (const pid_t p : started) EXPECT_FALSE(alive(p)) << "server " << p << " outlived the sweep";

  const json sweep = read_json(dir + "/sweep.json");
  EXPECT_EQ(sweep["kind"], "serve_sweep");
  ASSERT_EQ(sweep["configurations"].size(), 3u);
  const json& small = *config_named(sweep, "max_num_seqs=2");
  const json& broken = *config_named(sweep, "max_num_seqs=0");
  const json& large = *config_named(sweep, "max_num_seqs=16");
  EXPECT_EQ(small["status"], "complete");
  EXPECT_EQ(large["status"], "complete");
  EXPECT_EQ(broken["status"], "failed");
  EXPECT_EQ(broken["error"], "the server exited with status 1 before it was ready");
  EXPECT_NE(broken["log_tail"].get<std::string>().find("--max-num-seqs"), std::string::npos)
      << broken["log_tail"];
  EXPECT_EQ(small["gpus"], 2.0);  // --gpus ({max_num_seqs}+2)/2
  EXPECT_EQ(large["gpus"], 9.0);
  for (const char* c : {"max_num_seqs=2", "max_num_seqs=0", "max_num_seqs=16"}) {
    EXPECT_TRUE(std::filesystem::is_regular_file(dir + "/" + c + "/server.log")) << c;
  }
  EXPECT_NE(slurp(dir + "/max_num_seqs=16/server.log").find("serve-sim listening"),
            std::string::npos);

  // Two running sequences serve 16 concurrent requests far more slowly than 16 do.
  ASSERT_EQ(sweep["levels"].size(), 4u);
  const double small_c16 = throughput_at(sweep, "max_num_seqs=2/c16");
  const double large_c16 = throughput_at(sweep, "max_num_seqs=16/c16");
  EXPECT_LT(small_c16, 0.5 * large_c16) << small_c16 << " vs " << large_c16;
  EXPECT_EQ(sweep["best"]["config"], "max_num_seqs=16");
  EXPECT_EQ(sweep["best"]["level"], "c16");
  for (const auto& l : sweep["levels"]) {  // tok/s per GPU at the configuration's own --gpus
    const double gpus = l["config"] == "max_num_seqs=16" ? 9 : 2;
    EXPECT_NEAR(l["output_tps_per_gpu"].get<double>(), l["output_throughput"].get<double>() / gpus,
                1e-6);
  }
  // The cost of each level is at its configuration's GPUs.
  const json level16 = read_json(dir + "/max_num_seqs=16/c16/summary.json");
  EXPECT_EQ(level16["tokenbench"]["cost"]["gpus"], 9.0);
  EXPECT_EQ(level16["tokenbench"]["cost"]["usd_per_hour"], 18.0);
  EXPECT_NE(r.out.find("Best configuration under SLO (p95_ttft_ms<=5000): max_num_seqs=16 at c16"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("Configuration max_num_seqs=0: failed"), std::string::npos) << r.out;
  EXPECT_EQ(count_lines(slurp(dir + "/sweep.csv")), 1 + 4 + 1);  // header, levels, the failed one
  EXPECT_TRUE(std::filesystem::is_regular_file(dir + "/report.html"));

  // --resume keeps the finished configurations (their servers are not started again) and tries
  // the one that failed once more.
  const std::string log_before = slurp(dir + "/max_num_seqs=16/server.log");
  auto again = args;
  again.insert(again.end(), {"--resume", dir});
  const auto resumed = run_process(again, std::chrono::seconds(60));
  ASSERT_EQ(resumed.exit_code, 0) << resumed.out << resumed.err;
  EXPECT_NE(resumed.err.find("configuration max_num_seqs=16: complete in an earlier run, kept"),
            std::string::npos)
      << resumed.err;
  EXPECT_EQ(pids_in(pids).size(), 4u);  // only max_num_seqs=0 started again
  EXPECT_EQ(slurp(dir + "/max_num_seqs=16/server.log"), log_before);
  const json after = read_json(dir + "/sweep.json");
  EXPECT_EQ(after["levels"].size(), 4u);
  EXPECT_EQ(after["best"]["config"], "max_num_seqs=16");
}

TEST(ServeSweep, AServerThatDiesMidLevelIsRecordedAndTheSweepGoesOn) {
  const std::string dir = make_temp_dir("serve-crash");
  const std::string pids = dir + "-pids";
  // life=1: `timeout` ends the server a second after it started, during the first level.
  const auto r = run_process(
      {TOKENBENCH_BINARY, "run", "--serve-cmd",
       "echo $$ >> " + pids + "; exec timeout {life} " + TOKENBENCH_BINARY +
           " serve-sim --port {port} --time-scale 10 --seed 1",
       "--serve-param", "life=1,60", "--max-concurrency", "1,2", "--duration", "2", "--num-prompts",
       "0", "--output-len", "32", "--input-len", "32", "--output-dir", dir, "--quiet"},
      std::chrono::seconds(60));
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const json sweep = read_json(dir + "/sweep.json");
  const json& crashed = *config_named(sweep, "life=1");
  EXPECT_EQ(crashed["status"], "crashed");
  EXPECT_EQ(crashed["error"], "the server exited with status 124 during a level");
  EXPECT_EQ(crashed["levels"], 1);  // the level after it was not run
  const json& fine = *config_named(sweep, "life=60");
  EXPECT_EQ(fine["status"], "complete");
  EXPECT_EQ(fine["levels"], 2);
  // The crashed level recorded the failures it met.
  const json level = read_json(dir + "/life=1/c1/summary.json");
  EXPECT_GT(level["failed"].get<int>(), 0);
  for (const pid_t p : pids_in(pids)) EXPECT_FALSE(alive(p));
}

TEST(ServeSweep, HooksRunAroundConfigurationsAndLevelsOfAnExternalServer) {
  SimProcess sim({"--time-scale", "10"});
  const std::string dir = make_temp_dir("serve-hooks");
  const std::string trace = dir + "-trace";
  const auto r = run_process({TOKENBENCH_BINARY,
                              "run",
                              "--base-url",
                              sim.url(),
                              "--serve-param",
                              "seqs=1,2",
                              "--before-config",
                              "echo before-config {seqs} >> " + trace,
                              "--after-config",
                              "echo after-config {seqs} >> " + trace,
                              "--before-level",
                              "echo before-level {seqs} {level} {max_concurrency} >> " + trace,
                              "--after-level",
                              "echo after-level {seqs} {level} >> " + trace,
                              "--max-concurrency",
                              "1,2",
                              "--num-prompts",
                              "4",
                              "--output-len",
                              "8",
                              "--output-dir",
                              dir,
                              "--quiet"},
                             std::chrono::seconds(60));
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(slurp(trace),
            "before-config 1\nbefore-level 1 c1 1\nafter-level 1 c1\nbefore-level 1 c2 2\n"
            "after-level 1 c2\nafter-config 1\nbefore-config 2\nbefore-level 2 c1 1\n"
            "after-level 2 c1\nbefore-level 2 c2 2\nafter-level 2 c2\nafter-config 2\n");
  EXPECT_NE(slurp(dir + "/seqs=1/hooks.log").find("# tokenbench hook: echo before-config 1"),
            std::string::npos);

  // A single run is a level too; a failing --before-level measures nothing.
  const std::string one = make_temp_dir("serve-hooks-one");
  const auto single =
      run_process({TOKENBENCH_BINARY, "run", "--base-url", sim.url(), "--before-level",
                   "echo {level} {output_dir} >> " + trace + "-one", "--num-prompts", "2",
                   "--output-len", "4", "--output-dir", one, "--quiet"},
                  std::chrono::seconds(30));
  ASSERT_EQ(single.exit_code, 0) << single.err;
  EXPECT_EQ(slurp(trace + "-one"), "run " + one + "\n");
  const auto refused = run_process(
      {TOKENBENCH_BINARY, "run", "--base-url", sim.url(), "--before-level", "exit 7",
       "--num-prompts", "2", "--output-dir", make_temp_dir("serve-hooks-fail"), "--quiet"},
      std::chrono::seconds(30));
  EXPECT_EQ(refused.exit_code, 1);
  EXPECT_NE(refused.err.find("--before-level exited with status 7"), std::string::npos)
      << refused.err;
}

TEST(ServeSweep, CtrlCStopsTheSweepAndItsServer) {
  const std::string dir = make_temp_dir("serve-signal");
  const std::string pids = dir + "-pids";
  BackgroundProcess run({TOKENBENCH_BINARY, "run", "--serve-cmd", sim_cmd(pids, ""),
                         "--serve-param", "n=1,2", "--duration", "30", "--num-prompts", "0",
                         "--max-concurrency", "2", "--output-dir", dir, "--quiet"});
  for (int i = 0; i < 500 && pids_in(pids).empty(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_EQ(pids_in(pids).size(), 1u);
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));  // into the first level
  EXPECT_EQ(run.stop(SIGINT), 130);
  for (const pid_t p : pids_in(pids)) EXPECT_FALSE(alive(p)) << "server " << p << " outlived it";
  EXPECT_EQ(pids_in(pids).size(), 1u);  // the second configuration never started
  const json sweep = read_json(dir + "/sweep.json");
  EXPECT_EQ(sweep["canceled"], true);
  EXPECT_EQ(sweep["configurations"][0]["status"], "interrupted");
}

TEST(ServeSweep, FlagsThatCannotWorkAreRefusedBeforeAnyServerStarts) {
  const auto refused = [](std::vector<std::string> extra, const std::string& says) {
    std::vector<std::string> args = {TOKENBENCH_BINARY, "run", "--num-prompts", "1"};
    args.insert(args.end(), extra.begin(), extra.end());
    const auto r = run_process(args, std::chrono::seconds(20));
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_NE(r.err.find(says), std::string::npos) << r.err;
    EXPECT_EQ(count_lines(r.err), 1) << r.err;
  };
  refused({"--serve-param", "a=1,2"}, "need --serve-cmd");
  refused({"--serve-cmd", "srv --port {port} --tp {tp}"}, "--serve-cmd: {tp} has no value");
  refused({"--serve-cmd", "srv {port}", "--serve-param", "a"}, "give NAME=V1,V2");
  refused({"--serve-cmd", "srv {port}", "--serve-param", "a=1,2", "--serve-param", "b=1", "--link",
           "a,b"},
          "as many values");
  refused({"--gpus", "{tp}*2"}, "placeholders ({name}) need --serve-cmd");
  refused({"--gpus", "two"}, "--gpus 'two' is not a number");
  refused({"--before-level", "echo {nope}"}, "--before-level: {nope} has no value");
}

}  // namespace
}  // namespace tokenbench::e2e
