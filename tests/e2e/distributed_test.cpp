// End to end: `mpirun -np N tokenbench run` against serve-sim on loopback (docs/DISTRIBUTED.md).
// One schedule shared by the ranks, one merged result that agrees with a single process and
// with the server's own counters; a rank killed mid-run leaves a partial result, never a hang;
// a sweep runs each level across the ranks. Skipped when this build has no MPI (mpirun absent).

#include <gtest/gtest.h>
#include <signal.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <future>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "process.h"
#include "tokenbench/client/http_get.h"

namespace tokenbench::e2e {
namespace {

namespace fs = std::filesystem;
using std::chrono::seconds;

#ifdef TOKENBENCH_MPIRUN
constexpr const char* kMpirun = TOKENBENCH_MPIRUN;
#else
constexpr const char* kMpirun = "";
#endif

// mpirun as root (CI runs as root) and with more ranks than this machine's cores.
const std::map<std::string, std::string> kMpiEnv{{"OMPI_ALLOW_RUN_AS_ROOT", "1"},
                                                 {"OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1"},
                                                 {"OMPI_MCA_rmaps_base_oversubscribe", "1"}};

std::vector<std::string> mpirun(int ranks, const std::vector<std::string>& tokenbench_args) {
  std::vector<std::string> args{kMpirun, "-np", std::to_string(ranks)};
  args.insert(args.end(), tokenbench_args.begin(), tokenbench_args.end());
  return args;
}

#define SKIP_WITHOUT_MPI() \
  if (std::string(kMpirun).empty()) GTEST_SKIP() << "built without MPI (no mpirun)"

// The sum of every sample of `name` in the server's /metrics.
double sim_counter(const std::string& url, const std::string& name) {
  const auto reply = client::http_get(url + "/metrics", {}, 5.0);
  EXPECT_EQ(reply.status, 200);
  double sum = 0;
  std::istringstream lines(reply.body);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.rfind(name, 0) != 0) continue;
    const char next = line[name.size()];
    if (next != '{' && next != ' ') continue;
    sum += std::stod(line.substr(line.rfind(' ') + 1));
  }
  return sum;
}

const std::vector<std::string> kLoad{
    "--num-prompts", "48", "--request-rate", "40",  "--seed",           "11", "--input-len", "32",
    "--output-len",  "16", "--gpu-metrics",  "off", "--server-metrics", "off"};

std::map<std::uint64_t, nlohmann::json> measured_by_id(const std::string& dir) {
  std::map<std::uint64_t, nlohmann::json> out;
  for (auto& r : read_records(dir + "/requests.jsonl")) {
    if (r["phase"] == "measure") out[r["id"].get<std::uint64_t>()] = r;
  }
  return out;
}

