// End to end: the experiment commands (sweeps' stop rules and resume, several targets in one run,
// replicas, SLO gates, --drop-first) with the real binary against serve-sim on loopback ports.

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "process.h"

namespace tokenbench::e2e {
namespace {

using nlohmann::json;

const std::vector<std::string> kSmall{"--num-prompts", "12", "--input-len", "32",
                                      "--output-len",  "8",  "--seed",      "4"};

TEST(Experiment, SweepStopsOnErrorRateAndWritesEveryLevelItRan) {
  SimProcess sim({"--ttft-ms", "2", "--itl-ms", "1", "--fault", "http_500:0.5", "--seed", "1"});
  const std::string dir = make_temp_dir("sweep-errors");
  const auto r = run_process(run_args(
      sim.url(), dir, with(kSmall, {"--max-concurrency", "1,2,4", "--stop-on-error-rate", "0.1"})));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json sweep = read_json(dir + "/sweep.json");
  ASSERT_EQ(sweep["levels"].size(), 1u) << r.out;
  EXPECT_EQ(sweep["levels"][0]["dir"], "c1");
  EXPECT_GT(sweep["levels"][0]["error_rate"].get<double>(), 0.1);
  EXPECT_NE(sweep["stopped"].get<std::string>().find("error rate"), std::string::npos);
  EXPECT_NE(r.out.find("Stopped early"), std::string::npos) << r.out;
  EXPECT_TRUE(std::filesystem::exists(dir + "/c1/summary.json"));
  EXPECT_FALSE(std::filesystem::exists(dir + "/c2"));
  // sweep.csv: the header and one row.
  const std::string csv = slurp(dir + "/sweep.csv");
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 2) << csv;
  EXPECT_EQ(csv.rfind("max_concurrency,request_rate,dir,complete,completed", 0), 0u) << csv;
}

TEST(Experiment, SweepStopsOnSloBreachAndFailOnSloExitsThree) {
  SimProcess sim({"--ttft-ms", "20", "--itl-ms", "1"});
  const std::string dir = make_temp_dir("sweep-slo");
  const auto r =
      run_process(run_args(sim.url(), dir,
                           with(kSmall, {"--request-rate", "50,100", "--slo", "p95_ttft_ms<=5",
                                         "--stop-on-slo-breach", "--fail-on-slo"})));
  EXPECT_EQ(r.exit_code, 3) << r.err;
  const json sweep = read_json(dir + "/sweep.json");
  ASSERT_EQ(sweep["levels"].size(), 1u);
  EXPECT_EQ(sweep["levels"][0]["dir"], "r50");
  EXPECT_FALSE(sweep["levels"][0]["meets_slo"].get<bool>());
  EXPECT_TRUE(sweep["best"].is_null());
  EXPECT_NE(r.out.find("No level meets the SLOs (p95_ttft_ms<=5)"), std::string::npos) << r.out;
}

TEST(Experiment, RunSloGateExitCodes) {
  SimProcess sim({"--ttft-ms", "20", "--itl-ms", "1"});
  const std::string dir = make_temp_dir("gate");
  auto r = run_process(run_args(
      sim.url(), dir,
      with(kSmall, {"--slo", "p95_ttft_ms<=5", "--slo", "error_rate<0.01", "--fail-on-slo"})));
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.out.find("SLO p95_ttft_ms<=5: BROKEN"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("SLO error_rate<0.01: met"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("SLO gate failed: p95_ttft_ms"), std::string::npos) << r.err;
  r = run_process(
      run_args(sim.url(), dir,
               with(kSmall, {"--slo", "p95_ttft_ms<=5000", "--fail-on-slo", "--overwrite"})));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  // Without --fail-on-slo a broken SLO is reported, not a failure.
  r = run_process(
      run_args(sim.url(), dir, with(kSmall, {"--slo", "p95_ttft_ms<=5", "--overwrite"})));
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

TEST(Experiment, BadExperimentFlagsAreOneLineUsageErrors) {
  const std::string dir = make_temp_dir("bad-flags");
  const std::string url = "http://127.0.0.1:9";  // never reached: usage is checked first
  for (const auto& extra :
       std::vector<std::vector<std::string>>{{"--slo", "p95_ttfx_ms<=5"},
                                             {"--slo", "p95_ttft_ms=5"},
                                             {"--fail-on-slo"},
                                             {"--max-concurrency", "1,x"},
                                             {"--model", "a,b", "--weights", "ttft=-1"},
                                             {"--model", "a,b", "--max-concurrency", "1,2"},
                                             {"--ramp-up", "linear", "--request-rate", "5"},
                                             {"--drop-first", "100"},
                                             {"--range-ratio", "nan"},
                                             {"--header", "X-A: b\r\nX-Injected: c"},
                                             {"--target", "url=http://127.0.0.1:9"}}) {
    const auto r = run_process(run_args(url, dir, extra));
    EXPECT_EQ(r.exit_code, 1) << extra[0] << ": " << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_EQ(r.err.rfind("tokenbench: error: ", 0), 0u) << r.err;
  }
}

TEST(Experiment, ResumeSkipsCompleteLevels) {
  SimProcess sim({"--ttft-ms", "2", "--itl-ms", "1"});
  const std::string dir = make_temp_dir("resume");
  const auto args = with(kSmall, {"--max-concurrency", "1,2,4"});
  auto r = run_process(run_args(sim.url(), dir, args));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // As if the sweep had been interrupted during its last level.
  json sweep = read_json(dir + "/sweep.json");
  sweep["levels"][2]["complete"] = false;
  std::ofstream(dir + "/sweep.json") << sweep.dump();
  std::filesystem::remove(dir + "/c4/summary.json");
  const auto kept_before = std::filesystem::last_write_time(dir + "/c1/requests.jsonl");

  auto resume =
      with({TOKENBENCH_BINARY, "run", "--base-url", sim.url(), "--quiet", "--resume", dir}, args);
  r = run_process(resume);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("level c1: complete in an earlier run, kept"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("level c2: complete in an earlier run, kept"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("level c4"), std::string::npos) << r.err;
  EXPECT_EQ(std::filesystem::last_write_time(dir + "/c1/requests.jsonl"), kept_before);
  sweep = read_json(dir + "/sweep.json");
  ASSERT_EQ(sweep["levels"].size(), 3u);
  for (const auto& level : sweep["levels"]) {
    EXPECT_TRUE(level["complete"].get<bool>());
    EXPECT_EQ(level["completed"], 12);
  }
  EXPECT_EQ(read_json(dir + "/c4/summary.json")["completed"], 12);
  // Every level has its place in the Pareto chart (output tok/s per GPU, a user's median decode
  // rate); the front is the levels no other beats in both, and the console names them.
  std::vector<std::pair<double, double>> points;
  int on_front = 0;
  for (const auto& level : sweep["levels"]) {
    EXPECT_NEAR(level["output_tps_per_gpu"].get<double>(), level["output_throughput"].get<double>(),
                1e-9);  // --gpus 1
    EXPECT_EQ(level["median_decode_tps"],
              level["tokenbench"]["distributions"]["decode_tps"]["median"]);
    points.emplace_back(level["output_tps_per_gpu"].get<double>(),
                        level["median_decode_tps"].get<double>());
    on_front += level["pareto"].get<bool>() ? 1 : 0;
  }
  for (std::size_t i = 0; i < points.size(); ++i) {
    bool dominated = false;
    for (std::size_t j = 0; j < points.size(); ++j) {
      dominated = dominated || (j != i && points[j].first >= points[i].first &&
                                points[j].second >= points[i].second && points[j] != points[i]);
    }
    EXPECT_EQ(sweep["levels"][i]["pareto"].get<bool>(), !dominated) << i;
  }
  EXPECT_GE(on_front, 1);
  EXPECT_NE(r.out.find("Pareto front (output tok/s per GPU against a user's median decode "
                       "tok/s): "),
            std::string::npos)
      << r.out;
  // Resuming with another workload would mix two measurements: refused, naming the change.
  auto other =
      with({TOKENBENCH_BINARY, "run", "--base-url", sim.url(), "--quiet", "--resume", dir}, args);
  *(std::find(other.begin(), other.end(), "--seed") + 1) = "5";  // --seed 4 -> 5
  const auto refused = run_process(other);
  EXPECT_EQ(refused.exit_code, 1);
  EXPECT_NE(refused.err.find("was measured with another configuration ('  seed: 4' there, '  "
                             "seed: 5' now)"),
            std::string::npos)
      << refused.err;
  // At the root of a sweep, `report` rebuilds the sweep's page; --as needs one run.
  const auto rep = run_process({TOKENBENCH_BINARY, "report", dir});
  EXPECT_EQ(rep.exit_code, 0) << rep.err;
  EXPECT_NE(rep.out.find("/report.html"), std::string::npos) << rep.out;
  EXPECT_TRUE(std::filesystem::is_regular_file(dir + "/report.html"));
  const auto as = run_process({TOKENBENCH_BINARY, "report", dir, "--as", "vllm"});
  EXPECT_EQ(as.exit_code, 1);
  EXPECT_NE(as.err.find("holds an experiment (sweep.json)"), std::string::npos) << as.err;
}

TEST(Experiment, TargetsInterleavedRankedAndEliminated) {
  // Two deployments of the same engine model; the slow one has twice the step overhead.
  SimProcess fast({"--time-scale", "2", "--seed", "1"});
  SimProcess slow({"--time-scale", "2", "--seed", "1", "--step-overhead-ms", "6.3"});
  const std::string dir = make_temp_dir("targets");
  const auto r = run_process({TOKENBENCH_BINARY,
                              "run",
                              "--output-dir",
                              dir,
                              "--quiet",
                              "--target",
                              "model=sim-model,url=" + slow.url() + ",name=slow",
                              "--target",
                              "model=sim-model,url=" + fast.url() + ",name=fast",
                              "--max-concurrency",
                              "4",
                              "--num-prompts",
                              "20",
                              "--input-len",
                              "128",
                              "--output-len",
                              "32",
                              "--require",
                              "median_tpot_ms<2.5",
                              "--require",
                              "error_rate<0.01"},
                             std::chrono::seconds(90));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json cmp = read_json(dir + "/compare.json");
  ASSERT_EQ(cmp["targets"].size(), 2u);
  const json& s = cmp["targets"][0];
  const json& f = cmp["targets"][1];
  ASSERT_EQ(s["name"], "slow");
  ASSERT_EQ(f["name"], "fast");
  EXPECT_LT(f["figures"]["median_tpot_ms"].get<double>(), 2.5) << cmp.dump(1);
  EXPECT_GT(s["figures"]["median_tpot_ms"].get<double>(), 2.5) << cmp.dump(1);
  EXPECT_EQ(f["rank"], 1);
  EXPECT_FALSE(f["eliminated"].get<bool>());
  EXPECT_TRUE(s["eliminated"].get<bool>());
  EXPECT_EQ(s["reason"].get<std::string>().rfind("median_tpot_ms ", 0), 0u) << s["reason"];
  EXPECT_NE(r.out.find("eliminated: slow (median_tpot_ms"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("1. fast"), std::string::npos) << r.out;

  // Each target has a complete results directory with the same prompts, in alternation.
  for (const std::string name : {"slow", "fast"}) {
    const json summary = read_json(dir + "/" + name + "/summary.json");
    EXPECT_EQ(summary["completed"], 20) << name;
    EXPECT_EQ(summary["total_input_tokens"], 20 * 128) << name;
  }
  auto ids = [](const std::vector<json>& records) {
    std::vector<std::uint64_t> out;
    for (const auto& rec : records) out.push_back(rec["id"].get<std::uint64_t>());
    std::sort(out.begin(), out.end());
    return out;
  };
  const auto slow_ids = ids(read_records(dir + "/slow/requests.jsonl"));
  const auto fast_ids = ids(read_records(dir + "/fast/requests.jsonl"));
  ASSERT_EQ(slow_ids.size(), 20u);
  ASSERT_EQ(fast_ids.size(), 20u);
  for (std::size_t i = 0; i < 20; ++i) {
    EXPECT_EQ(slow_ids[i], 2 * i);
    EXPECT_EQ(fast_ids[i], 2 * i + 1);
  }
  // Credentials in a URL are used but written nowhere, the root's config.yaml included.
  const std::string creds = make_temp_dir("targets-creds");
  const std::string with_pw = "http://alice:s3cret@" + fast.url().substr(7);
  const auto c = run_process({TOKENBENCH_BINARY, "run", "--base-url", with_pw, "--output-dir",
                              creds, "--quiet", "--target", "model=sim-model,name=a", "--target",
                              "model=sim-model,name=b", "--num-prompts", "2", "--input-len", "8",
                              "--output-len", "2", "--drop-first", "50"});
  ASSERT_EQ(c.exit_code, 0) << c.err;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(creds)) {
    if (entry.is_regular_file()) {
      EXPECT_EQ(slurp(entry.path().string()).find("s3cret"), std::string::npos) << entry.path();
    }
  }
  EXPECT_EQ(c.out.find("s3cret"), std::string::npos);
  EXPECT_EQ(c.err.find("s3cret"), std::string::npos);
  // --drop-first leaves out the same prompts for every target.
  EXPECT_EQ(read_json(creds + "/a/summary.json")["tokenbench"]["requests"]["dropped"], 1);
  EXPECT_EQ(read_json(creds + "/b/summary.json")["tokenbench"]["requests"]["dropped"], 1);
  // A comparison of models behind one gateway: --model a,b; the sim refuses the unknown one.
  const std::string gw = make_temp_dir("gateway");
  const auto g =
      run_process({TOKENBENCH_BINARY, "run", "--base-url", fast.url(), "--output-dir", gw,
                   "--quiet", "--model", "sim-model,other-model", "--num-prompts", "4",
                   "--input-len", "16", "--output-len", "4", "--max-concurrency", "2"});
  ASSERT_EQ(g.exit_code, 0) << g.err;
  const json gcmp = read_json(gw + "/compare.json");
  EXPECT_EQ(gcmp["targets"][0]["rank"], 1);
  EXPECT_TRUE(gcmp["targets"][1]["eliminated"].get<bool>());
  EXPECT_EQ(read_json(gw + "/other-model/summary.json")["failed"], 4);
}

// Under --max-concurrency, a target 2x faster shows 2x the throughput only when each target has
// its own slots: sharing them, the slow one holds them and both show the same pace.
TEST(Experiment, EachTargetHasItsOwnLoadUnlessShared) {
  SimProcess fast({"--time-scale", "2", "--seed", "1"});
  SimProcess slow({"--time-scale", "2", "--seed", "1", "--step-overhead-ms", "12"});
  auto ratio = [&](const std::string& mode, std::string& out) {
    const std::string dir = make_temp_dir("targets-" + mode);
    const auto r = run_process(
        {TOKENBENCH_BINARY, "run", "--output-dir", dir, "--quiet", "--target",
         "model=sim-model,url=" + slow.url() + ",name=slow", "--target",
         "model=sim-model,url=" + fast.url() + ",name=fast", "--max-concurrency", "2",
         "--num-prompts", "16", "--input-len", "64", "--output-len", "32", "--target-load", mode},
        std::chrono::seconds(90));
    EXPECT_EQ(r.exit_code, 0) << r.err;
    out = r.out;
    const json f = read_json(dir + "/fast/summary.json");
    const json s = read_json(dir + "/slow/summary.json");
    EXPECT_EQ(f["completed"], 16);
    EXPECT_EQ(s["completed"], 16);
    EXPECT_LE(f["tokenbench"]["max_concurrency_observed"].get<int>(), 2) << mode;
    EXPECT_LE(s["tokenbench"]["max_concurrency_observed"].get<int>(), 2) << mode;
    return f["output_throughput"].get<double>() / s["output_throughput"].get<double>();
  };
  std::string out;
  const double each = ratio("each", out);
  EXPECT_GT(each, 1.4) << out;
  EXPECT_NE(out.find("each with its own load (max-concurrency 2)"), std::string::npos) << out;
  const double shared = ratio("shared", out);
  EXPECT_LT(shared, 1.2) << out;
  EXPECT_NE(out.find("--target-load shared"), std::string::npos) << out;
}

TEST(Experiment, ReplicasShareTheLoadAndReportEach) {
  SimProcess a({"--ttft-ms", "5", "--itl-ms", "2"});
  SimProcess b({"--ttft-ms", "5", "--itl-ms", "2"});
  const std::string dir = make_temp_dir("replicas");
  const auto r = run_process({TOKENBENCH_BINARY, "run", "--base-url", a.url(), "--base-url",
                              b.url(), "--output-dir", dir, "--quiet", "--num-prompts", "20",
                              "--input-len", "16", "--output-len", "8", "--max-concurrency", "4"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json s = read_json(dir + "/summary.json");
  EXPECT_EQ(s["completed"], 20);
  const json& replicas = s["tokenbench"]["replicas"];
  ASSERT_EQ(replicas.size(), 2u);
  EXPECT_EQ(replicas[0]["base_url"], a.url());
  EXPECT_EQ(replicas[0]["completed"], 10);  // round-robin
  EXPECT_EQ(replicas[1]["completed"], 10);
  EXPECT_GT(replicas[0]["mean_batch"].get<double>(), 0.5);
  int second = 0;
  for (const auto& rec : read_records(dir + "/requests.jsonl")) second += rec.value("endpoint", 0);
  EXPECT_EQ(second, 10);
  EXPECT_NE(r.out.find("Replicas (round-robin)"), std::string::npos) << r.out;
}

TEST(Experiment, DropFirstKeepsTheRecordsOutOfTheFigures) {
  SimProcess sim({"--ttft-ms", "2", "--itl-ms", "1"});
  const std::string dir = make_temp_dir("drop-first");
  const auto r =
      run_process(run_args(sim.url(), dir,
                           {"--num-prompts", "20", "--input-len", "16", "--output-len", "4",
                            "--drop-first", "25", "--request-rate", "200", "--ramp-up", "linear",
                            "--ramp-up-start-rps", "20", "--ramp-up-duration", "0.2"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json s = read_json(dir + "/summary.json");
  EXPECT_EQ(s["completed"], 15);
  EXPECT_EQ(s["tokenbench"]["requests"]["dropped"], 5);
  const auto records = read_records(dir + "/requests.jsonl");
  ASSERT_EQ(records.size(), 20u);
  std::vector<std::int64_t> dropped_sched, measured_sched;
  for (const auto& rec : records) {
    (rec["phase"] == "dropped" ? dropped_sched : measured_sched)
        .push_back(rec["scheduled_ns"].get<std::int64_t>());
  }
  ASSERT_EQ(dropped_sched.size(), 5u);
  // The dropped requests are the first five scheduled.
  EXPECT_LT(*std::max_element(dropped_sched.begin(), dropped_sched.end()),
            *std::min_element(measured_sched.begin(), measured_sched.end()));
  // `report` rebuilds the same split from requests.jsonl.
  const auto rep = run_process({TOKENBENCH_BINARY, "report", dir});
  ASSERT_EQ(rep.exit_code, 0) << rep.err;
  EXPECT_EQ(read_json(dir + "/summary.json")["tokenbench"]["requests"]["dropped"], 5);
}

}  // namespace
}  // namespace tokenbench::e2e
