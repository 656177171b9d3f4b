// Weka traces into job files (`tokenbench convert --from weka`): the main agent's chain, sub-agents
// spawned after the call before them and joined by the call after them, sub-agent calls that
// overlapped on chains of their own, think times as delays, hash ids as block messages.

#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

#include "tokenbench/workload/jobs.h"
#include "tokenbench/workload/trace_import.h"

namespace tokenbench::workload {
namespace {

using nlohmann::json;

// Written after kv-cache-tester's traces: three main-agent calls; after the first, a sub-agent
// whose second and third calls overlapped (two chains); after the last, one in the background.
// Sub-agent times are from its start, as in the published traces.
const char* const kTrace = R"({"id": "trace_t", "models": ["m"], "block_size": 4,
  "hash_id_scope": "local", "tool_tokens": 10, "system_tokens": 20, "requests": [
  {"t": 0.0, "type": "n", "model": "m", "in": 10, "out": 5, "hash_ids": [1, 2, 3],
   "api_time": 2.0, "think_time": 0.0},
  {"t": 3.0, "type": "subagent", "agent_id": "agent_001", "duration_ms": 9000, "requests": [
    {"t": 0.0, "type": "n", "model": "h", "in": 8, "out": 4, "hash_ids": [50, 51],
     "api_time": 1.0, "think_time": 0.5},
    {"t": 2.0, "type": "n", "model": "h", "in": 12, "out": 4, "hash_ids": [50, 51, 52],
     "api_time": 3.0, "think_time": 1.0},
    {"t": 3.0, "type": "n", "model": "h", "in": 9, "out": 4, "hash_ids": [50, 51, 60],
     "api_time": 1.0}]},
  {"t": 20.0, "type": "s", "model": "m", "in": 14, "out": 6, "hash_ids": [1, 2, 3, 4],
   "api_time": 1.5, "think_time": 15.0},
  {"t": 30.0, "type": "n", "model": "m", "in": 17, "out": 0, "hash_ids": [1, 2, 3, 4, 5],
   "api_time": 1.0, "think_time": 8.5},
  {"t": 40.0, "type": "subagent", "agent_id": "agent_002", "requests": [
    {"t": 0.0, "type": "n", "model": "h", "in": 5, "out": 2, "hash_ids": [70, 71]}]}]})";

std::string write_file(const std::string& name, const std::string& text) {
  const std::string path = ::testing::TempDir() + name;
  std::ofstream(path) << text;
  return path;
}

json call_named(const json& job, const std::string& id) {
  for (const auto& c : job["calls"]) {
    if (c["id"] == id) return c;
  }
  ADD_FAILURE() << "no call " << id;
  return json();
}

TEST(WekaImport, MainCallsChainSubAgentsFanOutAndJoinTheNextMainCall) {
  const ImportedJobs out = import_weka({write_file("weka_t.json", kTrace)}, {});
  ASSERT_EQ(out.lines.size(), 1U);
  EXPECT_EQ(out.calls, 7U);
  const json job = json::parse(out.lines[0]);
  EXPECT_EQ(job["job"], "trace_t");
  EXPECT_FALSE(job.contains("hash_scope"));  // local ids: the job's own

  std::vector<std::string> ids;
  for (const auto& c : job["calls"]) ids.push_back(c["id"]);
  EXPECT_EQ(ids, (std::vector<std::string>{"main.1", "agent_001.1", "agent_001.2", "agent_001.s2.1",
                                           "main.2", "main.3", "agent_002.1"}));
  // The sub-agent's chains start after main.1; its overlapping third call is a chain of its own.
  EXPECT_EQ(call_named(job, "agent_001.1")["after"], json({"main.1"}));
  EXPECT_EQ(call_named(job, "agent_001.2")["after"], json({"agent_001.1"}));
  EXPECT_EQ(call_named(job, "agent_001.s2.1")["after"], json({"main.1"}));
  // main.2 waits for main.1 and every chain's last call.
  EXPECT_EQ(call_named(job, "main.2")["after"], json({"main.1", "agent_001.2", "agent_001.s2.1"}));
  EXPECT_EQ(call_named(job, "main.3")["after"], json({"main.2"}));
  // After the last main call: in the background, joined by none.
  EXPECT_EQ(call_named(job, "agent_002.1")["after"], json({"main.3"}));

  // Delays: the recorded think times; a joining call's from the timeline: main.2 at 20 s less
  // the sub-agent's last end (3 + 2 + 3 = 8 s) = 12 s, not its think time of 15 s.
  EXPECT_FALSE(call_named(job, "main.1").contains("delay_ms"));
  EXPECT_EQ(call_named(job, "agent_001.1")["delay_ms"], 500.0);
  EXPECT_EQ(call_named(job, "agent_001.2")["delay_ms"], 1000.0);
  EXPECT_EQ(call_named(job, "main.2")["delay_ms"], 12000.0);
  EXPECT_EQ(call_named(job, "main.3")["delay_ms"], 8500.0);
  // No think time: its start (3 + 3 = 6 s) less main.1's end (2 s).
  EXPECT_EQ(call_named(job, "agent_001.s2.1")["delay_ms"], 4000.0);

  // Prompts as blocks; an output of 0 asks for 1.
  EXPECT_EQ(call_named(job, "main.2")["messages"],
            json::parse(R"([{"role": "user", "hash_ids": [1, 2, 3, 4], "block_tokens": 4,
                            "tokens": 14}])"));
  EXPECT_EQ(call_named(job, "main.2")["output_len"], 6);
  EXPECT_EQ(call_named(job, "main.3")["output_len"], 1);
  ASSERT_EQ(out.notes.size(), 2U);
  EXPECT_EQ(out.notes[0],
            "2 sub-agents: 1 joined by the main agent's next call, 1 after its last call (in the "
            "background)");

  // The line is a job the run reads: calls sharing ids share their prompts' first words.
  const Job parsed = parse_job(out.lines[0], 0, 3);
  const auto content = [&parsed](std::size_t i) {
    return json::parse(message_json(parsed, parsed.calls[i].messages[0]))["content"]
        .get<std::string>();
  };
  EXPECT_EQ(content(4).rfind(content(0), 0), 0U);  // main.1's 10 tokens begin main.2's 14
  EXPECT_NE(content(1).substr(0, 8), content(0).substr(0, 8));
}

