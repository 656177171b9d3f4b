// End to end: the real tokenbench binary against serve-sim on a free loopback port.

#include <gtest/gtest.h>

#include <algorithm>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>
#include <utility>
#include <vector>

#include "process.h"

namespace tokenbench::e2e {
namespace {

using nlohmann::json;

TEST(EndToEnd, CountsAndTimingMatchTheSimulator) {
  SimProcess sim({"--ttft-ms", "50", "--itl-ms", "10"});
  const std::string dir = make_temp_dir("run");
  const auto r = run_process(run_args(sim.url(), dir,
                                      {"--num-prompts", "20", "--max-concurrency", "4",
                                       "--input-len", "32", "--output-len", "16", "--seed", "3"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json s = read_json(dir + "/summary.json");
  EXPECT_EQ(s["completed"], 20);
  EXPECT_EQ(s["failed"], 0);
  EXPECT_EQ(s["num_prompts"], 20);
  EXPECT_EQ(s["total_output_tokens"], 20 * 16);
  EXPECT_EQ(s["total_input_tokens"], 20 * 32);
  EXPECT_EQ(s["model_id"], "sim-model");
  // The simulator waits 50 ms for the first token and 10 ms between tokens. Tolerance: the
  // client may add a few ms on a loaded 2-core machine, never subtract.
  EXPECT_GE(s["mean_ttft_ms"].get<double>(), 50.0);
  EXPECT_LE(s["mean_ttft_ms"].get<double>(), 50.0 + 25.0);
  EXPECT_GE(s["median_tpot_ms"].get<double>(), 9.5);
  EXPECT_LE(s["median_tpot_ms"].get<double>(), 10.0 + 5.0);
  EXPECT_GE(s["median_itl_ms"].get<double>(), 9.0);
  EXPECT_LE(s["median_itl_ms"].get<double>(), 15.0);
  // E2EL = TTFT + 15 gaps of 10 ms.
  EXPECT_GE(s["mean_e2el_ms"].get<double>(), 200.0);
  EXPECT_LE(s["mean_e2el_ms"].get<double>(), 200.0 + 60.0);
  for (const char* key : {"duration", "request_throughput", "output_throughput",
                          "total_token_throughput", "std_ttft_ms", "p99_ttft_ms", "p90_tpot_ms",
                          "p95_itl_ms", "p50_e2el_ms", "median_e2el_ms", "std_itl_ms"}) {
    EXPECT_TRUE(s.contains(key)) << key;
  }
  EXPECT_NEAR(s["request_throughput"].get<double>(), 20.0 / s["duration"].get<double>(), 1e-9);
  // Two workers share the limit of 4 exactly: never more in flight, and all 4 slots used.
  EXPECT_EQ(s["tokenbench"]["max_concurrency_observed"], 4);

  const auto records = read_records(dir + "/requests.jsonl");
  ASSERT_EQ(records.size(), 20u);
  for (const auto& rec : records) {
    EXPECT_EQ(rec["error"], "none");
    EXPECT_EQ(chunks_of(rec).size(), 16u);
    EXPECT_EQ(rec["output_source"], "usage");
    EXPECT_EQ(rec["finish_reason"], "length");
    EXPECT_LE(rec["scheduled_ns"].get<long long>(), rec["sent_ns"].get<long long>());
    EXPECT_LT(rec["sent_ns"].get<long long>(), rec["first_token_ns"].get<long long>());
  }
  EXPECT_NE(slurp(dir + "/config.yaml").find("max_concurrency: 4"), std::string::npos);
  EXPECT_NE(r.out.find("Benchmarking summary"), std::string::npos);
  EXPECT_NE(r.out.find("Percentile results"), std::string::npos);
}

TEST(EndToEnd, ReportRebuildsTheSummaryIdentically) {
  SimProcess sim({"--ttft-ms", "5", "--itl-ms", "1", "--jitter-ms", "1"});
  const std::string dir = make_temp_dir("run");
  const auto r =
      run_process(run_args(sim.url(), dir,
                           {"--num-prompts", "30", "--max-concurrency", "8", "--input-len", "16",
                            "--output-len", "8", "--goodput", "ttft:20", "tpot:5", "--percentiles",
                            "50,99.9", "--gpu-hour-price", "3.6", "--gpus", "2"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string original = slurp(dir + "/summary.json");
  std::filesystem::remove(dir + "/summary.json");
  const auto rep = run_process({TOKENBENCH_BINARY, "report", dir});
  ASSERT_EQ(rep.exit_code, 0) << rep.err;
  EXPECT_EQ(slurp(dir + "/summary.json"), original);
  // The console tables are the same too (the run adds only its "Results:" line).
  EXPECT_EQ(r.out.substr(0, r.out.find("Results:")), rep.out);
  const json s = json::parse(original);
  EXPECT_TRUE(s.contains("p99.9_ttft_ms"));
  EXPECT_TRUE(s["request_goodput"].is_number());
  // The cost: $7.20 an hour ($0.002 a second) over the run's throughputs, rebuilt by report too.
  EXPECT_NEAR(s["usd_per_million_output_tokens"].get<double>(),
              0.002 / s["output_throughput"].get<double>() * 1e6, 1e-9);
  EXPECT_NEAR(s["usd_per_request"].get<double>(), 0.002 / s["request_throughput"].get<double>(),
              1e-12);
  EXPECT_EQ(s["tokenbench"]["cost"]["usd_per_hour"], 7.2);
  EXPECT_NE(r.out.find("Cost ($3.6 per GPU-hour x 2 GPUs = $7.2 an hour): $"), std::string::npos)
      << r.out;
}

// A requests.jsonl edited by hand (the issue's output_tokens of 1e30) is refused with one line
// naming the line, and summary.json is left as it was; the original file rebuilds it.
TEST(EndToEnd, ReportRefusesADoctoredRecordNamingItsLine) {
  SimProcess sim({"--ttft-ms", "1", "--itl-ms", "1"});
  const std::string dir = make_temp_dir("run");
  const auto r = run_process(
      run_args(sim.url(), dir, {"--num-prompts", "5", "--input-len", "4", "--output-len", "3"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string requests = dir + "/requests.jsonl";
  const std::string original = slurp(requests);
  const std::string summary = slurp(dir + "/summary.json");
  std::vector<json> lines = read_records(requests);
  ASSERT_EQ(lines.size(), 5u);
  const auto write_lines = [&](const std::vector<json>& records) {
    std::ofstream out(requests, std::ios::trunc);
    for (const json& rec : records) out << rec.dump() << "\n";
  };
  const auto expect_refused = [&](const std::string& problem) {
    const auto rep = run_process({TOKENBENCH_BINARY, "report", dir});
    EXPECT_EQ(rep.exit_code, 1);
    EXPECT_NE(rep.err.find("requests.jsonl line 3: " + problem), std::string::npos) << rep.err;
    EXPECT_NE(rep.err.find("the file is damaged or was edited"), std::string::npos) << rep.err;
    EXPECT_EQ(std::count(rep.err.begin(), rep.err.end(), '\n'), 1) << rep.err;
    EXPECT_EQ(slurp(dir + "/summary.json"), summary);
  };

  std::vector<json> doctored = lines;
  doctored[2]["output_tokens"] = 1e30;
  write_lines(doctored);
  expect_refused("output_tokens is 1e+30");

  doctored = lines;
  doctored[2]["first_token_ns"] = doctored[2]["sent_ns"].get<long long>() - 1000;
  write_lines(doctored);
  expect_refused("first_token_ns");

  doctored = lines;
  doctored[2]["id"] = doctored[0]["id"];
  write_lines(doctored);
  expect_refused("id " + doctored[0]["id"].dump() + " appears twice");

  std::ofstream(requests, std::ios::trunc) << original;
  const auto rep = run_process({TOKENBENCH_BINARY, "report", dir});
  EXPECT_EQ(rep.exit_code, 0) << rep.err;
}

// The issue's flag values: each is refused before anything is sent, in one line naming the flag
// and its accepted range (once: an explicit --num-prompts 0 sent 1000 requests, a tiny rate
// overflowed the schedule, a long --duration sent nothing, a huge concurrency or --num-prompts
// allocated without bound).
TEST(EndToEnd, OutOfRangeFlagsNameTheFlagAndItsRange) {
  const std::string dir = make_temp_dir("bad-numbers");
  const std::string url = "http://127.0.0.1:9";  // never reached: usage is checked first
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--num-prompts", "0"}, "--num-prompts 0 is out of range: give 1 to 10000000"},
      {{"--request-rate", "1e-300"}, "--request-rate 1e-300 is out of range: give 0.001 to"},
      {{"--duration", "1e10"}, "--duration 10000000000 is out of range: give 0 to 1000000 seconds"},
      {{"--max-concurrency", "1000000000"}, "--max-concurrency 1000000000 is out of range"},
      {{"--max-concurrency", "1,8,1000000000"}, "--max-concurrency 1000000000 is out of range"},
      {{"--num-prompts", "100000000000000"}, "--num-prompts 100000000000000 is out of range"},
      {{"--request-rate", "1,1e-300"}, "--request-rate 1e-300 is out of range"},
  };
  for (const auto& [extra, message] : cases) {
    const auto r = run_process(run_args(url, dir, extra));
    EXPECT_EQ(r.exit_code, 1) << extra[0] << ": " << r.err;
    EXPECT_EQ(r.err.rfind("tokenbench: error: " + message, 0), 0u) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
}

TEST(EndToEnd, FailuresAreRecordedAndClassified) {
  SimProcess sim({"--ttft-ms", "1", "--itl-ms", "1", "--fault", "http_500:every=5", "--fault",
                  "http_429:every=7", "--fault", "stream_cut:every=9", "--fault",
                  "error_event:every=11"});
  const std::string dir = make_temp_dir("run");
  const auto r = run_process(run_args(
      sim.url(), dir,
      {"--num-prompts", "40", "--max-concurrency", "1", "--input-len", "8", "--output-len", "8"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // Arrival k (1-based) fails with the first rule whose N divides k: 500 at 5,10,...,40 (8);
  // 429 at 7,14,21,28 (35 is taken by 500); cut at 9,18,27,36 (45 > 40); error event at 11,22,33.
  const json s = read_json(dir + "/summary.json");
  EXPECT_EQ(s["completed"], 40 - 8 - 4 - 4 - 3);
  EXPECT_EQ(s["failed"], 19);
  const auto records = read_records(dir + "/requests.jsonl");
  std::map<std::string, int> classes;
  for (const auto& rec : records) classes[rec["error"].get<std::string>()]++;
  EXPECT_EQ(classes["http_5xx"], 8);
  EXPECT_EQ(classes["rate_limited"], 4);
  EXPECT_EQ(classes["stream_cut"], 4);
  EXPECT_EQ(classes["server_error"], 3);
  EXPECT_EQ(classes["none"], 21);
  for (const auto& rec : records) {
    if (rec["error"] == "http_5xx") {
      EXPECT_EQ(rec["http_status"], 500);
    } else if (rec["error"] == "rate_limited") {
      EXPECT_EQ(rec["http_status"], 429);
    } else if (rec["error"] == "stream_cut") {
      EXPECT_GT(chunks_of(rec).size(), 0u);  // what arrived before the cut is kept
    }
  }
}

TEST(EndToEnd, WarmupRequestsAreRecordedButNotAggregated) {
  SimProcess sim({"--ttft-ms", "1", "--itl-ms", "1"});
  const std::string dir = make_temp_dir("run");
  const auto r = run_process(run_args(sim.url(), dir,
                                      {"--num-prompts", "10", "--warmup", "4", "--max-concurrency",
                                       "2", "--input-len", "8", "--output-len", "4"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto records = read_records(dir + "/requests.jsonl");
  ASSERT_EQ(records.size(), 14u);
  int warmup = 0;
  for (const auto& rec : records) warmup += rec["phase"] == "warmup";
  EXPECT_EQ(warmup, 4);
  EXPECT_EQ(read_json(dir + "/summary.json")["completed"], 10);
}

TEST(EndToEnd, NonStreamingLeavesTtftUndefined) {
  SimProcess sim({"--ttft-ms", "5", "--itl-ms", "2"});
  const std::string dir = make_temp_dir("run");
  const auto r = run_process(
      run_args(sim.url(), dir,
               {"--num-prompts", "6", "--no-stream", "--input-len", "8", "--output-len", "10"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json s = read_json(dir + "/summary.json");
  EXPECT_EQ(s["completed"], 6);
  EXPECT_TRUE(s["mean_ttft_ms"].is_null());
  EXPECT_GE(s["mean_e2el_ms"].get<double>(), 5.0 + 9 * 2.0);
  EXPECT_EQ(s["total_output_tokens"], 60);
}

TEST(EndToEnd, OpenLoopRateFollowsTheSchedule) {
  SimProcess sim({"--ttft-ms", "2", "--itl-ms", "1"});
  const std::string dir = make_temp_dir("run");
  const auto r = run_process(
      run_args(sim.url(), dir,
               {"--num-prompts", "20", "--request-rate", "50", "--arrival", "constant",
                "--input-len", "8", "--output-len", "4", "--endpoint", "/v1/completions"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto records = read_records(dir + "/requests.jsonl");
  ASSERT_EQ(records.size(), 20u);
  std::sort(records.begin(), records.end(),
            [](const json& a, const json& b) { return a["id"] < b["id"]; });
  const long long t0 = records[0]["scheduled_ns"];
  for (std::size_t i = 0; i < records.size(); ++i) {
    EXPECT_EQ(records[i]["scheduled_ns"].get<long long>() - t0,
              static_cast<long long>(i) * 20'000'000);
    // Client lag (sent - scheduled) stays small on an idle client.
    EXPECT_LT(records[i]["sent_ns"].get<long long>() - records[i]["scheduled_ns"].get<long long>(),
              20'000'000);
  }
  const json s = read_json(dir + "/summary.json");
  EXPECT_EQ(s["completed"], 20);
  EXPECT_EQ(s["backend"], "openai");  // inferred from the completions endpoint
  EXPECT_GE(s["duration"].get<double>(), 0.38);
}

TEST(EndToEnd, DurationBoundsTheRun) {
  SimProcess sim({"--ttft-ms", "5", "--itl-ms", "5"});
  const std::string dir = make_temp_dir("run");
  const auto start = std::chrono::steady_clock::now();
  const auto r = run_process(run_args(
      sim.url(), dir,
      {"--duration", "1", "--max-concurrency", "4", "--input-len", "8", "--output-len", "8"}));
  const double took =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_LT(took, 5.0);
  const json s = read_json(dir + "/summary.json");
  // Each request takes ~40 ms; 4 in flight for 1 s is about 100 requests.
  EXPECT_GT(s["completed"].get<int>(), 40);
  EXPECT_LT(s["completed"].get<int>(), 110);
}

TEST(EndToEnd, ApiKeyIsSentButNeverWritten) {
  const std::string key = "sk-e2e-very-secret-123";
  SimProcess sim({"--ttft-ms", "1", "--itl-ms", "1", "--api-key", key});
  const std::string dir = make_temp_dir("run");
  const auto ok = run_process(
      run_args(sim.url(), dir, {"--num-prompts", "3", "--input-len", "4", "--output-len", "2"}),
      std::chrono::seconds(60), {{"OPENAI_API_KEY", key}});
  ASSERT_EQ(ok.exit_code, 0) << ok.err;
  EXPECT_EQ(read_json(dir + "/summary.json")["completed"], 3);
  for (const char* f : {"/summary.json", "/requests.jsonl", "/config.yaml"}) {
    EXPECT_EQ(slurp(dir + f).find(key), std::string::npos) << f;
  }
  EXPECT_EQ(ok.out.find(key), std::string::npos);
  EXPECT_EQ(ok.err.find(key), std::string::npos);

  // Credentials in the URL and in --header values are used but never written or printed.
  const std::string url_dir = make_temp_dir("userinfo");
  std::string with_user = sim.url();
  with_user.insert(with_user.find("//") + 2, "alice:pw-in-url-42@");
  const auto basic = run_process(run_args(with_user, url_dir,
                                          {"--num-prompts", "2", "--input-len", "4", "--output-len",
                                           "2", "--header", "X-Custom-Token: hdr-secret-77"}),
                                 std::chrono::seconds(60), {{"OPENAI_API_KEY", key}});
  ASSERT_EQ(basic.exit_code, 0) << basic.err;
  for (const char* f : {"/summary.json", "/requests.jsonl", "/config.yaml"}) {
    const std::string text = slurp(url_dir + f);
    EXPECT_EQ(text.find("pw-in-url-42"), std::string::npos) << f;
    EXPECT_EQ(text.find("hdr-secret-77"), std::string::npos) << f;
  }
  EXPECT_EQ(basic.err.find("pw-in-url-42"), std::string::npos);

  const std::string bad_dir = make_temp_dir("bad");
  const auto bad =
      run_process(run_args(sim.url(), bad_dir, {"--num-prompts", "2", "--model", "sim-model"}),
                  std::chrono::seconds(60), {{"OPENAI_API_KEY", "wrong"}});
  EXPECT_EQ(bad.exit_code, 2);
  for (const auto& rec : read_records(bad_dir + "/requests.jsonl")) {
    EXPECT_EQ(rec["error"], "http_4xx");
    EXPECT_EQ(rec["http_status"], 401);
  }
}

TEST(EndToEnd, KilledRunKeepsWhatItMeasured) {
  SimProcess sim({"--ttft-ms", "1", "--itl-ms", "20"});
  const std::string dir = make_temp_dir("run");
  BackgroundProcess run(run_args(sim.url(), dir,
                                 {"--num-prompts", "1000", "--max-concurrency", "4", "--input-len",
                                  "4", "--output-len", "5"}));
  std::this_thread::sleep_for(std::chrono::milliseconds(2500));
  run.stop(SIGKILL);
  const auto records = read_records(dir + "/requests.jsonl");  // complete lines only
  EXPECT_GT(records.size(), 20u);
  const auto rep = run_process({TOKENBENCH_BINARY, "report", dir});
  EXPECT_EQ(rep.exit_code, 0) << rep.err;
  EXPECT_GE(read_json(dir + "/summary.json")["completed"].get<int>(), 20);
}

TEST(EndToEnd, InterruptedRunWritesPartialResults) {
  SimProcess sim({"--ttft-ms", "1", "--itl-ms", "20"});
  const std::string dir = make_temp_dir("run");
  BackgroundProcess run(run_args(sim.url(), dir,
                                 {"--num-prompts", "1000", "--max-concurrency", "4", "--input-len",
                                  "4", "--output-len", "5"}));
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  EXPECT_EQ(run.stop(SIGINT), 130);  // a stopped run says so in its exit code
  const json s = read_json(dir + "/summary.json");
  EXPECT_GT(s["completed"].get<int>(), 10);
  EXPECT_LT(s["completed"].get<int>(), 1000);
  int canceled = 0;
  for (const auto& rec : read_records(dir + "/requests.jsonl"))
    canceled += rec["error"] == "canceled";
  EXPECT_LE(canceled, 4);
}

}  // namespace
}  // namespace tokenbench::e2e
