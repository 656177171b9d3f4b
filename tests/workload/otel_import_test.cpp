// OpenTelemetry GenAI traces into job files (`tokenbench convert --from otel`): spans in OTLP JSON
// and in inference-perf's shape, messages in the conventions' parts and in OpenAI's shape, the
// dependencies a call's input shows ("from") and those of the timeline, tool turns, spans that
// recorded no content.

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

#include "tokenbench/workload/jobs.h"
#include "tokenbench/workload/otel_spans.h"
#include "tokenbench/workload/trace_import.h"

namespace tokenbench::workload {
namespace {

using nlohmann::json;

std::string write_file(const std::string& name, const std::string& text) {
  const std::string path = ::testing::TempDir() + name;
  std::ofstream(path) << text;
  return path;
}

json only_job(const ImportedJobs& out) {
  EXPECT_EQ(out.lines.size(), 1U);
  return out.lines.empty() ? json() : json::parse(out.lines[0]);
}

// A fan-in in inference-perf's trace shape (its fan_in_dependencies example): three questions,
// the second and third overlapping, then a comparison whose input carries the three answers.
std::string fan_in() {
  auto span = [](const std::string& id, const std::string& start, const std::string& end,
                 const json& input, const std::string& output) {
    return json{{"trace_id", "t3"},
                {"span_id", id},
                {"name", "chat gpt-4"},
                {"start_time", start},
                {"end_time", end},
                {"attributes",
                 {{"gen_ai.operation.name", "chat"},
                  {"gen_ai.input.messages", input.dump()},
                  {"gen_ai.output.text", output}}}};
  };
  const json q1 = {{{"role", "user"}, {"content", "Python?"}}};
  const json q2 = {{{"role", "user"}, {"content", "JavaScript?"}}};
  const json q3 = {{{"role", "user"}, {"content", "Rust?"}}};
  json all = q1;
  all.push_back({{"role", "assistant"}, {"content", "Python is easy."}});
  all.push_back(q2[0]);
  all.push_back({{"role", "assistant"}, {"content", "JS is async."}});
  all.push_back(q3[0]);
  all.push_back({{"role", "assistant"}, {"content", "Rust is safe."}});
  all.push_back({{"role", "user"}, {"content", "Compare them."}});
  json doc = {{"trace_id", "t3"}, {"spans", json::array()}};
  // Out of order in the file: calls are ordered by their start.
  doc["spans"].push_back(span("s4", "2026-02-25T10:00:06Z", "2026-02-25T10:00:09Z", all, "C."));
  doc["spans"].push_back(span("s1", "2026-02-25T10:00:00.000000", "2026-02-25T10:00:02.000000", q1,
                              "Python is easy."));
  doc["spans"].push_back(
      span("s2", "2026-02-25T10:00:02.5", "2026-02-25T10:00:04.5", q2, "JS is async."));
  doc["spans"].push_back(
      span("s3", "2026-02-25T10:00:03", "2026-02-25T10:00:05", q3, "Rust is safe."));
  return doc.dump(2);  // pretty-printed: one document over many lines
}

TEST(OtelImport, AFanInTakesTheRepliesItsInputCarriesAndWaitsAsTheTimelineSays) {
  const ImportedJobs out = import_otel({write_file("otel_fan_in.json", fan_in())}, {});
  const json job = only_job(out);
  EXPECT_EQ(job["job"], "t3");
  ASSERT_EQ(job["calls"].size(), 4U);
  const json& c = job["calls"];
  EXPECT_EQ(c[0]["id"], "c1");
  EXPECT_FALSE(c[0].contains("after"));
  // c2 starts 0.5 s after c1 ended; c3 overlaps c2, so it follows c1 too, 1 s after its end.
  EXPECT_EQ(c[1]["after"], json({"c1"}));
  EXPECT_EQ(c[1]["delay_ms"], 500.0);
  EXPECT_EQ(c[2]["after"], json({"c1"}));
  EXPECT_EQ(c[2]["delay_ms"], 1000.0);
  // c4 carries the three replies: it takes them as "from", and waits for c2 and c3 (c1 through
  // them), 1 s after the last ended.
  EXPECT_EQ(c[3]["after"], json({"c2", "c3"}));
  EXPECT_EQ(c[3]["delay_ms"], 1000.0);
  EXPECT_EQ(c[3]["messages"], json::parse(R"([
    {"role": "user", "content": "Python?"}, {"role": "assistant", "from": "c1"},
    {"role": "user", "content": "JavaScript?"}, {"role": "assistant", "from": "c2"},
    {"role": "user", "content": "Rust?"}, {"role": "assistant", "from": "c3"},
    {"role": "user", "content": "Compare them."}])"));
  // No usage recorded: the output's length is counted from its text.
  EXPECT_EQ(c[0]["output_len"], 3);
  EXPECT_EQ(out.notes, std::vector<std::string>{
                           "3 messages carry an earlier call's output: they become \"from\", the "
                           "reply a run actually receives"});
}

// OTLP JSON as the collector's file exporter writes it: typed attributes, nanosecond strings,
// messages in the conventions' parts, a tool span between two LLM calls, two traces.
std::string otlp() {
  auto attr = [](const std::string& key, const json& value) {
    return json{{"key", key}, {"value", value}};
  };
  auto chat = [&](const std::string& trace, const std::string& id, long long start_ms,
                  long long end_ms, const json& input, const json& output, int out_tokens) {
    json attributes = json::array({attr("gen_ai.operation.name", {{"stringValue", "chat"}}),
                                   attr("gen_ai.input.messages", {{"stringValue", input.dump()}})});
    if (!output.is_null()) {
      attributes.push_back(attr("gen_ai.output.messages", {{"stringValue", output.dump()}}));
    }
    if (out_tokens > 0) {
      attributes.push_back(
          attr("gen_ai.usage.output_tokens", {{"intValue", std::to_string(out_tokens)}}));
    }
    return json{{"traceId", trace},
                {"spanId", id},
                {"name", "chat m"},
                {"startTimeUnixNano", std::to_string(1'700'000'000'000LL + start_ms) + "000000"},
                {"endTimeUnixNano", std::to_string(1'700'000'000'000LL + end_ms) + "000000"},
                {"attributes", attributes}};
  };
  const json ask = json::parse(R"([
    {"role": "system", "parts": [{"type": "text", "content": "You are a travel agent."}]},
    {"role": "user", "parts": [{"type": "text", "content": "Weather in Paris?"}]}])");
  const json called = json::parse(R"([{"role": "assistant", "parts": [
    {"type": "tool_call", "id": "call_1", "name": "get_weather",
     "arguments": {"city": "Paris"}}], "finish_reason": "tool_call"}])");
  json after_tool = ask;
  after_tool.push_back(called[0]);
  after_tool.push_back(json::parse(R"({"role": "tool", "parts": [
    {"type": "tool_call_response", "id": "call_1", "response": "rainy, 57F"}]})"));
  json tool_span = {
      {"traceId", "aa"},
      {"spanId", "t"},
      {"name", "execute_tool get_weather"},
      {"startTimeUnixNano", "1700000000900000000"},
      {"endTimeUnixNano", "1700000001300000000"},
      {"attributes",
       json::array({attr("gen_ai.operation.name", {{"stringValue", "execute_tool"}})})}};
  // A span that kept no content (the conventions' default): only its usage.
  json bare = {
      {"traceId", "bb"},
      {"spanId", "x"},
      {"name", "chat m"},
      {"startTimeUnixNano", "1700000005000000000"},
      {"endTimeUnixNano", "1700000006000000000"},
      {"attributes", json::array({attr("gen_ai.operation.name", {{"stringValue", "chat"}}),
                                  attr("gen_ai.usage.input_tokens", {{"intValue", "321"}}),
                                  attr("gen_ai.usage.output_tokens", {{"intValue", 12}})})}};
  json doc = {{"resourceSpans",
               {{{"resource", {{"attributes", json::array()}}},
                 {"scopeSpans",
                  {{{"scope", {{"name", "openai"}}},
                    {"spans",
                     {chat("aa", "1", 0, 800, ask, called, 20), tool_span,
                      chat("aa", "2", 1500, 2500, after_tool, nullptr, 30), bare}}}}}}}}};
  return doc.dump();
}

