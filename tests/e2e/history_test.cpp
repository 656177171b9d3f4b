// End to end: runs add themselves to the history; history list, show, trend (with a change
// point and --fail-on-change) and import; compare --baseline last; --no-history.

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "process.h"

namespace tokenbench::e2e {
namespace {

std::vector<std::string> history(const std::string& db, std::vector<std::string> args) {
  std::vector<std::string> out{TOKENBENCH_BINARY, "history"};
  out.insert(out.end(), args.begin(), args.end());
  out.insert(out.end(), {"--history", db});
  return out;
}

const std::vector<std::string> kSmall{"--num-prompts", "6",  "--max-concurrency", "2",
                                      "--input-len",   "16", "--output-len",      "4"};

TEST(History, RunsAddThemselvesAndHistoryListsShowsAndImportsThem) {
  SimProcess sim({"--ttft-ms", "5", "--itl-ms", "1"});
  const std::string root = make_temp_dir("history");
  const std::string db = root + "/h.sqlite";
  for (int i = 0; i < 2; ++i) {
    const auto r = run_process(with(run_args(sim.url(), root + "/run" + std::to_string(i), kSmall),
                                    {"--history", db, "--label", "gpu=H100"}));
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  // --no-history: not added.
  const auto skipped = run_process(
      with(run_args(sim.url(), root + "/skipped", kSmall), {"--history", db, "--no-history"}));
  ASSERT_EQ(skipped.exit_code, 0) << skipped.err;

  const auto list = run_process(history(db, {"list", "--json"}));
  ASSERT_EQ(list.exit_code, 0) << list.err;
  const auto runs = nlohmann::json::parse(list.out);
  ASSERT_EQ(runs.size(), 2u) << list.out;
  EXPECT_EQ(runs[0]["identity"], runs[1]["identity"]);  // one workload
  EXPECT_EQ(runs[0]["labels"]["gpu"], "H100");
  EXPECT_EQ(runs[0]["model"], "sim-model");
  EXPECT_EQ(runs[1]["figures"]["completed"], 6);
  const auto summary = read_json(root + "/run1/summary.json");
  EXPECT_DOUBLE_EQ(runs[1]["figures"]["p95_ttft_ms"].get<double>(),
                   summary["p95_ttft_ms"].get<double>());
  EXPECT_EQ(runs[1]["environment"]["server.software"], "tokenbench-sim 0.1.0");
  EXPECT_EQ(std::filesystem::path(runs[1]["dir"].get<std::string>()).filename(), "run1");

  const auto table = run_process(history(db, {"list", "--where", "label.gpu=H100"}));
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_NE(table.out.find("gpu=H100"), std::string::npos) << table.out;
  const auto none = run_process(history(db, {"list", "--json", "--where", "label.gpu=A100"}));
  EXPECT_EQ(nlohmann::json::parse(none.out).size(), 0u);
  const auto bad = run_process(history(db, {"list", "--where", "gpu=H100"}));
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_NE(bad.err.find("--where key 'gpu' is not one of"), std::string::npos) << bad.err;

  const auto show = run_process(history(db, {"show", std::to_string(runs[0]["id"].get<int>())}));
  ASSERT_EQ(show.exit_code, 0) << show.err;
  EXPECT_NE(show.out.find("target.model"), std::string::npos) << show.out;
  EXPECT_NE(show.out.find("server.software"), std::string::npos);

  // import: the run made with --no-history, and one already there (replaced, not doubled).
  const auto imported = run_process(history(db, {"import", root + "/skipped", root + "/run0"}));
  ASSERT_EQ(imported.exit_code, 0) << imported.err;
  EXPECT_NE(imported.err.find("imported 2 runs"), std::string::npos) << imported.err;
  EXPECT_NE(imported.out.find("(replaced)"), std::string::npos) << imported.out;
  const auto after = nlohmann::json::parse(run_process(history(db, {"list", "--json"})).out);
  EXPECT_EQ(after.size(), 3u);

  // compare --baseline last: NEW against the latest earlier run of its workload.
  const auto cmp = run_process(
      {TOKENBENCH_BINARY, "compare", "--baseline", "last", "--history", db, root + "/run1"});
  ASSERT_EQ(cmp.exit_code, 0) << cmp.err;
  EXPECT_NE(cmp.err.find("baseline (--baseline last): run"), std::string::npos) << cmp.err;
  EXPECT_NE(cmp.err.find("/run0"), std::string::npos) << cmp.err;
  const auto no_base = run_process(
      {TOKENBENCH_BINARY, "compare", "--baseline", "last", "--history", db, root + "/run0"});
  EXPECT_EQ(no_base.exit_code, 1);
  EXPECT_NE(no_base.err.find("holds no earlier run"), std::string::npos) << no_base.err;
}

TEST(History, TrendFindsAStepPlantedInTheServerAndFailsOnIt) {
  // One workload on one port: a server, then its next version, slower between tokens.
  const std::string root = make_temp_dir("trend");
  const std::string db = root + "/h.sqlite";
  std::string url;
  const auto runs_against = [&](const std::vector<std::string>& sim_args, int from, int n,
                                const std::string& engine) {
    std::vector<std::string> args{
        TOKENBENCH_BINARY,  "serve-sim",
        "--port",           url.empty() ? "0" : url.substr(url.rfind(':') + 1),
        "--preset",         "fixed",
        "--ttft-ms",        "5",
        "--server-version", engine};
    args.insert(args.end(), sim_args.begin(), sim_args.end());
    BackgroundProcess sim(args);
    const std::string line = sim.wait_for_line("listening on", std::chrono::seconds(10));
    ASSERT_NE(line.find("http://"), std::string::npos);
    url = line.substr(line.find("http://"));
    for (int i = from; i < from + n; ++i) {
      const auto r = run_process(
          with(run_args(url, root + "/run" + std::to_string(i), kSmall), {"--history", db}));
      ASSERT_EQ(r.exit_code, 0) << r.err;
    }
  };
  runs_against({"--itl-ms", "2"}, 0, 8, "0.9.0");
  runs_against({"--itl-ms", "4"}, 8, 6, "0.9.1");
  const auto trend =
      run_process(history(db, {"trend", "median_tpot_ms", "--html", root + "/trend.html", "--json",
                               "--fail-on-change", "median_tpot_ms:worse"}));
  EXPECT_EQ(trend.exit_code, 3) << trend.out << trend.err;
  EXPECT_NE(trend.err.find("--fail-on-change median_tpot_ms:worse"), std::string::npos)
      << trend.err;
  const auto json = nlohmann::json::parse(trend.out.substr(trend.out.find("\n{") + 1));
  ASSERT_EQ(json["points"].size(), 14u) << trend.out;
  // The upgrade's change, at the 9th run (index 8). (A run slowed by a busy machine may add a
  // change of its own elsewhere: docs/HISTORY.md, "Its failure modes".)
  nlohmann::json upgrade;
  for (const auto& c : json["change_points"]) {
    if (c["index"] == 8) upgrade = c;
  }
  ASSERT_FALSE(upgrade.is_null()) << trend.out;
  EXPECT_EQ(upgrade["worse"], true);
  // The server's own version, as the environment record read it, is named where it changed.
  EXPECT_NE(upgrade["environment_changed"].dump().find(
                R"({"after":"vLLM 0.9.1","before":"vLLM 0.9.0","key":"server.software"})"),
            std::string::npos)
      << upgrade.dump();
  EXPECT_NE(trend.out.find("server.software: vLLM 0.9.0 -> vLLM 0.9.1"), std::string::npos)
      << trend.out;
  const std::string page = slurp(root + "/trend.html");
  EXPECT_NE(page.find("\"kind\":\"trend\""), std::string::npos);
  // Every run completed its 6 requests: a gate on that passes. (Not a timing figure: one run
  // slowed by a busy machine near the end of a short series can be a change of its own.)
  const auto fine =
      run_process(history(db, {"trend", "completed", "--fail-on-change", "completed:worse"}));
  EXPECT_EQ(fine.exit_code, 0) << fine.out << fine.err;
}

}  // namespace
}  // namespace tokenbench::e2e
