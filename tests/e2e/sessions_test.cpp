// End to end: multi-turn sessions against serve-sim, whose usage counts the words of every
// message, so the history each turn carried shows in its prompt tokens.

#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "process.h"

namespace tokenbench::e2e {
namespace {

using nlohmann::json;

std::string sample(const std::string& name) {
  return std::string(TOKENBENCH_TEST_DATA_DIR) + "/workloads/" + name;
}

// The measured records by (session, turn).
std::map<std::pair<std::int64_t, std::int64_t>, json> by_turn(const std::string& dir) {
  std::map<std::pair<std::int64_t, std::int64_t>, json> out;
  for (const auto& r : read_records(dir + "/requests.jsonl")) {
    if (r["phase"] != "measure") continue;
    EXPECT_EQ(r["error"], "none") << r.dump();
    out[{r["session"].get<std::int64_t>(), r["turn"].get<std::int64_t>()}] = r;
  }
  return out;
}

TEST(EndToEndSessions, ShareGptTurnsCarryTheRepliesReceived) {
  SimProcess sim({"--ttft-ms", "1", "--itl-ms", "0.2"});
  const std::string dir = make_temp_dir("sessions-sharegpt");
  const auto r =
      run_process(run_args(sim.url(), dir,
                           {"--dataset", "sharegpt", "--dataset-path", sample("sharegpt.json"),
                            "--multi-turn", "--num-prompts", "2", "--max-concurrency", "1",
                            "--server-metrics", "off", "--gpu-metrics", "off"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto turns = by_turn(dir);
  ASSERT_EQ(turns.size(), 3u);  // conversation a: two turns; conversation b: one
  const json& first = turns.at({0, 0});
  const json& second = turns.at({0, 1});
  EXPECT_EQ(first["prompt_tokens"], 12);
  EXPECT_EQ(first["output_tokens"], 15);  // the ShareGPT reply's length
  // The second turn's prompt is the first turn, the reply the server actually sent (15 words),
  // and "And Italy?".
  EXPECT_EQ(second["prompt_tokens"], 12 + 15 + 2);
  EXPECT_EQ(second["output_tokens"], 6);
  EXPECT_GE(second["sent_ns"].get<std::int64_t>(), first["done_ns"].get<std::int64_t>());
  EXPECT_EQ(turns.at({1, 0})["prompt_tokens"], 7);

  const json summary = read_json(dir + "/summary.json");
  const json& sessions = summary["tokenbench"]["sessions"];
  EXPECT_EQ(sessions["sessions"], 2);
  ASSERT_EQ(sessions["by_turn"].size(), 2u);
  EXPECT_EQ(sessions["by_turn"][0]["completed"], 2);
  EXPECT_EQ(sessions["by_turn"][1]["completed"], 1);
  EXPECT_EQ(sessions["by_turn"][1]["mean_input_tokens"], 29.0);
  EXPECT_NE(r.out.find("By turn (2 sessions"), std::string::npos) << r.out;
}

TEST(EndToEndSessions, SyntheticSessionsThinkAndStayWithinTheSessionLimit) {
  SimProcess sim({"--ttft-ms", "2", "--itl-ms", "0.5"});
  const std::string dir = make_temp_dir("sessions-random");
  const auto r =
      run_process(run_args(sim.url(), dir,
                           {"--multi-turn", "--turns", "3", "--think-time", "0.05", "--num-prompts",
                            "4", "--max-concurrency", "2", "--input-len", "8", "--output-len", "4",
                            "--server-metrics", "off", "--gpu-metrics", "off"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto turns = by_turn(dir);
  ASSERT_EQ(turns.size(), 12u);
  std::map<std::int64_t, std::pair<std::int64_t, std::int64_t>>
      span;  // session: first sent, last done
  for (std::int64_t s = 0; s < 4; ++s) {
    for (std::int64_t t = 0; t < 3; ++t) {
      const json& rec = turns.at({s, t});
      if (t > 0) {
        const json& before = turns.at({s, t - 1});
        // Each turn waits for the reply before it and the think time of 50 ms.
        EXPECT_GE(rec["sent_ns"].get<std::int64_t>(),
                  before["done_ns"].get<std::int64_t>() + 50'000'000);
        EXPECT_GT(rec["prompt_tokens"].get<std::int64_t>(),
                  before["prompt_tokens"].get<std::int64_t>() +
                      before["output_tokens"].get<std::int64_t>());
      }
    }
    span[s] = {turns.at({s, 0})["sent_ns"].get<std::int64_t>(),
               turns.at({s, 2})["done_ns"].get<std::int64_t>()};
  }
  // --max-concurrency 2 counts sessions: never three under way at once.
  for (const auto& [s, a] : span) {
    int overlapping = 0;
    for (const auto& [other, b] : span) {
      if (b.first <= a.first && a.first < b.second) ++overlapping;
    }
    EXPECT_LE(overlapping, 2) << "session " << s;
  }
  const json summary = read_json(dir + "/summary.json");
  EXPECT_EQ(summary["tokenbench"]["sessions"]["by_turn"].size(), 3u);
}

TEST(EndToEndSessions, RetriedTurnsStayInTheirSessionAndFailedTurnsEndIt) {
  // Every 4th request fails with 503: --retries sends it again, and the session goes on.
  SimProcess sim({"--ttft-ms", "1", "--itl-ms", "0.2", "--fault", "http_503:every=4"});
  const std::string dir = make_temp_dir("sessions-retry");
  auto r =
      run_process(run_args(sim.url(), dir,
                           {"--multi-turn", "--turns", "3", "--num-prompts", "4",
                            "--max-concurrency", "2", "--input-len", "8", "--output-len", "4",
                            "--retries", "3", "--server-metrics", "off", "--gpu-metrics", "off"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  int retried = 0;
  std::map<std::pair<std::int64_t, std::int64_t>, int> ok;
  for (const auto& rec : read_records(dir + "/requests.jsonl")) {
    ASSERT_TRUE(rec.contains("session")) << rec.dump();
    if (rec.value("retried", false)) {
      ++retried;
    } else if (rec["error"] == "none") {
      ++ok[{rec["session"].get<std::int64_t>(), rec["turn"].get<std::int64_t>()}];
    }
  }
  EXPECT_GT(retried, 0);
  EXPECT_EQ(ok.size(), 12u);  // every turn of every session, once
  // Without retries a failed turn ends its session: fewer than 12 requests, and the run ends.
  const std::string bare = make_temp_dir("sessions-fail");
  r = run_process(run_args(sim.url(), bare,
                           {"--multi-turn", "--turns", "3", "--num-prompts", "4",
                            "--max-concurrency", "2", "--input-len", "8", "--output-len", "4",
                            "--server-metrics", "off", "--gpu-metrics", "off"}));
  const auto records = read_records(bare + "/requests.jsonl");
  EXPECT_LT(records.size(), 12u);
  EXPECT_GE(records.size(), 4u);
}

TEST(EndToEndSessions, BadSessionFlagsGetOneLine) {
  const std::string dir = make_temp_dir("sessions-bad");
  auto r = run_process(run_args("http://127.0.0.1:9", dir, {"--turns", "3"}));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("add --multi-turn"), std::string::npos) << r.err;
  r = run_process(run_args("http://127.0.0.1:9", dir, {"--multi-turn", "--api", "openai"}));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("--multi-turn sends conversations"), std::string::npos) << r.err;
  r = run_process(run_args("http://127.0.0.1:9", dir,
                           {"--multi-turn", "--turns", "2", "--think-time", "soon"}));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("--think-time 'soon'"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace tokenbench::e2e
