// Speculative decoding (--spec-decode): the acceptance statistics of the engine model, the step
// cost, the flag's parsing, and over HTTP the multi-token deltas and vLLM's spec_decode counters.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "prometheus_text.h"
#include "sim_test_client.h"
#include "tokenbench/sim/engine_model.h"
#include "tokenbench/sim/engine_params.h"
#include "tokenbench/sim/spec_decode.h"

namespace tokenbench::sim {
namespace {

using nlohmann::json;
using testing::HttpReply;
using testing::TestConnection;

EngineParams spec_params(std::int64_t k, double p) {
  EngineParams params;
  params.max_num_seqs = 16;
  params.max_num_batched_tokens = 4096;
  params.kv_cache_tokens = 1 << 20;
  params.block_size = 16;
  params.step_overhead_ms = 1.0;
  params.prefill_us_per_token = 10.0;
  params.decode_us_per_seq = 100.0;
  params.decode_us_per_kv_token = 0.0;
  params.watermark = 0;
  params.spec_decode = {.k = k, .accept = p};
  return params;
}

EngineRequest request(std::uint64_t id, std::int64_t prompt, std::int64_t output) {
  EngineRequest r;
  r.id = id;
  r.tag = static_cast<std::uint32_t>(id);
  r.prompt_tokens = prompt;
  r.output_tokens = output;
  return r;
}

TEST(SimSpecDecodeTest, AcceptanceLengthMatchesTheTruncatedGeometric) {
  constexpr std::int64_t k = 3;
  constexpr double p = 0.7;
  EngineModel engine(spec_params(k, p), /*seed=*/11);
  for (std::uint64_t id = 0; id < 16; ++id) engine.add(request(id, 32, 100000));
  SpecDecodeCounts counts;
  std::vector<std::int64_t> emitted(16, 0);
  ModelNanos t = 0;
  for (int step = 0; step < 2500 && engine.has_work(); ++step) {
    const StepOutcome& o = engine.step(t);
    counts.merge(o.spec);
    for (const Emission& e : o.emitted) {
      emitted[e.id] += e.tokens;
      EXPECT_GE(e.tokens, 1);
      EXPECT_LE(e.tokens, k + 1);
    }
    t = o.end;
  }
  ASSERT_GT(counts.drafts, 30000);
  EXPECT_EQ(counts.draft_tokens, k * counts.drafts);
  // Accepted drafts per draft, A: P(A = a) = p^a (1 - p) for a < K, P(A = K) = p^K.
  double mean = 0;
  double second = 0;
  for (std::int64_t a = 0; a <= k; ++a) {
    const double pa = a < k ? std::pow(p, a) * (1 - p) : std::pow(p, k);
    mean += a * pa;
    second += a * a * pa;
  }
  const double n = static_cast<double>(counts.drafts);
  const double expected_length = (1 - std::pow(p, k + 1)) / (1 - p);  // 2.533
  EXPECT_NEAR(1 + mean, expected_length, 1e-12);
  const double se = std::sqrt((second - mean * mean) / n);
  const double length = 1 + static_cast<double>(counts.accepted) / n;
  EXPECT_NEAR(length, expected_length, 4 * se) << "drafts " << counts.drafts;
  // Position i is accepted when the first i+1 draws all pass: rate p^(i+1).
  ASSERT_EQ(counts.accepted_per_pos.size(), static_cast<std::size_t>(k));
  std::int64_t sum = 0;
  for (std::int64_t i = 0; i < k; ++i) {
    const double want = std::pow(p, i + 1);
    const double rate = static_cast<double>(counts.accepted_per_pos[i]) / n;
    EXPECT_NEAR(rate, want, 4 * std::sqrt(want * (1 - want) / n)) << "position " << i;
    sum += counts.accepted_per_pos[i];
  }
  EXPECT_EQ(sum, counts.accepted);
  // Every sequence emitted its first token (prefill) plus accepted + 1 per draft.
  std::int64_t total = 0;
  for (const std::int64_t e : emitted) total += e;
  EXPECT_EQ(total, 16 + counts.drafts + counts.accepted);
}

TEST(SimSpecDecodeTest, DecodeCostGrowsWithKAndOutputIsCapped) {
  EngineModel engine(spec_params(4, 0.9), /*seed=*/3);
  EXPECT_EQ(engine.step_duration(0, 2, 0), 1'000'000 + 2 * 100'000 * 5);
  engine.add(request(0, 10, 7));
  const StepOutcome& s1 = engine.step(0);  // prefill and the first token
  ASSERT_EQ(s1.emitted.size(), 1u);
  EXPECT_EQ(s1.emitted[0].tokens, 1);
  EXPECT_TRUE(s1.spec.empty());
  std::int64_t generated = 1;
  ModelNanos t = s1.end;
  while (engine.has_work()) {
    const StepOutcome& o = engine.step(t);
    EXPECT_EQ(o.end - t, 1'000'000 + 100'000 * 5);
    ASSERT_EQ(o.spec.drafts, 1);
    ASSERT_EQ(o.emitted.size(), 1u);
    generated += o.emitted[0].tokens;
    EXPECT_LE(o.emitted[0].tokens, 1 + o.spec.accepted);
    if (o.emitted[0].finished) {
      EXPECT_EQ(generated, 7);
    }
    t = o.end;
  }
  EXPECT_EQ(generated, 7);  // never more than the request asked for
}

TEST(SimSpecDecodeTest, DrawsRepeatForTheSameSeed) {
  for (std::int64_t pos = 0; pos < 50; ++pos) {
    EXPECT_EQ(draw_accepted_drafts(1, 2, pos, 5, 0.6), draw_accepted_drafts(1, 2, pos, 5, 0.6));
  }
  EXPECT_EQ(draw_accepted_drafts(1, 2, 3, 5, 0.0), 0);
}

TEST(SimSpecDecodeTest, ParsesTheFlag) {
  const SpecDecodeConfig c = parse_spec_decode("k=3,accept=0.7");
  EXPECT_EQ(c.k, 3);
  EXPECT_DOUBLE_EQ(c.accept, 0.7);
  EXPECT_EQ(parse_spec_decode("accept=0,k=16").k, 16);
  for (const char* bad :
       {"k=0,accept=0.5", "k=17,accept=0.5", "k=2.5,accept=0.5", "k=3,accept=1", "k=3,accept=-0.1",
        "k=3", "accept=0.5", "k=3,accept=x", "k=3,p=0.5", "", "k3,accept=0.5"}) {
    EXPECT_THROW(parse_spec_decode(bad), std::invalid_argument) << bad;
  }
}

SimConfig spec_server_config(std::int64_t k, double p) {
  SimConfig c;
  c.port = 0;
  c.seed = 9;
  c.mode = TimingMode::kEngine;
  c.engine = *find_engine_preset("zero");
  c.engine.step_overhead_ms = 2;  // a post per step: one delta per step
  c.engine.spec_decode = {.k = k, .accept = p};
  return c;
}

std::int64_t word_count(const std::string& text) {
  std::istringstream in(text);
  std::int64_t n = 0;
  for (std::string w; in >> w;) ++n;
  return n;
}

TEST(SimSpecDecodeServerTest, StreamedDeltasCarrySeveralTokensAndCountersAgree) {
  constexpr std::int64_t k = 4;
  auto server = testing::start_server(spec_server_config(k, 0.8));
  TestConnection conn(server->port());
  conn.send_request("POST", "/v1/chat/completions",
                    R"({"messages":[{"role":"user","content":"one two three"}],"max_tokens":60,)"
                    R"("ignore_eos":true,"stream":true,"stream_options":{"include_usage":true}})");
  const HttpReply reply = conn.read_reply();
  ASSERT_EQ(reply.status, 200);
  ASSERT_TRUE(reply.complete);
  std::string text;
  std::int64_t deltas = 0;
  std::int64_t widest = 0;
  for (const auto& ev : reply.events) {
    if (ev.data == "[DONE]") continue;
    const json j = json::parse(ev.data);
    if (j["choices"].empty()) {
      EXPECT_EQ(j["usage"]["completion_tokens"], 60);
      EXPECT_EQ(j["usage"]["prompt_tokens"], 3);
      continue;
    }
    const auto& delta = j["choices"][0]["delta"];
    if (!delta.contains("content") || delta["content"].get<std::string>().empty()) continue;
    const std::string piece = delta["content"];
    ++deltas;
    widest = std::max(widest, word_count(piece));
    text += piece;
  }
  EXPECT_EQ(word_count(text), 60);
  EXPECT_LT(deltas, 60);  // several tokens per delta (mean about 3.4 at P = 0.8, K = 4)
  EXPECT_GE(widest, 2);

  conn.send_request("GET", "/metrics");
  const auto prom = testing::parse_prom_text(conn.read_reply().body);
  const std::string l = "{model_name=\"sim-model\"";
  const double drafts = prom.at("vllm:spec_decode_num_drafts_total" + l + "}");
  const double draft_tokens = prom.at("vllm:spec_decode_num_draft_tokens_total" + l + "}");
  const double accepted = prom.at("vllm:spec_decode_num_accepted_tokens_total" + l + "}");
  EXPECT_EQ(prom.types.at("vllm:spec_decode_num_drafts_total"), "counter");
  EXPECT_EQ(prom.types.at("vllm:spec_decode_num_accepted_tokens_per_pos_total"), "counter");
  EXPECT_GT(drafts, 0);
  EXPECT_EQ(draft_tokens, k * drafts);
  double per_pos = 0;
  for (int i = 0; i < k; ++i) {
    per_pos += prom.at("vllm:spec_decode_num_accepted_tokens_per_pos_total" + l + ",position=\"" +
                       std::to_string(i) + "\"}");
  }
  EXPECT_EQ(per_pos, accepted);
  // One token from the prefill, then per draft the accepted ones plus one, the last capped.
  EXPECT_GE(1 + drafts + accepted, 60);
  EXPECT_LE(1 + drafts + accepted, 60 + k);
  EXPECT_EQ(prom.at("vllm:generation_tokens_total" + l + "}"), 60);
}

TEST(SimSpecDecodeServerTest, NoSpecDecodeLinesWithoutTheFlag) {
  SimConfig c = spec_server_config(1, 0.5);
  c.engine.spec_decode = {};
  auto server = testing::start_server(c);
  TestConnection conn(server->port());
  conn.send_request("GET", "/metrics");
  const HttpReply reply = conn.read_reply();
  EXPECT_EQ(reply.body.find("spec_decode"), std::string::npos);
}

}  // namespace
}  // namespace tokenbench::sim
