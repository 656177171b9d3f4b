// End to end: what a new user meets first. Forgiving base URLs, clear failures before and during a
// run (401, an unlisted model, --fail-fast), simulated time, ids, report.txt and the evalscope
// meaning of "Output (tok/s)". The real binary against serve-sim on loopback ports.

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "process.h"

namespace tokenbench::e2e {
namespace {

using nlohmann::json;

const std::vector<std::string> kSmall{"--num-prompts", "6", "--input-len",       "16",
                                      "--output-len",  "8", "--max-concurrency", "2"};

TEST(FirstContact, BaseUrlWithV1OrAWholeEndpointIsSplit) {
  SimProcess sim({"--ttft-ms", "2", "--itl-ms", "1"});
  const std::string dir = make_temp_dir("v1");
  auto r = run_process(run_args(sim.url() + "/v1", dir, kSmall));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("--base-url ends in /v1: using " + sim.url()), std::string::npos) << r.err;
  EXPECT_EQ(read_json(dir + "/summary.json")["completed"], 6);

  r = run_process(run_args(sim.url() + "/v1/completions", dir, with(kSmall, {"--overwrite"})));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("is a whole endpoint URL: using base " + sim.url() +
                       " and --endpoint /v1/completions"),
            std::string::npos)
      << r.err;
  const json s = read_json(dir + "/summary.json");
  EXPECT_EQ(s["completed"], 6);
  EXPECT_EQ(s["backend"], "openai");  // the API follows the endpoint
}

