// The job file (--dataset jobs): a job's calls, their graph, their messages, and every error one
// line naming the file, the line, the job and the call.

#include "tokenbench/workload/jobs.h"

#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>
#include <string>

namespace tokenbench::workload {
namespace {

// The fan-out job of docs/WORKLOADS.md: a planner, three sub-agents after it, a join.
const char* const kFanOut = R"({"job": "j1", "calls": [
  {"id": "final", "after": ["s1", "s2", "s3"], "messages": [
    {"role": "user", "content": "sum up"}, {"role": "assistant", "from": "s2"}], "output_len": 64},
  {"id": "plan", "messages": [{"role": "user", "content": "plan the trip"}], "output_len": 64},
  {"id": "s1", "after": ["plan"], "delay_ms": 120, "messages": [
    {"role": "system", "content": "you book flights"},
    {"role": "assistant", "from": "plan"},
    {"role": "user", "content": "book it"}], "output_len": 32},
  {"id": "s2", "after": ["plan"], "messages": [{"role": "user", "content": "hotels"}]},
  {"id": "s3", "after": ["plan"], "messages": [
    {"role": "assistant", "content": null, "tool_calls": [{"id": "t1", "type": "function",
      "function": {"name": "search", "arguments": "{\"q\":\"x\"}"}}]},
    {"role": "tool", "tool_call_id": "t1", "tokens": 50}]}]})";

std::string one_line(const std::string& text) { return nlohmann::json::parse(text).dump(); }