TEST(WekaImport, DelaysAreCutToTheCapAndGlobalIdsAreSharedAcrossJobs) {
  json trace = json::parse(kTrace);
  trace["hash_id_scope"] = "global";
  json second = trace;
  second["id"] = "trace_u";
  // JSON Lines: a trace a line, as the Hugging Face corpora's traces.jsonl.
  const std::string path = write_file("weka_lines.jsonl", trace.dump() + "\n" + second.dump());
  ImportOptions capped;
  capped.max_delay_ms = 5000;
  const ImportedJobs out = import_weka({path}, capped);
  ASSERT_EQ(out.lines.size(), 2U);
  const json job = json::parse(out.lines[1]);
  EXPECT_EQ(job["job"], "trace_u");
  EXPECT_EQ(job["hash_scope"], "run");
  EXPECT_EQ(call_named(job, "main.2")["delay_ms"], 5000.0);
  EXPECT_EQ(call_named(job, "agent_001.1")["delay_ms"], 500.0);
  EXPECT_EQ(out.delays_capped, 6U);  // main.2, main.3 and agent_002.1 (9 s) in each job
  EXPECT_EQ(out.longest_delay_ms, 5000.0);
}

TEST(WekaImport, ABrokenTraceIsNamedWithItsFile) {
  const auto error = [](const std::string& text) {
    const std::string path = write_file("weka_bad.json", text);
    try {
      import_weka({path}, {});
    } catch (const std::runtime_error& e) {
      const std::string prefix = "trace file " + path + ": ";
      EXPECT_EQ(std::string(e.what()).rfind(prefix, 0), 0U) << e.what();
      return std::string(e.what()).substr(prefix.size());
    }
    return std::string("(no error)");
  };
  EXPECT_EQ(error(R"({"id": "x", "spans": []})"),
            "trace x needs \"requests\", an array (is it a Weka trace?)");
  EXPECT_EQ(error(R"({"id": "x", "requests": [{"t": 0, "type": "q"}]})"),
            "trace x has a request of type \"q\": Weka traces hold \"n\", \"s\" and \"subagent\"");
  EXPECT_EQ(error(R"({"id": "x", "requests": [{"t": 0, "type": "n", "out": 1}]})"),
            "trace x call main.1 needs \"in\"");
  EXPECT_EQ(error(R"({"id": "x", "requests": [{"t": -1, "type": "n", "in": 1, "out": 1}]})"),
            "trace x call main.1: \"t\" must be a number >= 0");
  EXPECT_EQ(error(R"({"id": "x", "block_size": 0, "requests": []})"),
            "trace x \"block_size\" must be a whole number from 1 to 65536");
}

}  // namespace
}  // namespace tokenbench::workload
