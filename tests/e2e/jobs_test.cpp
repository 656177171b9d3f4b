// End to end: agentic jobs (--dataset jobs) against a server that logs each request's arrival,
// its messages and the reply it streamed: the graph's order, the delays, the fan-out's overlap,
// and the replies the later calls carry.

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <map>

#include "capture_server.h"
#include "process.h"

namespace tokenbench::e2e {
namespace {

using nlohmann::json;
using std::chrono::milliseconds;

// A planner, three sub-agents after it (s1 120 ms later: a tool's run time), a join that takes
// the sub-agents' replies. Each call's last user message names it.
const char* const kFanOutJob =
    R"({"job": "trip", "calls": [
  {"id": "plan", "messages": [{"role": "user", "content": "call plan"}], "output_len": 8},
  {"id": "s1", "after": ["plan"], "delay_ms": 120, "messages": [
    {"role": "system", "content": "you book flights"}, {"role": "assistant", "from": "plan"},
    {"role": "user", "content": "call s1"}]},
  {"id": "s2", "after": ["plan"], "messages": [
    {"role": "assistant", "from": "plan"}, {"role": "user", "content": "call s2"}]},
  {"id": "s3", "after": ["plan"], "messages": [
    {"role": "assistant", "content": null, "tool_calls": [{"id": "t1", "type": "function",
      "function": {"name": "search", "arguments": "{}"}}]},
    {"role": "tool", "tool_call_id": "t1", "content": "found"},
    {"role": "user", "content": "call s3"}]},
  {"id": "final", "after": ["s1", "s2", "s3"], "messages": [
    {"role": "assistant", "from": "s1"}, {"role": "assistant", "from": "s2"},
    {"role": "assistant", "from": "s3"}, {"role": "user", "content": "call final"}]}]})";

std::string write_job_file(const std::string& dir, const std::string& job) {
  const std::string path = dir + "/jobs.jsonl";
  std::ofstream(path) << json::parse(job).dump() << "\n";
  return path;
}

// A captured request's messages and the call its last user message names.
struct Seen {
  Captured captured;
  json messages;
  std::string call;
};

std::vector<Seen> calls_seen(const CaptureServer& server) {
  std::vector<Seen> out;
  for (const Captured& c : server.captured()) {
    const json body = json::parse(c.request.substr(c.request.find("\r\n\r\n") + 4));
    Seen s{c, body["messages"], ""};
    for (const auto& m : s.messages) {
      if (m["role"] == "user") s.call = m["content"].get<std::string>().substr(5);
    }
    out.push_back(std::move(s));
  }
  std::sort(out.begin(), out.end(),
            [](const Seen& a, const Seen& b) { return a.captured.arrived < b.captured.arrived; });
  return out;
}