TEST(OtelImport, OtlpSpansWithToolTurnsBecomeJobsOfTheirTraces) {
  const ImportedJobs out = import_otel({write_file("otel_otlp.json", otlp())}, {});
  ASSERT_EQ(out.lines.size(), 2U);
  EXPECT_EQ(out.calls, 3U);
  const json job = json::parse(out.lines[0]);
  EXPECT_EQ(job["job"], "aa");
  ASSERT_EQ(job["calls"].size(), 2U);  // the tool span is not a call
  const json& first = job["calls"][0];
  EXPECT_EQ(first["messages"], json::parse(R"([
    {"role": "system", "content": "You are a travel agent."},
    {"role": "user", "content": "Weather in Paris?"}])"));
  EXPECT_EQ(first["output_len"], 20);
  const json& second = job["calls"][1];
  EXPECT_EQ(second["after"], json({"c1"}));
  EXPECT_EQ(second["delay_ms"], 700.0);  // the tool's 400 ms and the rest
  EXPECT_EQ(second["output_len"], 30);
  // The assistant's call of the tool is c1's reply: "from", with the recorded tool call; the
  // tool's result a tool message.
  EXPECT_EQ(second["messages"][2], json::parse(R"({"role": "assistant", "from": "c1",
    "tool_calls": [{"id": "call_1", "type": "function", "function": {"name": "get_weather",
    "arguments": "{\"city\":\"Paris\"}"}}]})"));
  EXPECT_EQ(second["messages"][3], json::parse(R"({"role": "tool", "tool_call_id": "call_1",
    "content": "rainy, 57F"})"));

  const json bare = json::parse(out.lines[1]);
  EXPECT_EQ(bare["job"], "bb");
  EXPECT_EQ(bare["calls"][0]["messages"], json::parse(R"([{"role": "user", "tokens": 321}])"));
  EXPECT_EQ(bare["calls"][0]["output_len"], 12);
  EXPECT_EQ(out.notes.size(), 3U);  // the tool span, the "from", the call without content
}

