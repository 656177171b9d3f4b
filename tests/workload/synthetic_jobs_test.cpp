// --jobs SPEC: synthetic agentic jobs of a given shape, made from the seed.

#include "tokenbench/workload/synthetic_jobs.h"

#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>

namespace tokenbench::workload {
namespace {

using nlohmann::json;

std::string error_of(const std::string& spec) {
  try {
    parse_job_shape(spec);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "(no error)";
}

const JobCall& call_named(const Job& job, const std::string& id) {
  for (const JobCall& c : job.calls) {
    if (c.id == id) return c;
  }
  throw std::logic_error("no call " + id);
}

TEST(SyntheticJobs, TheShapeGivesThePlannerTheLevelsTheirToolCallsAndTheJoin) {
  const JobShape shape = parse_job_shape("fanout:3,depth:2,tools:1,prefix:40,tool_ms:250,input:8");
  EXPECT_EQ(calls_per_job(shape), 14);
  const Job job = make_synthetic_job(shape, 7, 0, 16);
  ASSERT_EQ(job.calls.size(), 14U);
  EXPECT_EQ(call_named(job, "plan").depth, 0);
  EXPECT_EQ(call_named(job, "a1.2").depth, 1);
  EXPECT_EQ(call_named(job, "a1.2.t1").depth, 2);
  EXPECT_EQ(call_named(job, "a2.3").depth, 3);
  EXPECT_EQ(call_named(job, "final").depth, 5);
  // A level waits for every last call of the level before; a tool call for its agent's call,
  // the tool's run time later.
  EXPECT_EQ(call_named(job, "a2.1").after.size(), 3U);
  const JobCall& tool = call_named(job, "a1.2.t1");
  EXPECT_DOUBLE_EQ(tool.delay_ms, 250);
  ASSERT_EQ(tool.after.size(), 1U);
  EXPECT_EQ(job.calls[tool.after[0]].id, "a1.2");
  // Its history: the system prompt, the planner's reply, the task, the agent's reply as a call
  // of the tool, and the tool's result.
  ASSERT_EQ(tool.messages.size(), 5U);
  EXPECT_EQ(job.calls[static_cast<std::size_t>(tool.messages[1].from)].id, "plan");
  EXPECT_EQ(job.calls[static_cast<std::size_t>(tool.messages[3].from)].id, "a1.2");
  EXPECT_EQ(json::parse(tool.messages[3].json)["tool_calls"][0]["id"], "call_1");
  EXPECT_EQ(json::parse(tool.messages[4].json)["role"], "tool");
  EXPECT_EQ(call_named(job, "final").messages.size(), 1U + 3U + 1U);
  EXPECT_EQ(call_named(job, "final").max_tokens, 16);
  // Every call opens with the same system prompt of 40 tokens.
  const auto system = json::parse(call_named(job, "plan").messages[0].json);
  EXPECT_EQ(system["role"], "system");
  EXPECT_EQ(json::parse(call_named(job, "a2.3").messages[0].json), system);
  EXPECT_EQ(call_named(job, "plan").input_tokens, 40 + 8);
}

TEST(SyntheticJobs, JobsShareTheirSystemPromptOnlyWithShareRunAndRepeatForASeed) {
  const JobShape own = parse_job_shape("fanout:2,prefix:30");
  const JobShape run = parse_job_shape("fanout:2,prefix:30,share:run");
  const auto system = [](const Job& j) { return j.calls[0].messages[0].json; };
  EXPECT_NE(system(make_synthetic_job(own, 1, 0, 8)), system(make_synthetic_job(own, 1, 1, 8)));
  EXPECT_EQ(system(make_synthetic_job(run, 1, 0, 8)), system(make_synthetic_job(run, 1, 1, 8)));
  EXPECT_EQ(job_to_json_line(make_synthetic_job(own, 3, 5, 8)),
            job_to_json_line(make_synthetic_job(own, 3, 5, 8)));
  EXPECT_NE(job_to_json_line(make_synthetic_job(own, 3, 5, 8)),
            job_to_json_line(make_synthetic_job(own, 4, 5, 8)));
  // depth:0 is a planner and a join.
  EXPECT_EQ(make_synthetic_job(parse_job_shape("depth:0"), 1, 0, 8).calls.size(), 2U);
}

TEST(SyntheticJobs, ABadSpecIsOneLineNamingTheItemAndTheKeys) {
  EXPECT_NE(error_of("fanout:0").find("--jobs: 'fanout:0' needs a whole number from 1 to 256"),
            std::string::npos);
  EXPECT_NE(error_of("width:3").find("'width:3' has an unknown key (keys: fanout, depth"),
            std::string::npos);
  EXPECT_NE(error_of("fanout").find("'fanout' is not KEY:VALUE"), std::string::npos);
  EXPECT_NE(error_of("share:all").find("'share:all' is job or run"), std::string::npos);
  EXPECT_EQ(error_of("fanout:256,depth:16,tools:1"),
            "--jobs: 8194 calls a job, more than the limit of 4096: fewer fanout, depth or tools");
  EXPECT_EQ(error_of(""), "(no error)");
}

TEST(SyntheticJobs, AShapeMayBeAYamlFileOfTheSameKeys) {
  const std::string path = ::testing::TempDir() + "shape_test.yaml";
  std::ofstream(path) << "# four agents, two tools each\nfanout: 4\ndepth: 1\ntools: 2\n"
                         "prefix: 2048\nshare: run\ntool_ms: 250\n";
  const JobShape shape = parse_job_shape(path);
  EXPECT_EQ(shape.fanout, 4);
  EXPECT_EQ(shape.tools, 2);
  EXPECT_EQ(shape.prefix, 2048);
  EXPECT_TRUE(shape.shared);
  EXPECT_EQ(shape.tool_ms, 250.0);
  EXPECT_EQ(shape.input, 64);  // left out: the default

  std::ofstream(path) << "fanout: 4\nwidth: 2\n";
  EXPECT_NE(error_of(path).find("'width:2' has an unknown key"), std::string::npos)
      << error_of(path);
  std::ofstream(path) << "fanout: [1, 2]\n";
  EXPECT_EQ(
      error_of(path).rfind("--jobs: " + path + " line 1: each value is a number or a word", 0), 0U)
      << error_of(path);
  std::ofstream(path) << "- fanout\n";
  EXPECT_EQ(error_of(path).rfind("--jobs: " + path + " is not a mapping of KEY: VALUE", 0), 0U);
  EXPECT_EQ(error_of(::testing::TempDir() + "none.yml"),
            "--jobs: cannot open " + ::testing::TempDir() +
                "none.yml (a YAML file of KEY: VALUE lines, or a spec KEY:VALUE,...)");
}

}  // namespace
}  // namespace tokenbench::workload
