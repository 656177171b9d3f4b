// End to end: every request carries X-Request-Id and traceparent; serve-sim names its completion
// after the id it received, so that requests.jsonl's request_id joins its response_id.

#include <gtest/gtest.h>

#include <map>
#include <regex>
#include <set>
#include <string>

#include "process.h"

namespace tokenbench::e2e {
namespace {

TEST(EndToEndRequestId, EveryRecordJoinsTheServersId) {
  SimProcess sim({"--time-scale", "10"});
  const std::string dir = make_temp_dir("request-id");
  const auto r = run_process(run_args(sim.url(), dir,
                                      {"--num-prompts", "30", "--warmup", "3", "--max-concurrency",
                                       "4", "--input-len", "16", "--output-len", "4"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto records = read_records(dir + "/requests.jsonl");
  ASSERT_EQ(records.size(), 33u);
  std::set<std::string> ids;
  std::set<std::string> runs;
  for (const auto& rec : records) {
    ASSERT_TRUE(rec.contains("request_id")) << rec.dump();
    const std::string id = rec["request_id"];
    EXPECT_TRUE(std::regex_match(id, std::regex("[0-9a-f]{32}"))) << id;
    ids.insert(id);
    runs.insert(id.substr(0, 16));
    // The simulator saw the id: it named its completion after it.
    EXPECT_EQ(rec["response_id"], "chatcmpl-" + id);
  }
  EXPECT_EQ(ids.size(), 33u);  // warmup and measured requests alike
  EXPECT_EQ(runs.size(), 1u);  // one run id
}

TEST(EndToEndRequestId, RetriesKeepTheIdAndNonStreamedRepliesAreJoinedToo) {
  SimProcess sim({"--time-scale", "10", "--fault", "http_429:every=4"});
  const std::string dir = make_temp_dir("request-id-retries");
  const auto r =
      run_process(run_args(sim.url(), dir,
                           {"--num-prompts", "12", "--max-concurrency", "2", "--input-len", "16",
                            "--output-len", "4", "--retries", "3", "--seed", "1", "--no-stream",
                            "--api", "openai", "--endpoint", "/v1/completions"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::map<int, std::set<std::string>> by_request;
  int retried = 0;
  for (const auto& rec : read_records(dir + "/requests.jsonl")) {
    by_request[rec["id"].get<int>()].insert(rec["request_id"].get<std::string>());
    if (rec.value("retried", false)) {
      ++retried;
      EXPECT_FALSE(rec.contains("response_id"));  // a 429 carries no completion
    } else {
      EXPECT_EQ(rec["response_id"], "cmpl-" + rec["request_id"].get<std::string>());
    }
  }
  EXPECT_GT(retried, 0);
  ASSERT_EQ(by_request.size(), 12u);
  for (const auto& [id, request_ids] : by_request) EXPECT_EQ(request_ids.size(), 1u) << id;
}

TEST(EndToEndRequestId, NoRequestIdSendsNone) {
  SimProcess sim({"--time-scale", "10"});
  const std::string dir = make_temp_dir("request-id-off");
  const auto r = run_process(run_args(
      sim.url(), dir,
      {"--num-prompts", "5", "--input-len", "16", "--output-len", "4", "--no-request-id"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const auto& rec : read_records(dir + "/requests.jsonl")) {
    EXPECT_FALSE(rec.contains("request_id")) << rec.dump();
    // The server's own id is still recorded: the simulator's, not derived from ours.
    EXPECT_TRUE(std::regex_match(rec["response_id"].get<std::string>(),
                                 std::regex("chatcmpl-[0-9a-f]{16}")))
        << rec.dump();
  }
  EXPECT_NE(slurp(dir + "/config.yaml").find("request_id: false"), std::string::npos);
}

}  // namespace
}  // namespace tokenbench::e2e
