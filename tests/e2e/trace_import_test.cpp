// End to end: `tokenbench convert` turns published agentic traces into a job file that `run`
// replays against serve-sim: a Weka trace (its prefix sharing reaches the server's cache) and an
// OpenTelemetry trace (its calls take the replies the run received).

#include <gtest/gtest.h>

#include <fstream>
#include <map>

#include "process.h"

namespace tokenbench::e2e {
namespace {

using nlohmann::json;

// A Weka trace: two main-agent calls sharing four blocks of 16 tokens, a sub-agent between them.
const char* const kWeka = R"({"id": "w1", "block_size": 16, "hash_id_scope": "local",
  "requests": [
  {"t": 0, "type": "n", "in": 64, "out": 4, "hash_ids": [1, 2, 3, 4], "api_time": 1,
   "think_time": 0},
  {"t": 2, "type": "subagent", "agent_id": "a1", "requests": [
    {"t": 0, "type": "n", "in": 32, "out": 4, "hash_ids": [9, 10], "api_time": 1,
     "think_time": 0}]},
  {"t": 5, "type": "n", "in": 96, "out": 4, "hash_ids": [1, 2, 3, 4, 5, 6], "api_time": 1,
   "think_time": 3}]})";

std::string write(const std::string& path, const std::string& text) {
  std::ofstream(path) << text;
  return path;
}

TEST(EndToEndTraceImport, AWekaTraceConvertsAndReplaysWithItsPrefixSharing) {
  const std::string dir = make_temp_dir("import-weka");
  const std::string jobs = dir + "/jobs.jsonl";
  auto r = run_process({TOKENBENCH_BINARY, "convert", "--from", "weka", "--max-delay-ms", "20",
                        "--output", jobs, write(dir + "/trace.json", kWeka)});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("1 jobs, 3 calls written to " + jobs), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("1 delays cut to --max-delay-ms"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("run them: tokenbench run --dataset jobs --dataset-path " + jobs),
            std::string::npos)
      << r.err;

  SimProcess sim({"--preset", "zero", "--enable-prefix-caching", "--block-size", "16"});
  const std::string out = dir + "/run";
  r = run_process(run_args(sim.url(), out,
                           {"--dataset", "jobs", "--dataset-path", jobs, "--num-prompts", "1",
                            "--server-metrics", "off", "--gpu-metrics", "off"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::map<std::string, json> calls;
  for (const auto& rec : read_records(out + "/requests.jsonl")) {
    ASSERT_EQ(rec["error"], "none") << rec.dump();
    calls[rec["job"]["call"].get<std::string>()] = rec;
  }
  ASSERT_EQ(calls.size(), 3U);
  EXPECT_EQ(calls.at("main.2")["job"]["after"], (json{"main.1", "a1.1"}));
  EXPECT_EQ(calls.at("main.2")["job"]["delay_ms"], 20.0);
  EXPECT_EQ(calls.at("main.1")["prompt_tokens"], 64);
  EXPECT_EQ(calls.at("main.2")["prompt_tokens"], 96);
  // main.2 begins with main.1's four blocks: the server's cache holds most of them (the chat
  // template's role marks shift the blocks a little); the sub-agent's prompt shares none.
  EXPECT_GE(calls.at("main.2")["cached_tokens"].get<std::int64_t>(), 48)
      << calls.at("main.2").dump();
  EXPECT_EQ(calls.at("a1.1")["cached_tokens"], 0);
}

// An OpenTelemetry trace in OTLP JSON: a question, then a follow-up whose input carries the
// answer.
std::string otlp_trace() {
  auto span = [](const std::string& id, const std::string& start, const std::string& end,
                 const json& input, const std::string& output) {
    json attributes = json::array();
    auto add = [&attributes](const std::string& key, const std::string& value) {
      attributes.push_back({{"key", key}, {"value", {{"stringValue", value}}}});
    };
    add("gen_ai.operation.name", "chat");
    add("gen_ai.input.messages", input.dump());
    add("gen_ai.output.messages",
        json::array({{{"role", "assistant"}, {"parts", {{{"type", "text"}, {"content", output}}}}}})
            .dump());
    return json{{"traceId", "5b8efff798038103d269b633813fc60c"},
                {"spanId", id},
                {"name", "chat m"},
                {"startTimeUnixNano", start},
                {"endTimeUnixNano", end},
                {"attributes", attributes}};
  };
  const json first = json::parse(R"([{"role": "user", "parts": [{"type": "text",
    "content": "Name a colour."}]}])");
  json second = first;
  second.push_back(json::parse(R"({"role": "assistant", "parts": [{"type": "text",
    "content": "Blue."}]})"));
  second.push_back(json::parse(R"({"role": "user", "parts": [{"type": "text",
    "content": "Another?"}]})"));
  return json{
      {"resourceSpans",
       {{{"scopeSpans",
          {{{"spans",
             {span("a", "1700000000000000000", "1700000000500000000", first, "Blue."),
              span("b", "1700000000510000000", "1700000001000000000", second, "Red.")}}}}}}}}}
      .dump();
}

TEST(EndToEndTraceImport, AnOtelTraceConvertsAndItsFollowUpCarriesTheReplyReceived) {
  const std::string dir = make_temp_dir("import-otel");
  const std::string trace = write(dir + "/trace.json", otlp_trace());
  // To standard output, as a pipe would take it.
  auto r = run_process({TOKENBENCH_BINARY, "convert", "--from", "otel", trace});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json job = json::parse(r.out);
  EXPECT_EQ(job["job"], "5b8efff798038103d269b633813fc60c");
  EXPECT_EQ(job["calls"][1]["messages"][1], (json{{"role", "assistant"}, {"from", "c1"}}));
  EXPECT_EQ(job["calls"][1]["delay_ms"], 10.0);
  const std::string jobs = write(dir + "/jobs.jsonl", r.out);

  SimProcess sim({"--preset", "zero"});
  const std::string out = dir + "/run";
  r = run_process(
      run_args(sim.url(), out,
               {"--dataset", "jobs", "--dataset-path", jobs, "--num-prompts", "2",
                "--max-concurrency", "1", "--server-metrics", "off", "--gpu-metrics", "off"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  int follow_ups = 0;
  for (const auto& rec : read_records(out + "/requests.jsonl")) {
    ASSERT_EQ(rec["error"], "none") << rec.dump();
    if (rec["job"]["call"] != "c2") continue;
    ++follow_ups;
    EXPECT_EQ(rec["job"]["after"], (json{"c1"}));
    EXPECT_EQ(rec["job"]["depth"], 1);
  }
  EXPECT_EQ(follow_ups, 2);
}

TEST(EndToEndTraceImport, BadConvertInputsGetOneLine) {
  const std::string dir = make_temp_dir("import-bad");
  auto r = run_process({TOKENBENCH_BINARY, "convert", "--from", "otel", dir + "/none.json"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "tokenbench: error: cannot find " + dir +
                       "/none.json: give trace files or directories\n");
  r = run_process(
      {TOKENBENCH_BINARY, "convert", "--from", "weka", write(dir + "/otel.json", otlp_trace())});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "tokenbench: error: trace file " + dir + "/otel.json: trace " + dir +
                       "/otel.json needs \"requests\", an array (is it a Weka trace?)\n");
  r = run_process({TOKENBENCH_BINARY, "convert", "--from", "jaeger", dir + "/otel.json"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "tokenbench: error: --from jaeger: the traces' format is weka or otel\n");
}

}  // namespace
}  // namespace tokenbench::e2e
