// Pure parts of the simulator: request parsing, generation plans, token timing, rendering.

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <nlohmann/json.hpp>
#include <string>
#include <variant>

#include "tokenbench/core/approx_tokens.h"
#include "tokenbench/sim/generation_plan.h"
#include "tokenbench/sim/openai_render.h"
#include "tokenbench/sim/openai_request.h"
#include "tokenbench/sim/token_timeline.h"

namespace tokenbench::sim {
namespace {

using nlohmann::json;

CompletionRequest parse_ok(ApiKind api, const std::string& body) {
  auto r = parse_completion_request(api, body, "m", 256);
  EXPECT_TRUE(std::holds_alternative<CompletionRequest>(r)) << body;
  return std::holds_alternative<CompletionRequest>(r) ? std::get<CompletionRequest>(r)
                                                      : CompletionRequest{};
}

RequestError parse_error(ApiKind api, const std::string& body) {
  auto r = parse_completion_request(api, body, "m", 256);
  EXPECT_TRUE(std::holds_alternative<RequestError>(r)) << body;
  return std::holds_alternative<RequestError>(r) ? std::get<RequestError>(r) : RequestError{};
}

TEST(SimRequestTest, ReadsChatFields) {
  const CompletionRequest r =
      parse_ok(ApiKind::kChat,
               R"({"model":"m","messages":[{"role":"user","content":"a b c"},{"role":"assistant",)"
               R"("content":[{"type":"text","text":"d e"}]},{"role":"tool","content":null}],)"
               R"("max_tokens":9,"min_tokens":3,"ignore_eos":false,"stream":true,)"
               R"("stream_options":{"include_usage":true}})");
  EXPECT_EQ(r.prompt_tokens, 5);
  EXPECT_EQ(r.max_tokens, 9);
  EXPECT_EQ(r.min_tokens, 3);
  EXPECT_TRUE(r.stream);
  EXPECT_TRUE(r.include_usage);
  EXPECT_FALSE(r.ignore_eos);
}

TEST(SimRequestTest, DefaultsAndAlternatives) {
  CompletionRequest r = parse_ok(ApiKind::kCompletions, R"({"prompt":"one two three"})");
  EXPECT_EQ(r.max_tokens, 256);
  EXPECT_EQ(r.prompt_tokens, 3);
  EXPECT_FALSE(r.stream);
  r = parse_ok(ApiKind::kCompletions, R"({"prompt":["x y"],"max_completion_tokens":4})");
  EXPECT_EQ(r.max_tokens, 4);
  EXPECT_EQ(r.prompt_tokens, 2);
  r = parse_ok(ApiKind::kCompletions, R"({"prompt":[5,6,7],"max_tokens":null,"model":""})");
  EXPECT_EQ(r.prompt_tokens, 3);
  EXPECT_EQ(r.max_tokens, 256);
}

TEST(SimRequestTest, RejectsBadRequests) {
  EXPECT_EQ(parse_error(ApiKind::kChat, "[1]").status, 400);
  EXPECT_EQ(parse_error(ApiKind::kChat, R"({"messages":"oops"})").status, 400);
  EXPECT_EQ(parse_error(ApiKind::kChat, R"({"messages":[],"max_tokens":-1})").status, 400);
  EXPECT_EQ(parse_error(ApiKind::kChat, R"({"messages":[],"max_tokens":2,"min_tokens":3})").status,
            400);
  EXPECT_EQ(parse_error(ApiKind::kChat, R"({"messages":[],"stream":"yes"})").status, 400);
  EXPECT_EQ(parse_error(ApiKind::kCompletions, R"({"prompt":{"a":1}})").status, 400);
  const RequestError e = parse_error(ApiKind::kCompletions, R"({"prompt":"x","model":"other"})");
  EXPECT_EQ(e.status, 404);
  EXPECT_NE(e.message.find("other"), std::string::npos);
}

TEST(SimGenerationTest, VocabularyIsOneSafeTokenPerWord) {
  for (const std::string_view word : vocabulary()) {
    ASSERT_GE(word.size(), 2u);
    EXPECT_EQ(word[0], ' ');
    EXPECT_EQ(core::approx_token_count(word), 1);
    for (const char c : word.substr(1)) EXPECT_TRUE(c >= 'a' && c <= 'z') << word;
  }
}

TEST(SimGenerationTest, PlanHonoursLimits) {
  CompletionRequest r;
  r.max_tokens = 7;
  r.ignore_eos = true;
  EXPECT_EQ(plan_generation(r, 1, 2).output_tokens, 7);
  EXPECT_EQ(plan_generation(r, 1, 2).finish, FinishReason::kLength);
  r.ignore_eos = false;
  r.min_tokens = 7;
  EXPECT_EQ(plan_generation(r, 1, 2).output_tokens, 7);
  r.min_tokens = 0;
  r.max_tokens = 50;
  int shorter = 0;
  for (std::uint64_t a = 0; a < 200; ++a) {
    const GenerationPlan p = plan_generation(r, 3, a);
    ASSERT_GE(p.output_tokens, 1);
    ASSERT_LE(p.output_tokens, 50);
    EXPECT_EQ(p.finish, p.output_tokens == 50 ? FinishReason::kLength : FinishReason::kStop);
    EXPECT_EQ(p.output_tokens, plan_generation(r, 3, a).output_tokens);
    shorter += p.output_tokens < 50;
  }
  EXPECT_GT(shorter, 150);
}

TEST(SimTimelineTest, FixedDelaysWithoutJitter) {
  using std::chrono::milliseconds;
  const auto t0 = core::Clock::now();
  TokenTimeline timeline({50, 10, 0}, 1, 2, t0);
  EXPECT_EQ(timeline.next() - t0, milliseconds(50));
  EXPECT_EQ(timeline.next() - t0, milliseconds(60));
  timeline.delay(milliseconds(100));
  EXPECT_EQ(timeline.next() - t0, milliseconds(170));
}

TEST(SimTimelineTest, JitterIsBoundedMonotonicAndDeterministic) {
  const auto t0 = core::Clock::now();
  TokenTimeline a({5, 2, 3}, 9, 4, t0), b({5, 2, 3}, 9, 4, t0);
  auto prev = t0;
  bool varied = false;
  for (int i = 0; i < 100; ++i) {
    const auto t = a.next();
    EXPECT_EQ(t, b.next());
    EXPECT_GE(t, prev);
    const double gap_ms = std::chrono::duration<double, std::milli>(t - prev).count();
    EXPECT_LE(gap_ms, (i == 0 ? 5 : 2) + 3 + 1e-6);
    if (i > 0 && std::abs(gap_ms - 2) > 1e-3) varied = true;
    prev = t;
  }
  EXPECT_TRUE(varied);
}

TEST(SimRenderTest, ErrorBodyEscapes) {
  const json j = json::parse(error_body(404, "invalid_request_error", "no \"x\"\n here"));
  EXPECT_EQ(j["error"]["message"], "no \"x\"\n here");
  EXPECT_EQ(j["error"]["code"], 404);
}

TEST(SimRenderTest, EventsAreJsonAndShaped) {
  EventRenderer renderer;
  renderer.reset({ApiKind::kChat, "chatcmpl-1", 123, "m\\\"q"});
  std::string out;
  renderer.append_token(out, " word");
  ASSERT_TRUE(out.starts_with("data: "));
  ASSERT_TRUE(out.ends_with("\n\n"));
  const json token = json::parse(out.substr(6));
  EXPECT_EQ(token["model"], "m\"q");
  EXPECT_EQ(token["created"], 123);
  EXPECT_EQ(token["choices"][0]["delta"]["content"], " word");

  renderer.reset({ApiKind::kCompletions, "cmpl-1", 5, "m"});
  out.clear();
  renderer.append_finish(out, FinishReason::kStop);
  const json finish = json::parse(out.substr(6));
  EXPECT_EQ(finish["object"], "text_completion");
  EXPECT_EQ(finish["choices"][0]["finish_reason"], "stop");
  out.clear();
  renderer.append_usage(out, 3, 4);
  EXPECT_EQ(json::parse(out.substr(6))["usage"]["total_tokens"], 7);
}

}  // namespace
}  // namespace tokenbench::sim