TEST(OtelImport, OpenLlmetryIndexedPromptsAreRead) {
  const json doc = json::array({json{{"context", {{"trace_id", "0xabc"}, {"span_id", "0x1"}}},
                                     {"name", "openai.chat"},
                                     {"start_time", "2026-01-01T00:00:00.000000Z"},
                                     {"end_time", "2026-01-01T00:00:01.000000Z"},
                                     {"attributes",
                                      {{"gen_ai.prompt.0.role", "system"},
                                       {"gen_ai.prompt.0.content", "Be brief."},
                                       {"gen_ai.prompt.1.role", "user"},
                                       {"gen_ai.prompt.1.content", "Hi"},
                                       {"gen_ai.completion.0.content", "Hello"},
                                       {"gen_ai.usage.completion_tokens", 2}}}}});
  const json job = only_job(import_otel({write_file("otel_llmetry.json", doc.dump())}, {}));
  EXPECT_EQ(job["job"], "0xabc");
  EXPECT_EQ(job["calls"][0]["messages"], json::parse(R"([{"role": "system", "content":
    "Be brief."}, {"role": "user", "content": "Hi"}])"));
  EXPECT_EQ(job["calls"][0]["output_len"], 2);
}

TEST(OtelImport, TracesWithoutAnLlmCallOrWithoutTimesAreRefused) {
  const json tool_only = {{"spans",
                           {{{"trace_id", "t"},
                             {"name", "execute_tool x"},
                             {"start_time", "2026-01-01T00:00:00Z"},
                             {"end_time", "2026-01-01T00:00:01Z"},
                             {"attributes", {{"gen_ai.operation.name", "execute_tool"}}}}}}};
  try {
    import_otel({write_file("otel_tools.json", tool_only.dump())}, {});
    FAIL() << "a trace without an LLM call was imported";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()).rfind("no LLM call in the traces", 0), 0U) << e.what();
  }
  const std::string path =
      write_file("otel_untimed.json", R"({"spans": [{"span_id": "s9", "name": "chat m"}]})");
  try {
    import_otel({path}, {});
    FAIL() << "a span without times was imported";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()),
              "trace file " + path +
                  ": span s9 has no readable start or end time (startTimeUnixNano / start_time, "
                  "endTimeUnixNano / end_time)");
  }
}

TEST(OtelSpans, Iso8601TimesAreReadInUtc) {
  EXPECT_DOUBLE_EQ(iso8601_seconds("1970-01-01T00:00:00Z"), 0.0);
  EXPECT_DOUBLE_EQ(iso8601_seconds("2026-02-25T10:00:02.5"), 1772013602.5);
  EXPECT_DOUBLE_EQ(iso8601_seconds("2026-02-25T12:00:02.5+02:00"), 1772013602.5);
  EXPECT_DOUBLE_EQ(iso8601_seconds("2000-03-01 00:00:00"), 951868800.0);
  EXPECT_TRUE(std::isnan(iso8601_seconds("yesterday")));
  EXPECT_TRUE(std::isnan(iso8601_seconds("2026-13-01T00:00:00Z")));
}

TEST(TraceFiles, ADirectoryGivesItsTraceFilesInOrderAndAMissingInputIsNamed) {
  const std::string dir = ::testing::TempDir() + "trace_dir_test";
  std::filesystem::create_directories(dir);
  std::ofstream(dir + "/b.jsonl") << "{}";
  std::ofstream(dir + "/a.json") << "{}";
  std::ofstream(dir + "/notes.txt") << "x";
  EXPECT_EQ(trace_files({dir}), (std::vector<std::string>{dir + "/a.json", dir + "/b.jsonl"}));
  try {
    trace_files({dir + "/none"});
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()),
              "cannot find " + dir + "/none: give trace files or directories");
  }
}

}  // namespace
}  // namespace tokenbench::workload