TEST(Distributed, FourRanksMergeExactlyAndAgreeWithOneProcess) {
  SKIP_WITHOUT_MPI();
  SimProcess sim({"--ttft-ms", "20", "--itl-ms", "4"});
  const std::string one = make_temp_dir("distributed-one");
  auto r = run_process(run_args(sim.url(), one, kLoad));
  ASSERT_EQ(r.exit_code, 0) << r.err;

  const double success_before = sim_counter(sim.url(), "vllm:request_success_total");
  const double tokens_before = sim_counter(sim.url(), "vllm:generation_tokens_total");
  const std::string four = make_temp_dir("distributed-four");
  r = run_process(mpirun(4, run_args(sim.url(), four, kLoad)), seconds(90), kMpiEnv);
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  const nlohmann::json merged = read_json(four + "/summary.json");
  const nlohmann::json single = read_json(one + "/summary.json");

  // Exact counts: every request once, and the server counted what the merge holds.
  EXPECT_EQ(merged["completed"], 48);
  EXPECT_EQ(sim_counter(sim.url(), "vllm:request_success_total") - success_before, 48);
  EXPECT_EQ(sim_counter(sim.url(), "vllm:generation_tokens_total") - tokens_before,
            merged["total_output_tokens"].get<double>());
  const auto by_id = measured_by_id(four);
  ASSERT_EQ(by_id.size(), 48u);
  EXPECT_EQ(by_id.begin()->first, 0u);
  EXPECT_EQ(by_id.rbegin()->first, 47u);

  // One schedule: the merged intended arrivals are the single process's, to within the clock
  // offsets between ranks (well under half a millisecond on loopback).
  const auto alone = measured_by_id(one);
  const double t0 = by_id.at(0)["intended_ns"].get<double>();
  const double s0 = alone.at(0)["intended_ns"].get<double>();
  for (const auto& [id, rec] : by_id) {
    EXPECT_NEAR(rec["intended_ns"].get<double>() - t0,
                alone.at(id)["intended_ns"].get<double>() - s0, 0.5e6)
        << "request " << id;
  }

  // The ranks: each sent every 4th request. They share this host's one steady clock, so the
  // true offset is 0: each estimate lies within its stated uncertainty of it, and that is small
  // (a few µs on a quiet host; a few ms at most with the build using both cores).
  const nlohmann::json d = read_json(four + "/distributed.json");
  EXPECT_EQ(d, merged["tokenbench"]["distributed"]);
  EXPECT_EQ(d["ranks"], 4);
  EXPECT_EQ(d["members"], 4);
  EXPECT_EQ(d["partial"], false);
  EXPECT_TRUE(d["missing"].empty());
  ASSERT_EQ(d["per_rank"].size(), 4u);
  for (const auto& rank : d["per_rank"]) {
    EXPECT_EQ(rank["status"], "ok") << rank;
    EXPECT_EQ(rank["requests"], 12) << rank;
    EXPECT_EQ(rank["completed"], 12) << rank;
    EXPECT_LE(std::abs(rank["offset_ms"].get<double>()), rank["uncertainty_ms"].get<double>())
        << rank;
    EXPECT_GE(rank["uncertainty_ms"].get<double>(), 0.0) << rank;
    EXPECT_LT(rank["uncertainty_ms"].get<double>(), 5.0) << rank;
    EXPECT_TRUE(fs::is_regular_file(four + "/requests.rank-" + rank["rank"].dump() + ".jsonl"));
  }

  // The same load gives the same figures, within 10 % (the server's timing is fixed; the
  // arrivals are the same schedule).
  for (const char* key : {"request_throughput", "output_throughput", "mean_ttft_ms",
                          "median_ttft_ms", "mean_tpot_ms", "mean_itl_ms", "mean_e2el_ms"}) {
    const double a = merged[key].get<double>();
    const double b = single[key].get<double>();
    EXPECT_NEAR(a, b, 0.10 * b) << key;
  }
  EXPECT_EQ(merged["total_output_tokens"], single["total_output_tokens"]);

  // `report` rebuilds the merged directory like any other, ranks included.
  const auto rep = run_process({TOKENBENCH_BINARY, "report", four});
  ASSERT_EQ(rep.exit_code, 0) << rep.err;
  EXPECT_NE(rep.out.find("Distributed: 4 ranks, 4 measuring"), std::string::npos) << rep.out;
  EXPECT_EQ(read_json(four + "/summary.json")["completed"], 48);
}

// The process of `rank` of the mpirun job writing into `dir` (its environment names the rank,
// its command line the directory); rank -1: mpirun itself.
pid_t job_pid(int rank, const std::string& dir) {
  for (const auto& entry : fs::directory_iterator("/proc")) {
    const std::string name = entry.path().filename();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    const std::string cmdline = slurp(entry.path().string() + "/cmdline");
    if (cmdline.find(dir) == std::string::npos || cmdline.find("tokenbench") == std::string::npos) {
      continue;
    }
    const bool launcher = cmdline.rfind(kMpirun, 0) == 0;
    std::string env = slurp(entry.path().string() + "/environ");
    for (char& c : env) c = c == '\0' ? '\n' : c;
    const bool is_rank =
        env.find("\nOMPI_COMM_WORLD_RANK=" + std::to_string(rank) + "\n") != std::string::npos;
    if (rank < 0 ? launcher : (is_rank && !launcher)) return static_cast<pid_t>(std::stol(name));
  }
  return -1;
}