std::string error_of(const std::string& line) {
  try {
    parse_job(line, 0, 1);
  } catch (const std::exception& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(JobFile, ReadsTheGraphItsDepthsAndAnOrderThatKeepsEveryCallAfterItsDependencies) {
  const Job job = parse_job(one_line(kFanOut), 16, 7);
  EXPECT_EQ(job.name, "j1");
  ASSERT_EQ(job.calls.size(), 5U);
  EXPECT_EQ(job.calls[0].id, "final");
  EXPECT_EQ(job.calls[0].depth, 2);
  EXPECT_EQ(job.calls[1].depth, 0);
  EXPECT_EQ(job.calls[2].depth, 1);
  EXPECT_EQ(job.calls[2].delay_ms, 120);
  EXPECT_EQ(job.calls[2].max_tokens, 32);
  EXPECT_EQ(job.calls[3].max_tokens, 16);  // the default output length
  ASSERT_EQ(job.calls[0].after.size(), 3U);
  EXPECT_EQ(job.calls[0].after[1], 3U);
  // The order: plan first, final last.
  ASSERT_EQ(job.order.size(), 5U);
  EXPECT_EQ(job.order.front(), 1U);
  EXPECT_EQ(job.order.back(), 0U);
  // "from" points at the call whose reply it stands for.
  EXPECT_EQ(job.calls[2].messages[1].from, 1);
  EXPECT_TRUE(job.calls[2].messages[1].json.empty());
  EXPECT_EQ(job.calls[2].messages[0].json, R"({"content":"you book flights","role":"system"})");
  // Written text is counted (3 + 2 words); the reply put in by "from" is counted when sent.
  EXPECT_EQ(job.calls[2].input_tokens, 5);
}

TEST(JobFile, ASyntheticToolResultHasTheTokensItAsksForTheSameForTheSameSeed) {
  const Job a = parse_job(one_line(kFanOut), 0, 7);
  const Job b = parse_job(one_line(kFanOut), 0, 7);
  const Job c = parse_job(one_line(kFanOut), 0, 8);
  const auto tool = nlohmann::json::parse(a.calls[4].messages[1].json);
  EXPECT_EQ(tool["role"], "tool");
  EXPECT_EQ(tool["tool_call_id"], "t1");
  EXPECT_FALSE(tool.contains("tokens"));
  // Without a tokenizer a token is a word of the random prompts' vocabulary.
  const auto content = tool["content"].get<std::string>();
  EXPECT_EQ(std::count(content.begin(), content.end(), ' '), 49);
  EXPECT_EQ(a.calls[4].input_tokens, 50);
  EXPECT_EQ(a.calls[4].messages[1].json, b.calls[4].messages[1].json);
  EXPECT_NE(a.calls[4].messages[1].json, c.calls[4].messages[1].json);
  // The assistant's tool call is kept as written.
  EXPECT_EQ(nlohmann::json::parse(a.calls[4].messages[0].json)["tool_calls"][0]["id"], "t1");
}

TEST(JobFile, WritesAJobBackAsALineThatReadsToTheSameJob) {
  const Job job = parse_job(one_line(kFanOut), 0, 7);
  const Job again = parse_job(job_to_json_line(job), 0, 7);
  ASSERT_EQ(again.calls.size(), job.calls.size());
  for (std::size_t i = 0; i < job.calls.size(); ++i) {
    EXPECT_EQ(again.calls[i].id, job.calls[i].id);
    EXPECT_EQ(again.calls[i].after, job.calls[i].after);
    EXPECT_EQ(again.calls[i].delay_ms, job.calls[i].delay_ms);
    EXPECT_EQ(again.calls[i].depth, job.calls[i].depth);
    ASSERT_EQ(again.calls[i].messages.size(), job.calls[i].messages.size());
    for (std::size_t m = 0; m < job.calls[i].messages.size(); ++m) {
      EXPECT_EQ(again.calls[i].messages[m].json, job.calls[i].messages[m].json);
      EXPECT_EQ(again.calls[i].messages[m].from, job.calls[i].messages[m].from);
    }
  }
}

TEST(JobFile, RefusesACycleAnUnknownIdAndAFromItDoesNotWaitForNamingJobAndCall) {
  EXPECT_EQ(error_of(R"({"job":"j","calls":[
      {"id":"a","after":["b"],"messages":[{"role":"user","content":"x"}]},
      {"id":"b","after":["a"],"messages":[{"role":"user","content":"y"}]}]})"),
            "job j, call a: is on a cycle of \"after\": a call cannot wait for itself");
  EXPECT_EQ(error_of(R"({"job":"j","calls":[
      {"id":"a","after":["a"],"messages":[{"role":"user","content":"x"}]}]})"),
            "job j, call a: is on a cycle of \"after\": a call cannot wait for itself");
  EXPECT_EQ(error_of(R"({"job":"j","calls":[
      {"id":"a","after":["zz"],"messages":[{"role":"user","content":"x"}]}]})"),
            "job j, call a: \"after\" names \"zz\", which is not a call of this job");
  EXPECT_EQ(error_of(R"({"job":"j","calls":[{"id":"a","messages":[{"role":"user","content":"x"}]},
      {"id":"b","messages":[{"role":"assistant","from":"a"}]}]})"),
            "job j, call b: takes the reply of \"a\" (\"from\") but does not wait for it: add it "
            "to \"after\"");
  EXPECT_EQ(error_of(R"({"job":"j","calls":[{"id":"a","messages":[{"role":"user","from":"a"}]}]})"),
            "job j, call a: message 1 has \"from\" but is not assistant's");
  EXPECT_EQ(error_of(R"({"job":"j","calls":[{"id":"a","messages":[{"role":"tool","tokens":3}]}]})"),
            "job j, call a: message 1 is a tool result without \"tool_call_id\"");
  EXPECT_EQ(error_of(R"({"job":"j","calls":[{"id":"a","messages":[{"role":"user"}]}]})"),
            "job j, call a: message 1 needs \"content\", \"tokens\" or \"from\"");
  EXPECT_EQ(error_of(R"({"job":"j","calls":[{"id":"a","messages":[{"role":"user","tokens":0}]}]})"),
            "job j, call a: message 1 \"tokens\" must be an integer from 1 to 1048576");
  EXPECT_EQ(error_of(R"({"job":"j","calls":[{"id":"a","messages":[]}]})"),
            "job j, call a: needs \"messages\": a non-empty array");
  EXPECT_EQ(error_of(R"({"job":"j","calls":[{"id":"a","messages":[{"role":"user","content":"x"}]},
      {"id":"a","messages":[{"role":"user","content":"y"}]}]})"),
            "job j has two calls with id \"a\"");
  EXPECT_EQ(error_of(R"({"job":"j","calls":[]})"),
            "job j needs \"calls\": a non-empty array of calls");
  EXPECT_EQ(error_of(R"({"calls":[]})"), "needs \"job\": the job's name, a string or integer");
  EXPECT_EQ(error_of(R"({"job":"j","calls":[{"id":"a","delay_ms":-1,"messages":[]}]})"),
            "job j, call a: \"delay_ms\" must be a number of milliseconds from 0 to 86400000");
}

TEST(JobFile, AFileNamesTheLineOfABadJobAndRefusesTwoJobsOfOneName) {
  const std::string path = ::testing::TempDir() + "jobs_test.jsonl";
  const std::string job =
      R"({"job":"a","calls":[{"id":"x","messages":[{"role":"user","content":"hi"}]}]})";
  std::ofstream(path) << job << "\n\n" << job << "\n";
  try {
    load_job_file(path, 0, 1);
    FAIL() << "two jobs named a were read";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()), "job file " + path +
                                         " line 3: job a is also on line 1: job names must be "
                                         "unique");
  }
  std::ofstream(path) << job << "\n{\"job\":\"b\",\"calls\":[{\"id\":\"x\"}]}\n";
  try {
    load_job_file(path, 0, 1);
    FAIL() << "a call without messages was read";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()),
              "job file " + path + " line 2: job b, call x: needs \"messages\": a non-empty array");
  }
  std::ofstream(path) << job << "\n";
  const auto jobs = load_job_file(path, 0, 1);
  ASSERT_EQ(jobs.size(), 1U);
  EXPECT_EQ(jobs[0].calls[0].input_tokens, 1);
}