TEST(FirstContact, RejectedKeySaysWhereItCameFrom) {
  SimProcess sim({"--ttft-ms", "2", "--itl-ms", "1", "--api-key", "right-key"});
  const std::string dir = make_temp_dir("401");
  auto r = run_process(run_args(sim.url(), dir, kSmall), std::chrono::seconds(30),
                       {{"OPENAI_API_KEY", ""}});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("answered HTTP 401: the server rejected the request: no API key was sent "
                       "($OPENAI_API_KEY is not set, nor in ./.env)"),
            std::string::npos)
      << r.err;
  r = run_process(with(run_args(sim.url(), dir, kSmall), {"--api-key-env", "MY_KEY"}),
                  std::chrono::seconds(30), {{"MY_KEY", "wrong-key"}});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("rejected the API key from $MY_KEY (sent as 'Authorization: Bearer <key>')"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(r.err.find("wrong-key"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
}

TEST(FirstContact, UnlistedModelWarnsAndFailFastStops) {
  SimProcess sim({"--ttft-ms", "2", "--itl-ms", "1"});
  const std::string dir = make_temp_dir("unlisted");
  const auto r = run_process(run_args(sim.url(), dir,
                                      {"--model", "gpt-5", "--num-prompts", "200", "--input-len",
                                       "16", "--output-len", "8", "--max-concurrency", "1"}));
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("/v1/models does not list model 'gpt-5' (it lists sim-model)"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("stopped early (--fail-fast 5): the first 5 requests all failed with HTTP "
                       "404: HTTP 404: The model `gpt-5` does not exist"),
            std::string::npos)
      << r.err;
  // Not 200 requests: five, and what was in flight when it stopped.
  EXPECT_LE(read_records(dir + "/requests.jsonl").size(), 6u);
  EXPECT_NE(r.out.find("HTTP 404 on /v1/chat/completions"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("No request succeeded"), std::string::npos) << r.out;
}

TEST(FirstContact, FailFastOnAContextLengthErrorAndOffWithZero) {
  SimProcess sim({"--ttft-ms", "2", "--itl-ms", "1", "--max-model-len", "64"});
  const std::string dir = make_temp_dir("ctx");
  const std::vector<std::string> too_long{"--num-prompts", "40", "--input-len",       "100",
                                          "--output-len",  "8",  "--max-concurrency", "1"};
  auto r = run_process(run_args(sim.url(), dir, too_long));
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("the first 5 requests all failed with HTTP 400"), std::string::npos)
      << r.err;
  EXPECT_EQ(read_records(dir + "/requests.jsonl").size(), 5u);
  r = run_process(run_args(sim.url(), dir, with(too_long, {"--fail-fast", "0", "--overwrite"})));
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(read_records(dir + "/requests.jsonl").size(), 40u);
}

TEST(FirstContact, SimulatedTimeIsNamedAndCanBeRescaled) {
  SimProcess sim({"--ttft-ms", "200", "--itl-ms", "20", "--time-scale", "10"});
  const std::string plain = make_temp_dir("sim-plain");
  auto r = run_process(run_args(sim.url(), plain, kSmall));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("Warning: simulated time: serve-sim runs 10x faster"), std::string::npos)
      << r.out;
  const json a = read_json(plain + "/summary.json");
  EXPECT_EQ(a["tokenbench"]["config"]["sim_time_scale"], 10.0);
  const std::string model = make_temp_dir("sim-model-time");
  r = run_process(with(run_args(sim.url(), model, kSmall), {"--sim-time"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json b = read_json(model + "/summary.json");
  // 20 ms of sped-up time is 200 ms of model time.
  EXPECT_GE(a["mean_ttft_ms"].get<double>(), 20.0);
  EXPECT_LT(a["mean_ttft_ms"].get<double>(), 40.0);
  EXPECT_GE(b["mean_ttft_ms"].get<double>(), 200.0);
  EXPECT_LT(b["mean_ttft_ms"].get<double>(), 400.0);
  EXPECT_NE(r.out.find("rescaled to its model time"), std::string::npos) << r.out;
  // requests.jsonl keeps the real stamps; report rebuilds the model-time figures from config.
  const auto rep = run_process({TOKENBENCH_BINARY, "report", model});
  ASSERT_EQ(rep.exit_code, 0) << rep.err;
  EXPECT_EQ(read_json(model + "/summary.json")["mean_ttft_ms"], b["mean_ttft_ms"]);
}

TEST(FirstContact, ServerTextCannotDriveTheTerminal) {
  // A model id with a clear-screen and a title-setting escape, as a hostile server may send.
  const std::string evil = "sim\x1b[2J\x1b]0;pwned\x07model";
  SimProcess sim({"--ttft-ms", "2", "--itl-ms", "1", "--model", evil});
  const std::string dir = make_temp_dir("evil");
  auto r = run_process(run_args(sim.url(), dir, kSmall));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("Model sim\\x1b[2J\\x1b]0;pwned\\x07model at"), std::string::npos) << r.out;
  for (const std::string& text : {r.out, r.err, slurp(dir + "/report.txt")}) {
    EXPECT_EQ(text.find('\x1b'), std::string::npos);
    EXPECT_EQ(text.find('\x07'), std::string::npos);
  }
  // An unlisted --model is echoed back safely too.
  r = run_process(
      run_args(sim.url(), make_temp_dir("evil-model"), with(kSmall, {"--model", "x\x1b[31m"})));
  EXPECT_NE(r.err.find("does not list model 'x\\x1b[31m'"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find('\x1b'), std::string::npos) << r.err;
  EXPECT_EQ(r.out.find('\x1b'), std::string::npos) << r.out;
}

TEST(FirstContact, ResultsAreNeverOverwrittenSilentlyNorWrittenThroughALink) {
  SimProcess sim({"--ttft-ms", "2", "--itl-ms", "1"});
  const std::string dir = make_temp_dir("twice");
  auto r = run_process(run_args(sim.url(), dir, kSmall));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string first = slurp(dir + "/requests.jsonl");
  r = run_process(run_args(sim.url(), dir, kSmall));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find(dir + " already holds results: pass --overwrite"), std::string::npos)
      << r.err;
  EXPECT_EQ(slurp(dir + "/requests.jsonl"), first);
  r = run_process(run_args(sim.url(), dir, with(kSmall, {"--overwrite"})));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  // A requests.jsonl that is a link to another file is refused, and that file is untouched.
  const std::string linked = make_temp_dir("linked");
  const std::string victim = linked + "-victim.txt";
  std::ofstream(victim) << "keep me";
  std::filesystem::create_symlink(victim, linked + "/requests.jsonl");
  r = run_process(run_args(sim.url(), linked, with(kSmall, {"--overwrite"})));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("is a symbolic link"), std::string::npos) << r.err;
  EXPECT_EQ(slurp(victim), "keep me");
}

TEST(FirstContact, IdsPerPhaseDerivedFiguresAndReportTxt) {
  SimProcess sim({"--ttft-ms", "5", "--itl-ms", "2"});
  const std::string dir = make_temp_dir("ids");
  const auto r = run_process(run_args(sim.url(), dir,
                                      {"--num-prompts", "5", "--warmup", "3", "--input-len", "16",
                                       "--output-len", "10", "--export", "csv"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // A request's derived figures are requests.csv's (requests.jsonl keeps the stamps only).
  std::istringstream csv(slurp(dir + "/requests.csv"));
  std::string line;
  std::getline(csv, line);
  const auto cells = [](const std::string& row) {
    std::vector<std::string> out;
    std::stringstream in(row);
    for (std::string cell; std::getline(in, cell, ',');) out.push_back(cell);
    return out;
  };
  const std::vector<std::string> header = cells(line);
  const auto column = [&header](const char* name) {
    return static_cast<std::size_t>(std::find(header.begin(), header.end(), name) - header.begin());
  };
  std::map<std::uint64_t, std::vector<std::string>> rows;  // measured requests, by id
  while (std::getline(csv, line)) {
    const auto row = cells(line);
    if (row.at(column("phase")) == "measure") rows[std::stoull(row.at(column("id")))] = row;
  }
  std::vector<std::uint64_t> warm, measured;
  std::vector<double> output_tps;
  for (const json& rec : read_records(dir + "/requests.jsonl")) {
    (rec["phase"] == "warmup" ? warm : measured).push_back(rec["id"].get<std::uint64_t>());
    if (rec["phase"] != "measure") continue;
    EXPECT_FALSE(rec.contains("output_tps")) << rec.dump();
    const auto& row = rows.at(rec["id"].get<std::uint64_t>());
    // evalscope's per-request Output (tok/s): output tokens over the whole latency.
    const double e2el_s = (rec["last_token_ns"].get<double>() - rec["sent_ns"].get<double>()) / 1e9;
    const double expected = rec["output_tokens"].get<double>() / e2el_s;
    EXPECT_NEAR(std::stod(row.at(column("output_tps"))), expected, 1e-3 * expected);
    EXPECT_NEAR(std::stod(row.at(column("e2el_ms"))), e2el_s * 1e3, 1e-3);
    const double decode_s =
        (rec["last_token_ns"].get<double>() - rec["first_token_ns"].get<double>()) / 1e9;
    const double decode = (rec["output_tokens"].get<double>() - 1) / decode_s;
    EXPECT_NEAR(std::stod(row.at(column("decode_tps"))), decode, 1e-3 * decode);
    output_tps.push_back(expected);
  }
  std::sort(warm.begin(), warm.end());
  std::sort(measured.begin(), measured.end());
  EXPECT_EQ(warm, (std::vector<std::uint64_t>{0, 1, 2}));
  EXPECT_EQ(measured, (std::vector<std::uint64_t>{0, 1, 2, 3, 4}));
  // The table's "Output (tok/s)" 50% row is the median of those.
  std::sort(output_tps.begin(), output_tps.end());
  const json s = read_json(dir + "/summary.json");
  EXPECT_NEAR(s["tokenbench"]["distributions"]["output_tps"]["median"].get<double>(), output_tps[2],
              1e-6 * output_tps[2]);
  // report.txt holds the tables the console showed.
  const std::string report = slurp(dir + "/report.txt");
  ASSERT_FALSE(report.empty());
  EXPECT_NE(r.out.find(report), std::string::npos);
}

// The results directory a run's stdout names ("Results: DIR").
std::string results_dir_of(const std::string& out) {
  const auto at = out.rfind("Results: ");
  if (at == std::string::npos) return "";
  return out.substr(at + 9, out.find('\n', at) - at - 9);
}

TEST(FirstContact, RunsStartedTogetherGetTheirOwnDefaultDirectories) {
  SimProcess sim({"--ttft-ms", "2", "--itl-ms", "1"});
  const std::string cwd = make_temp_dir("together");
  // Earlier runs' directories for every second of the next minute: both runs find their
  // default name (results/<second>-sim-model) taken, and must pick others, at the same time.
  const auto now = std::chrono::system_clock::now();
  for (int s = -2; s <= 60; ++s) {
    const std::time_t t = std::chrono::system_clock::to_time_t(now + std::chrono::seconds(s));
    std::tm tm{};
    gmtime_r(&t, &tm);
    char stamp[32];
    std::strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
    const std::string taken = cwd + "/results/" + stamp + "-sim-model";
    std::filesystem::create_directories(taken);
    std::ofstream(taken + "/summary.json") << "{}";
  }
  const std::string run = std::string(TOKENBENCH_BINARY) + " run --base-url " + sim.url() +
                          " --num-prompts 4 --input-len 16 --output-len 4 --quiet "
                          "--server-metrics off --gpu-metrics off";
  const auto r =
      run_process({"/bin/sh", "-c",
                   "cd " + cwd + " && (" + run + " >a.out 2>a.err; echo $? >a.rc) & (" + "cd " +
                       cwd + " && " + run + " >b.out 2>b.err; echo $? >b.rc) & wait"});
  ASSERT_EQ(r.exit_code, 0);
  EXPECT_EQ(slurp(cwd + "/a.rc"), "0\n") << slurp(cwd + "/a.err");
  EXPECT_EQ(slurp(cwd + "/b.rc"), "0\n") << slurp(cwd + "/b.err");
  const std::string a = results_dir_of(slurp(cwd + "/a.out"));
  const std::string b = results_dir_of(slurp(cwd + "/b.out"));
  ASSERT_FALSE(a.empty());
  ASSERT_FALSE(b.empty());
  EXPECT_NE(a, b);
  // Readable and sortable: the second's name with a count.
  for (const std::string& dir : {a, b}) {
    EXPECT_EQ(dir.rfind("results/", 0), 0u) << dir;
    EXPECT_NE(dir.find("-sim-model-"), std::string::npos) << dir;
    EXPECT_EQ(read_json(cwd + "/" + dir + "/summary.json")["completed"], 4) << dir;
  }
}

// The README shows the exact commands `make demo` runs (scripts/demo.sh), beside their output.
TEST(FirstContact, ReadmeShowsTheDemosCommands) {
  const std::string demo = slurp(std::string(TOKENBENCH_SOURCE_DIR) + "/scripts/demo.sh");
  const std::string readme = slurp(std::string(TOKENBENCH_SOURCE_DIR) + "/README.md");
  // A bash array NAME=(...) of demo.sh, its words joined by single spaces.
  const auto words_of = [&demo](const std::string& name) {
    const auto at = demo.find(name + "=(");
    if (at == std::string::npos) return std::string();
    const auto begin = at + name.size() + 2;
    std::istringstream in(demo.substr(begin, demo.find(')', begin) - begin));
    std::string out;
    for (std::string w; in >> w;) out += (out.empty() ? "" : " ") + w;
    return out;
  };
  const std::string sim = words_of("SIM_FLAGS");
  const std::string run = words_of("RUN_FLAGS");
  ASSERT_FALSE(sim.empty()) << demo;
  ASSERT_FALSE(run.empty()) << demo;
  // serve-sim starts through scripts/serve_sim.sh's start_sim: `serve-sim --port 0 FLAGS`.
  EXPECT_NE(demo.find("start_sim \"$BIN\" \"$LOG\" \"${SIM_FLAGS[@]}\""), std::string::npos)
      << demo;
  EXPECT_NE(slurp(std::string(TOKENBENCH_SOURCE_DIR) + "/scripts/serve_sim.sh")
                .find("\"$bin\" serve-sim --port 0 \"$@\""),
            std::string::npos);
  EXPECT_NE(demo.find("run --base-url \"$URL\" \"${RUN_FLAGS[@]}\""), std::string::npos) << demo;
  EXPECT_NE(readme.find("tokenbench serve-sim --port 0 " + sim), std::string::npos) << sim;
  EXPECT_NE(readme.find("tokenbench run --base-url URL " + run), std::string::npos) << run;
  // The output block starts with the command line demo.sh echoes.
  EXPECT_NE(readme.find("demo: tokenbench run --base-url http://127.0.0.1:"), std::string::npos);
  EXPECT_NE(readme.find(" " + run + "\n"), std::string::npos);
}

}  // namespace
}  // namespace tokenbench::e2e