// Waits (at most 30 s) until rank `rank`'s records file in `dir` holds `lines` records.
void wait_for_records(const std::string& dir, int rank, long lines) {
  const std::string file = dir + "/requests.rank-" + std::to_string(rank) + ".jsonl";
  const auto count = [&file] {
    const std::string text = slurp(file);
    return std::count(text.begin(), text.end(), '\n');
  };
  const auto give_up = std::chrono::steady_clock::now() + seconds(30);
  while (std::chrono::steady_clock::now() < give_up && count() < lines) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

// 20 s of load, if nothing stops it.
const std::vector<std::string> kLongLoad{"--num-prompts", "400", "--request-rate", "20",
                                         "--input-len",   "16",  "--output-len",   "8",
                                         "--gpu-metrics", "off"};

// A 4-rank job under kLongLoad, started in the background; its result once it ends (at most
// 60 s).
std::future<ProcessResult> start_long_job(const SimProcess& sim, const std::string& dir) {
  return std::async(std::launch::async, [url = sim.url(), dir] {
    return run_process(mpirun(4, run_args(url, dir, kLongLoad)), seconds(60), kMpiEnv);
  });
}

TEST(Distributed, AKilledRankLeavesAPartialResultAndANonZeroExit) {
  SKIP_WITHOUT_MPI();
  SimProcess sim({"--ttft-ms", "10", "--itl-ms", "5"});
  const std::string dir = make_temp_dir("distributed-killed");
  auto job = start_long_job(sim, dir);
  // Once rank 2 flushed a few records, it dies.
  wait_for_records(dir, 2, 3);
  const pid_t victim = job_pid(2, dir);
  ASSERT_GT(victim, 0);
  ASSERT_EQ(kill(victim, SIGKILL), 0);
  const ProcessResult r = job.get();  // bounded: no hang
  EXPECT_NE(r.exit_code, 0) << r.err;

  // mpirun stopped the other ranks; rank 0 merged what they sent, and rank 2's flushed records
  // from the shared directory, and says what is missing.
  const nlohmann::json summary = read_json(dir + "/summary.json");
  const nlohmann::json d = summary["tokenbench"]["distributed"];
  EXPECT_EQ(d["partial"], true);
  EXPECT_EQ(d["per_rank"][2]["status"], "lost");
  EXPECT_GE(d["per_rank"][2]["requests"].get<int>(), 3);
  ASSERT_FALSE(d["missing"].empty());
  const std::string missing = d["missing"][0];
  EXPECT_NE(missing.find("rank 2"), std::string::npos) << missing;
  EXPECT_NE(missing.find("i mod 4 = 2"), std::string::npos) << missing;
  EXPECT_GT(summary["completed"].get<int>(), 3);
  EXPECT_LT(summary["completed"].get<int>(), 400);
  EXPECT_NE(r.out.find("MISSING: rank 2"), std::string::npos) << r.out;
}

// Ctrl-C on mpirun stops every rank; rank 0 still writes the merged outputs of all four.
TEST(Distributed, CtrlCOnMpirunStopsEveryRankAndKeepsTheMergedResult) {
  SKIP_WITHOUT_MPI();
  SimProcess sim({"--ttft-ms", "10", "--itl-ms", "5"});
  const std::string dir = make_temp_dir("distributed-interrupted");
  auto job = start_long_job(sim, dir);
  wait_for_records(dir, 3, 3);
  const pid_t launcher = job_pid(-1, dir);
  ASSERT_GT(launcher, 0);
  ASSERT_EQ(kill(launcher, SIGINT), 0);
  const ProcessResult r = job.get();
  EXPECT_NE(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("interrupted; partial results kept"), std::string::npos) << r.err;
  const nlohmann::json summary = read_json(dir + "/summary.json");
  const nlohmann::json d = summary["tokenbench"]["distributed"];
  ASSERT_EQ(d["per_rank"].size(), 4u);
  std::int64_t requests = 0;
  for (const auto& rank : d["per_rank"]) {
    EXPECT_EQ(rank["status"], "canceled") << rank;
    requests += rank["requests"].get<std::int64_t>();
  }
  // Every record of every rank is in the merged file, each id once.
  const auto records = read_records(dir + "/requests.jsonl");
  EXPECT_EQ(static_cast<std::int64_t>(records.size()), requests);
  EXPECT_EQ(static_cast<std::int64_t>(measured_by_id(dir).size()), requests);
  EXPECT_GT(summary["completed"].get<int>(), 3);
  EXPECT_LT(summary["completed"].get<int>(), 400);
}

// A rank that cannot reach the target takes no part: mpirun's MPMD form gives rank 3 a base URL
// where nothing listens. The others share the whole schedule, and the result says so.
TEST(Distributed, ARankThatCannotReachTheTargetTakesNoPart) {
  SKIP_WITHOUT_MPI();
  SimProcess sim({"--ttft-ms", "5", "--itl-ms", "2"});
  const std::string dir = make_temp_dir("distributed-unreachable");
  const std::vector<std::string> load{"--num-prompts", "12", "--input-len",   "16",
                                      "--output-len",  "8",  "--gpu-metrics", "off"};
  std::vector<std::string> args = mpirun(3, run_args(sim.url(), dir, load));
  args.push_back(":");
  args.push_back("-np");
  args.push_back("1");
  for (const auto& a : run_args("http://127.0.0.1:1", dir, load)) args.push_back(a);
  const auto r = run_process(args, seconds(90), kMpiEnv);
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_NE(r.err.find("rank 3"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("takes no part: cannot reach http://127.0.0.1:1"), std::string::npos)
      << r.err;
  const nlohmann::json summary = read_json(dir + "/summary.json");
  EXPECT_EQ(summary["completed"], 12);
  const nlohmann::json d = summary["tokenbench"]["distributed"];
  EXPECT_EQ(d["ranks"], 4);
  EXPECT_EQ(d["members"], 3);
  EXPECT_EQ(d["partial"], false);
  ASSERT_EQ(d["per_rank"].size(), 4u);
  EXPECT_EQ(d["per_rank"][3]["status"], "absent");
  for (int k = 0; k < 3; ++k) EXPECT_EQ(d["per_rank"][k]["requests"], 4) << k;
  ASSERT_EQ(d["missing"].size(), 1u);
  EXPECT_NE(d["missing"][0].get<std::string>().find("shared among the other 3 ranks"),
            std::string::npos);
}

// A short distributed run of two ranks against a fast simulator, which must succeed.
void run_two_ranks(const std::string& dir, const std::vector<std::string>& extra) {
  SimProcess sim({"--ttft-ms", "5", "--itl-ms", "2"});
  const auto r = run_process(
      mpirun(2, run_args(sim.url(), dir,
                         with({"--input-len", "16", "--output-len", "8", "--gpu-metrics", "off"},
                              extra))),
      seconds(90), kMpiEnv);
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
}

TEST(Distributed, ASweepRunsEachLevelAcrossTheRanks) {
  SKIP_WITHOUT_MPI();
  const std::string dir = make_temp_dir("distributed-sweep");
  ASSERT_NO_FATAL_FAILURE(run_two_ranks(dir, {"--num-prompts", "12", "--max-concurrency", "2,4"}));
  const nlohmann::json sweep = read_json(dir + "/sweep.json");
  ASSERT_EQ(sweep["levels"].size(), 2u) << sweep;
  for (const char* level : {"c2", "c4"}) {
    const nlohmann::json d = read_json(dir + "/" + level + "/distributed.json");
    EXPECT_EQ(d["members"], 2) << level;
    for (const auto& rank : d["per_rank"]) EXPECT_EQ(rank["requests"], 6) << level << rank;
    EXPECT_EQ(read_json(dir + "/" + level + "/summary.json")["completed"], 12) << level;
  }
  // --max-concurrency is global: 2 ranks share the 2 slots of the first level, one each.
  EXPECT_LE(
      read_json(dir +
                "/c2/summary.json")["tokenbench"]["checks"]["offered_load"]["concurrency_observed"]
          .get<int>(),
      2);
}

// Several targets compared in one run: each target's directory has its own ranks table, with
// each rank's requests to that target.
TEST(Distributed, TargetsComparedAcrossRanksEachGetTheirRanksTable) {
  SKIP_WITHOUT_MPI();
  const std::string dir = make_temp_dir("distributed-targets");
  ASSERT_NO_FATAL_FAILURE(run_two_ranks(
      dir, {"--target", "model=sim-model,name=a", "--target", "model=sim-model,name=b",
            "--num-prompts", "10", "--max-concurrency", "4"}));
  for (const char* target : {"a", "b"}) {
    const nlohmann::json summary = read_json(dir + "/" + target + "/summary.json");
    EXPECT_EQ(summary["completed"], 10) << target;
    const nlohmann::json d = summary["tokenbench"]["distributed"];
    ASSERT_EQ(d["per_rank"].size(), 2u) << target;
    for (const auto& rank : d["per_rank"]) EXPECT_EQ(rank["requests"], 5) << target << rank;
  }
  EXPECT_TRUE(fs::is_regular_file(dir + "/compare.json"));
}

}  // namespace
}  // namespace tokenbench::e2e