TEST(EndToEndJobs, AFanOutJobRunsItsGraphWithItsDelaysAndTheRepliesItsCallsReceived) {
  CaptureServer server(StreamedReplies{3, milliseconds(40)});
  const std::string dir = make_temp_dir("jobs-fanout");
  const auto r =
      run_process(run_args(server.url(), dir,
                           {"--dataset", "jobs", "--dataset-path", write_job_file(dir, kFanOutJob),
                            "--num-prompts", "2", "--max-concurrency", "1", "--model",
                            "captured-model", "--server-metrics", "off", "--gpu-metrics", "off"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto seen = calls_seen(server);
  ASSERT_EQ(seen.size(), 10U);
  // --max-concurrency 1 counts jobs: the second job's calls come after the first's.
  for (std::size_t job = 0; job < 2; ++job) {
    std::map<std::string, const Seen*> call;
    for (std::size_t i = job * 5; i < job * 5 + 5; ++i) call[seen[i].call] = &seen[i];
    ASSERT_EQ(call.size(), 5U) << "job " << job;
    const Seen& plan = *call.at("plan");
    const Seen& s1 = *call.at("s1");
    const Seen& s2 = *call.at("s2");
    const Seen& s3 = *call.at("s3");
    const Seen& final = *call.at("final");
    EXPECT_EQ(seen[job * 5].call, "plan");
    EXPECT_EQ(seen[job * 5 + 4].call, "final");
    // Each call starts no earlier than its last dependency's end plus its delay.
    for (const Seen* s : {&s1, &s2, &s3}) EXPECT_GE(s->captured.arrived, plan.captured.finished);
    EXPECT_GE(s1.captured.arrived, plan.captured.finished + milliseconds(120));
    // The fan-out overlaps: s2 and s3 run together (120 ms each), and s1 starts before they end.
    EXPECT_LT(s3.captured.arrived, s2.captured.finished);
    EXPECT_LT(s2.captured.arrived, s3.captured.finished);
    // The join starts after all its dependencies.
    for (const Seen* s : {&s1, &s2, &s3}) EXPECT_GE(final.captured.arrived, s->captured.finished);
    // Every "from" message carries the exact text the referenced call received.
    EXPECT_EQ(s1.messages[1], (json{{"role", "assistant"}, {"content", plan.captured.reply_text}}));
    EXPECT_EQ(s2.messages[0]["content"], plan.captured.reply_text);
    EXPECT_EQ(final.messages[0]["content"], s1.captured.reply_text);
    EXPECT_EQ(final.messages[1]["content"], s2.captured.reply_text);
    EXPECT_EQ(final.messages[2]["content"], s3.captured.reply_text);
    // A tool turn goes on the wire as the chat API expects.
    EXPECT_EQ(s3.messages[0]["tool_calls"][0]["id"], "t1");
    EXPECT_EQ(s3.messages[1],
              (json{{"role", "tool"}, {"tool_call_id", "t1"}, {"content", "found"}}));
  }
  EXPECT_GE(seen[5].captured.arrived, seen[4].captured.finished);

  // Each record carries its job and call.
  std::map<std::pair<std::int64_t, std::string>, json> records;
  for (const auto& rec : read_records(dir + "/requests.jsonl")) {
    ASSERT_TRUE(rec.contains("job")) << rec.dump();
    EXPECT_EQ(rec["error"], "none") << rec.dump();
    records[{rec["job"]["n"].get<std::int64_t>(), rec["job"]["call"].get<std::string>()}] = rec;
  }
  ASSERT_EQ(records.size(), 10U);
  const json& final = records.at({1, "final"})["job"];
  EXPECT_EQ(final["name"], "trip");
  EXPECT_EQ(final["depth"], 2);
  EXPECT_EQ(final["calls"], 5);
  EXPECT_EQ(final["after"], (json{"s1", "s2", "s3"}));
  EXPECT_EQ(records.at({0, "s1"})["job"]["delay_ms"], 120.0);
}

TEST(EndToEndJobs, AFailedCallEndsItsJobAndBadJobFlagsGetOneLine) {
  // The capture server without replies answers every call with 400: each job's plan fails, and
  // nothing after it is sent.
  CaptureServer server;
  const std::string dir = make_temp_dir("jobs-fail");
  auto r = run_process(run_args(
      server.url(), dir,
      {"--dataset", "jobs", "--dataset-path", write_job_file(dir, kFanOutJob), "--num-prompts", "3",
       "--model", "captured-model", "--server-metrics", "off", "--gpu-metrics", "off"}));
  EXPECT_EQ(server.requests_to("POST /v1/").size(), 3U);
  const auto records = read_records(dir + "/requests.jsonl");
  ASSERT_EQ(records.size(), 3U);
  for (const auto& rec : records) EXPECT_EQ(rec["job"]["call"], "plan");

  r = run_process(run_args(server.url(), make_temp_dir("jobs-bad-1"),
                           {"--dataset", "jobs", "--dataset-path", dir + "/jobs.jsonl",
                            "--multi-turn", "--num-prompts", "1"}));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(count_lines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("leave out --multi-turn"), std::string::npos) << r.err;
  r = run_process(run_args(server.url(), make_temp_dir("jobs-bad-2"),
                           {"--dataset", "jobs", "--dataset-path", dir + "/jobs.jsonl", "--api",
                            "openai", "--num-prompts", "1"}));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("--dataset jobs sends conversations"), std::string::npos) << r.err;
  std::ofstream(dir + "/cycle.jsonl")
      << R"({"job":"c","calls":[{"id":"a","after":["b"],"messages":[{"role":"user","content":"x"}]},)"
         R"({"id":"b","after":["a"],"messages":[{"role":"user","content":"y"}]}]})"
      << "\n";
  r = run_process(run_args(server.url(), make_temp_dir("jobs-bad-3"),
                           {"--dataset", "jobs", "--dataset-path", dir + "/cycle.jsonl",
                            "--num-prompts", "1", "--model", "captured-model"}));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(count_lines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("cycle.jsonl line 1: job c, call a: is on a cycle"), std::string::npos)
      << r.err;
}

// 64 words: four blocks of 16 that every call of the job below sends first.
std::string system_prompt() {
  std::string s;
  for (int i = 0; i < 64; ++i) s += (i ? " w" : "w") + std::to_string(i);
  return s;
}

// A planner, two sub-agents (one with a tool turn), a join: every call starts with the same
// system prompt, so serve-sim's prefix cache holds it for every call after the first.
std::string cached_job() {
  const json system = {{"role", "system"}, {"content", system_prompt()}};
  json calls = json::array();
  calls.push_back({{"id", "plan"},
                   {"messages", {system, {{"role", "user"}, {"content", "plan it"}}}},
                   {"output_len", 8}});
  calls.push_back({{"id", "s1"},
                   {"after", {"plan"}},
                   {"messages",
                    {system,
                     {{"role", "assistant"}, {"from", "plan"}},
                     {{"role", "user"}, {"content", "do part one"}}}},
                   {"output_len", 8}});
  calls.push_back({{"id", "s2"},
                   {"after", {"plan"}},
                   {"delay_ms", 20},
                   {"messages",
                    {system,
                     {{"role", "assistant"},
                      {"content", nullptr},
                      {"tool_calls",
                       {{{"id", "t1"},
                         {"type", "function"},
                         {"function", {{"name", "search"}, {"arguments", "{\"q\":\"x\"}"}}}}}}},
                     {{"role", "tool"}, {"tool_call_id", "t1"}, {"tokens", 40}},
                     {{"role", "user"}, {"content", "do part two"}}}},
                   {"output_len", 8}});
  calls.push_back({{"id", "final"},
                   {"after", {"s1", "s2"}},
                   {"messages",
                    {system,
                     {{"role", "assistant"}, {"from", "s1"}},
                     {{"role", "assistant"}, {"from", "s2"}},
                     {{"role", "user"}, {"content", "sum up"}}}},
                   {"output_len", 8}});
  return json{{"job", "cached"}, {"calls", calls}}.dump();
}

TEST(EndToEndJobs, ServeSimRunsJobsOverEveryApiAndItsPrefixCacheSaysWhatItHeld) {
  SimProcess sim({"--preset", "zero", "--enable-prefix-caching", "--block-size", "16"});
  for (const char* api : {"openai-chat", "anthropic-messages", "openai-responses"}) {
    const std::string dir = make_temp_dir(std::string("jobs-sim-") + api);
    const auto r = run_process(
        run_args(sim.url(), dir,
                 {"--api", api, "--dataset", "jobs", "--dataset-path",
                  write_job_file(dir, cached_job()), "--num-prompts", "3", "--max-concurrency", "1",
                  "--server-metrics", "off", "--gpu-metrics", "off"}));
    ASSERT_EQ(r.exit_code, 0) << api << ": " << r.err;
    int calls = 0;
    for (const auto& rec : read_records(dir + "/requests.jsonl")) {
      ASSERT_EQ(rec["error"], "none") << api << ": " << rec.dump();
      ++calls;
      ASSERT_TRUE(rec.contains("cached_tokens")) << api << ": " << rec.dump();
      const auto cached = rec["cached_tokens"].get<std::int64_t>();
      // The server's first call finds nothing; every later call finds at least the system
      // prompt's four blocks (whatever the API: each hashes it the same way), and never more
      // than its prompt.
      if (std::string(api) == "openai-chat" && rec["job"]["n"] == 0 &&
          rec["job"]["call"] == "plan") {
        EXPECT_EQ(cached, 0) << api;
      } else {
        EXPECT_GE(cached, 64) << api << ": " << rec.dump();
      }
      EXPECT_LT(cached, rec["prompt_tokens"].get<std::int64_t>()) << api;
    }
    EXPECT_EQ(calls, 12) << api;
    const json summary = read_json(dir + "/summary.json");
    const json& cache = summary["tokenbench"]["prefix_cache"];
    EXPECT_EQ(cache["requests_reported"], 12) << api;
    EXPECT_GT(cache["hit_rate"].get<double>(), 0.5) << api;
    // An ideal cache (blocks of 16, the default for jobs) held at least what the server did,
    // whose cache (the zero preset's) is unlimited too.
    ASSERT_TRUE(cache["ideal"].is_object()) << cache.dump();
    EXPECT_EQ(cache["ideal"]["requests"], 12) << api;
    if (std::string(api) == "openai-chat") {
      EXPECT_GE(cache["ideal"]["hit_rate"].get<double>(), cache["hit_rate"].get<double>() - 1e-9);
    }
    EXPECT_GT(cache["ideal"]["hit_rate"].get<double>(), 0.5) << api;
    const json& jobs = summary["tokenbench"]["jobs"];
    EXPECT_EQ(jobs["completed"], 3) << api;
    EXPECT_EQ(jobs["mean_calls"], 4.0) << api;
    EXPECT_GT(jobs["mean_cached_tokens"].get<double>(), 3 * 64.0) << api;
    // The critical path's parts add up to the job's latency.
    const json& path = jobs["critical_path"];
    EXPECT_NEAR(path["mean_llm_ms"].get<double>() + path["mean_delay_ms"].get<double>() +
                    path["mean_other_ms"].get<double>(),
                summary["tokenbench"]["distributions"]["job_ms"]["mean"].get<double>(), 1e-6)
        << api;
    EXPECT_EQ(jobs["by_depth"].size(), 3U) << api;
    EXPECT_NE(r.out.find("Jobs: 3 of 3 completed"), std::string::npos) << r.out;
  }
}

TEST(EndToEndJobs, SyntheticFanOutJobsRunWithTheirToolTimesOnTheCriticalPath) {
  SimProcess sim({"--preset", "zero", "--enable-prefix-caching"});
  const std::string dir = make_temp_dir("jobs-synthetic");
  const auto r = run_process(
      run_args(sim.url(), dir,
               {"--dataset", "jobs", "--jobs", "fanout:3,depth:1,tools:1,prefix:128,tool_ms:60",
                "--num-prompts", "6", "--max-concurrency", "2", "--output-len", "8",
                "--gpu-metrics", "off"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json summary = read_json(dir + "/summary.json");
  const json& jobs = summary["tokenbench"]["jobs"];
  EXPECT_EQ(jobs["completed"], 6);
  EXPECT_EQ(jobs["mean_calls"], 8.0);  // the planner, 3 agents with a tool call each, the join
  EXPECT_EQ(jobs["by_depth"].size(), 4U);
  // plan -> an agent -> its tool call (60 ms later) -> the join: one tool time on the path.
  EXPECT_NEAR(jobs["critical_path"]["mean_delay_ms"].get<double>(), 60.0, 1e-9);
  EXPECT_GT(jobs["critical_path"]["llm_share"].get<double>(), 0.0);
  EXPECT_GE(summary["tokenbench"]["distributions"]["job_ms"]["min"].get<double>(), 60.0);
  // Every call after a job's first repeats its 128-token system prompt.
  EXPECT_GT(summary["tokenbench"]["prefix_cache"]["hit_rate"].get<double>(), 0.3);
  // --max-concurrency counts jobs: two jobs' fan-outs put more calls than 2 in flight.
  const json& offered = summary["tokenbench"]["checks"]["offered_load"];
  EXPECT_EQ(offered["concurrency_limit_unit"], "jobs");
  EXPECT_GT(offered["concurrency_observed"].get<std::int64_t>(), 2);
  const std::string report = slurp(dir + "/report.txt");
  EXPECT_NE(report.find("requests observed (2 jobs allowed)"), std::string::npos) << report;
  // Few call ids: the console lists them, in natural order.
  EXPECT_NE(report.find("By call id:"), std::string::npos) << report;
  EXPECT_LT(report.find("| a1.1 "), report.find("| a1.1.t1 "));
  EXPECT_LT(report.find("| a1.3.t1 "), report.find("| final "));
}

}  // namespace
}  // namespace tokenbench::e2e