// Blocks of hash ids (a Weka or Mooncake trace's prompts): the content is made when the call is
// sent, the same ids giving the same words, cut or topped up to "tokens".
TEST(JobFile, ABlockMessageIsMadeOfItsHashIdsWhenSentAndWrittenBackAsIds) {
  const std::string line = one_line(R"({"job": "w", "calls": [
    {"id": "a", "messages": [{"role": "user", "hash_ids": [7, 8], "block_tokens": 4,
      "tokens": 10}], "output_len": 3},
    {"id": "b", "after": ["a"], "messages": [{"role": "user", "hash_ids": [7, 8, 9, 10],
      "block_tokens": 4, "tokens": 6}]}]})");
  const Job job = parse_job(line, 0, 5);
  ASSERT_EQ(job.calls.size(), 2U);
  EXPECT_EQ(job.calls[0].input_tokens, 10);
  EXPECT_EQ(job.calls[1].input_tokens, 6);
  // Ids past the blocks its length holds are left out (6 tokens: 2 blocks of 4).
  ASSERT_NE(job.calls[1].messages[0].blocks, nullptr);
  EXPECT_EQ(job.calls[1].messages[0].blocks->hash_ids, (std::vector<std::uint64_t>{7, 8}));
  EXPECT_EQ(job.calls[0].messages[0].json, R"({"role":"user"})");  // no content held

  const auto content = [&job](std::size_t call) {
    return nlohmann::json::parse(message_json(job, job.calls[call].messages[0]))["content"]
        .get<std::string>();
  };
  const std::string a = content(0);
  const std::string b = content(1);
  auto words = [](const std::string& text) {
    std::vector<std::string> out;
    std::istringstream in(text);
    for (std::string w; in >> w;) out.push_back(w);
    return out;
  };
  ASSERT_EQ(words(a).size(), 10U);  // blocks 7 and 8, then 2 tokens of its own
  ASSERT_EQ(words(b).size(), 6U);   // block 7 whole, block 8 cut to 2
  for (std::size_t i = 0; i < 6; ++i) EXPECT_EQ(words(a)[i], words(b)[i]) << i;
  EXPECT_EQ(content(0), a);  // the same each time it is sent

  // Written back as ids, it reads back to the same content.
  const Job again = parse_job(job_to_json_line(job), 0, 5);
  EXPECT_EQ(message_json(again, again.calls[0].messages[0]),
            message_json(job, job.calls[0].messages[0]));
  EXPECT_EQ(nlohmann::json::parse(job_to_json_line(job))["calls"][0]["messages"][0],
            nlohmann::json::parse(
                R"({"role": "user", "hash_ids": [7, 8], "block_tokens": 4, "tokens": 10})"));
}

TEST(JobFile, HashIdsNameBlocksOfTheirJobUnlessTheScopeIsTheRun) {
  const auto job = [](const std::string& name, const std::string& scope) {
    return parse_job(R"({"job": ")" + name + R"(", )" + scope +
                         R"("calls": [{"id": "a", "messages": [{"role": "user", "hash_ids": [1],
                          "tokens": 16}]}]})",
                     0, 9);
  };
  const auto text = [](const Job& j) { return message_json(j, j.calls[0].messages[0]); };
  EXPECT_NE(text(job("x", "")), text(job("y", "")));
  EXPECT_EQ(text(job("x", "")), text(job("x", "")));
  EXPECT_EQ(text(job("x", R"("hash_scope": "run", )")), text(job("y", R"("hash_scope": "run", )")));
  EXPECT_NE(job_to_json_line(job("x", R"("hash_scope": "run", )")).find(R"("hash_scope":"run")"),
            std::string::npos);
}

TEST(JobFile, ABadBlockMessageIsNamed) {
  const auto call = [](const std::string& message) {
    return one_line(R"({"job": "w", "calls": [{"id": "a", "messages": [)" + message + "]}]}");
  };
  EXPECT_EQ(error_of(call(R"({"role": "user", "hash_ids": [1]})")),
            "job w, call a: message 1 has \"hash_ids\" but no \"tokens\": the content's length");
  EXPECT_EQ(error_of(call(R"({"role": "user", "hash_ids": [-1], "tokens": 4})")),
            "job w, call a: message 1 \"hash_ids\" must hold whole numbers >= 0");
  EXPECT_EQ(error_of(call(R"({"role": "user", "hash_ids": [1], "tokens": 4, "block_tokens": 0})")),
            "job w, call a: message 1 \"block_tokens\" must be an integer from 1 to 65536");
  EXPECT_EQ(error_of(one_line(R"({"job": "w", "hash_scope": "all", "calls": [{"id": "a",
              "messages": [{"role": "user", "content": "x"}]}]})")),
            "job w has \"hash_scope\" \"all\": it is \"job\" or \"run\"");
}

}  // namespace
}  // namespace tokenbench::workload
