// The engine model alone, driven step by step with a fake clock (model nanoseconds): no threads.

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "tokenbench/sim/engine_model.h"
#include "tokenbench/sim/engine_params.h"
#include "tokenbench/sim/kv_cache.h"

namespace tokenbench::sim {
namespace {

constexpr ModelNanos kMs = 1'000'000;

// Round numbers: 1 ms per step, 10 us per prompt token, 100 us per decoding sequence, 1 us per
// context token; a cache of 64 blocks of 16 tokens; no watermark.
EngineParams test_params() {
  EngineParams p;
  p.max_num_seqs = 8;
  p.max_num_batched_tokens = 512;
  p.kv_cache_tokens = 64 * 16;
  p.block_size = 16;
  p.step_overhead_ms = 1.0;
  p.prefill_us_per_token = 10.0;
  p.decode_us_per_seq = 100.0;
  p.decode_us_per_kv_token = 1.0;
  p.watermark = 0;
  return p;
}

EngineRequest make_request(std::uint64_t id, std::int64_t prompt, std::int64_t output,
                           ModelNanos arrival = 0) {
  EngineRequest r;
  r.id = id;
  r.tag = static_cast<std::uint32_t>(id);
  r.prompt_tokens = prompt;
  r.output_tokens = output;
  r.arrival = arrival;
  return r;
}

// Runs steps back to back from `t` until the engine is idle; returns the end time. Records every
// emission per request id.
struct EngineRun {
  std::vector<std::vector<ModelNanos>> token_times;  // per id
  std::int64_t preempted = 0;
  ModelNanos end = 0;
};

EngineRun run_to_idle(EngineModel& engine, std::size_t ids, ModelNanos t = 0) {
  EngineRun run;
  run.token_times.resize(ids);
  for (int guard = 0; engine.has_work() && guard < 100000; ++guard) {
    const StepOutcome& o = engine.step(t);
    run.preempted += o.preempted;
    for (const Emission& e : o.emitted) run.token_times[e.id].push_back(o.end);
    t = o.end;
  }
  run.end = t;
  return run;
}

TEST(SimEngineTest, StepTimeFollowsTheFormula) {
  EngineModel engine(test_params());
  EXPECT_EQ(engine.step_duration(100, 3, 1000), kMs + 100 * 10'000 + 3 * 100'000 + 1000 * 1'000);
  engine.add(make_request(0, 100, 3));
  // Step 1: the whole prompt (100 tokens) and its first token.
  const StepOutcome& s1 = engine.step(0);
  EXPECT_EQ(s1.prefill_tokens, 100);
  EXPECT_EQ(s1.decode_seqs, 0);
  EXPECT_EQ(s1.end, kMs + 100 * 10'000);
  ASSERT_EQ(s1.emitted.size(), 1u);
  EXPECT_TRUE(s1.emitted[0].first);
  EXPECT_EQ(s1.new_prompt_tokens, 100);
  // Step 2: one decode attending to the prompt and the first token (101 tokens of context).
  const ModelNanos t1 = s1.end;
  const StepOutcome& s2 = engine.step(t1);
  EXPECT_EQ(s2.prefill_tokens, 0);
  EXPECT_EQ(s2.decode_seqs, 1);
  EXPECT_EQ(s2.context_tokens, 101);
  EXPECT_EQ(s2.end - t1, kMs + 100'000 + 101 * 1'000);
  EXPECT_EQ(s2.emitted[0].gap, s2.end - t1);
  // Step 3: the last token; the request leaves the engine with its stamps.
  const ModelNanos t2 = s2.end;
  const StepOutcome& s3 = engine.step(t2);
  EXPECT_EQ(s3.context_tokens, 102);
  ASSERT_EQ(s3.finished.size(), 1u);
  EXPECT_TRUE(s3.emitted[0].finished);
  EXPECT_EQ(s3.finished[0].output_tokens, 3);
  EXPECT_EQ(s3.finished[0].first_scheduled, 0);
  EXPECT_EQ(s3.finished[0].first_token, t1);
  EXPECT_EQ(s3.finished[0].finished, s3.end);
  EXPECT_FALSE(engine.has_work());
  EXPECT_EQ(engine.kv_cache().used_blocks(), 0);
}

TEST(SimEngineTest, ChunkedPrefillRespectsTheTokenBudget) {
  EngineParams p = test_params();
  p.max_num_batched_tokens = 64;
  EngineModel engine(p);
  engine.add(make_request(0, 20, 10));
  const StepOutcome& first = engine.step(0);
  EXPECT_EQ(first.prefill_tokens, 20);
  engine.add(make_request(1, 150, 2));
  // Request 0 decodes (1 token of budget); request 1 gets the 63 left, then 63, then 24.
  std::vector<std::int64_t> prefill;
  ModelNanos t = first.end;
  for (int i = 0; i < 3; ++i) {
    const StepOutcome& o = engine.step(t);
    EXPECT_EQ(o.decode_seqs, 1);
    EXPECT_LE(o.prefill_tokens + o.decode_seqs, 64);
    prefill.push_back(o.prefill_tokens);
    // Request 1 emits its first token only when its whole prompt is computed.
    bool emitted_1 = false;
    for (const Emission& e : o.emitted) emitted_1 = emitted_1 || e.id == 1;
    EXPECT_EQ(emitted_1, i == 2);
    t = o.end;
  }
  EXPECT_EQ(prefill, (std::vector<std::int64_t>{63, 63, 24}));
}

TEST(SimEngineTest, AdmissionWaitsUntilThePromptFits) {
  EngineParams p = test_params();
  p.kv_cache_tokens = 4 * 16;  // 4 blocks
  EngineModel engine(p);
  engine.add(make_request(0, 40, 8));  // 3 blocks, growing to 3 (48 tokens)
  engine.add(make_request(1, 20, 2));  // 2 blocks: does not fit beside request 0
  const StepOutcome& o = engine.step(0);
  EXPECT_EQ(o.prefill_tokens, 40);
  EXPECT_EQ(engine.num_running(), 1);
  EXPECT_EQ(engine.num_waiting(), 1);
  EXPECT_DOUBLE_EQ(engine.kv_usage(), 0.75);
  const EngineRun run = run_to_idle(engine, 2, o.end);
  EXPECT_EQ(run.preempted, 0);
  ASSERT_EQ(run.token_times[0].size(), 7u);  // 8 with the one emitted by the first step
  ASSERT_EQ(run.token_times[1].size(), 2u);
  // Request 1 starts only once request 0 has finished and freed its blocks.
  EXPECT_GT(run.token_times[1].front(), run.token_times[0].back());
}

TEST(SimEngineTest, MaxNumSeqsBoundsTheBatch) {
  EngineParams p = test_params();
  p.max_num_seqs = 2;
  EngineModel engine(p);
  for (std::uint64_t id = 0; id < 3; ++id) engine.add(make_request(id, 16, 4));
  const StepOutcome& o = engine.step(0);
  EXPECT_EQ(o.prefill_tokens, 32);
  EXPECT_EQ(engine.num_running(), 2);
  EXPECT_EQ(engine.num_waiting(), 1);
}

TEST(SimEngineTest, DecodeOutOfBlocksPreemptsTheNewestAndRecomputes) {
  EngineParams p = test_params();
  p.kv_cache_tokens = 4 * 16;  // 4 blocks; two requests growing to 48 tokens need 6
  EngineModel engine(p);
  engine.add(make_request(0, 16, 32));
  engine.add(make_request(1, 16, 32));
  const EngineRun run = run_to_idle(engine, 2);
  EXPECT_GT(run.preempted, 0);
  // Both finish with every token; the oldest never stalls for a recompute, the newest does.
  ASSERT_EQ(run.token_times[0].size(), 32u);
  ASSERT_EQ(run.token_times[1].size(), 32u);
  EXPECT_LT(run.token_times[0].back(), run.token_times[1].back());
  ModelNanos longest_gap_1 = 0;
  for (std::size_t i = 1; i < run.token_times[1].size(); ++i) {
    longest_gap_1 = std::max(longest_gap_1, run.token_times[1][i] - run.token_times[1][i - 1]);
  }
  EXPECT_GT(longest_gap_1, 10 * kMs);  // it waited for request 0 to finish
  EXPECT_EQ(engine.kv_cache().used_blocks(), 0);
}

TEST(SimEngineTest, PreemptedRequestRecomputesPromptAndGeneratedTokens) {
  EngineParams p = test_params();
  p.kv_cache_tokens = 3 * 16;
  EngineModel engine(p);
  engine.add(make_request(0, 16, 20));  // grows to 36 tokens: 3 blocks
  engine.add(make_request(1, 8, 20));   // 1 block, then 2
  std::int64_t recomputed = -1;
  ModelNanos t = 0;
  bool preempted = false;
  while (engine.has_work()) {
    const StepOutcome& o = engine.step(t);
    if (o.preempted > 0) preempted = true;
    // After the preemption, request 1's next prefill covers its prompt and generated tokens.
    if (preempted && recomputed < 0 && o.prefill_tokens > 0) recomputed = o.prefill_tokens;
    t = o.end;
  }
  EXPECT_TRUE(preempted);
  EXPECT_GT(recomputed, 8);
}

TEST(SimEngineTest, PrefixCacheHitSkipsPrefill) {
  EngineParams p = test_params();
  p.enable_prefix_caching = true;
  const std::vector<std::uint64_t> hashes{11, 22, 33, 44};  // 4 full blocks of 16
  EngineModel engine(p);
  EngineRequest a = make_request(0, 64, 2);
  a.block_hashes = hashes;
  engine.add(a);
  EngineRun run = run_to_idle(engine, 1);
  EXPECT_EQ(engine.kv_cache().evictable_blocks(), 4);  // cached, unreferenced
  EngineRequest b = make_request(1, 70, 2);
  b.block_hashes = hashes;
  engine.add(b);
  const StepOutcome& o = engine.step(run.end);
  EXPECT_EQ(o.cache_hit_tokens, 64);
  EXPECT_EQ(o.cache_queried_tokens, 70);
  EXPECT_EQ(o.prefill_tokens, 70 - 64);
  // A prompt that is all cached still computes its last token.
  run = run_to_idle(engine, 2, o.end);
  EngineRequest c = make_request(2, 64, 1);
  c.block_hashes = hashes;
  engine.add(c);
  EXPECT_EQ(engine.step(run.end).prefill_tokens, 16);

  EngineParams off = test_params();
  EngineModel cold(off);
  EngineRequest d = make_request(3, 70, 1);
  d.block_hashes = hashes;
  cold.add(d);
  EXPECT_EQ(cold.step(0).prefill_tokens, 70);
}

TEST(SimEngineTest, AbortFreesBlocksWherever) {
  EngineParams p = test_params();
  p.max_num_seqs = 1;
  EngineModel engine(p);
  engine.add(make_request(0, 100, 50));
  engine.add(make_request(1, 100, 50));
  engine.step(0);
  EXPECT_GT(engine.kv_cache().used_blocks(), 0);
  EXPECT_EQ(engine.abort(1), std::optional<std::uint32_t>(1));  // waiting
  EXPECT_EQ(engine.abort(0), std::optional<std::uint32_t>(0));  // running
  EXPECT_FALSE(engine.abort(0).has_value());
  EXPECT_EQ(engine.kv_cache().used_blocks(), 0);
  EXPECT_FALSE(engine.has_work());
}

TEST(SimKvCacheTest, EvictsLeastRecentlyFreedWhenFull) {
  KvCache kv(4, true);
  KvHolding a;
  kv.allocate(2, a);
  const std::vector<std::uint64_t> ha{1, 2};
  kv.register_blocks(ha, a);
  EXPECT_EQ(a.shared.size(), 2u);
  kv.release(a);
  EXPECT_EQ(kv.used_blocks(), 0);
  EXPECT_EQ(kv.evictable_blocks(), 2);
  EXPECT_EQ(kv.count_hits(ha), 2);
  KvHolding b;
  kv.allocate(3, b);  // 2 empty blocks, then one cached block is evicted (the tail, 2)
  EXPECT_EQ(kv.evictable_blocks(), 1);
  EXPECT_EQ(kv.count_hits(ha), 1);
  EXPECT_EQ(kv.free_blocks(), 1);
}

// The calibrated preset, closed loop without HTTP: request throughput rises to a peak and falls
// once the KV cache thrashes; TTFT grows with concurrency. (The e2e sweep checks the same through
// the real binary.)
TEST(SimEngineTest, PresetSweepRisesThenFalls) {
  const EngineParams p = *find_engine_preset("llama3.1-8b-a100");
  std::vector<double> throughput;
  std::vector<ModelNanos> worst_ttft;
  for (const int concurrency : {1, 32, 64}) {
    EngineModel engine(p);
    const int total = concurrency * 8;
    int sent = 0;
    ModelNanos worst = 0;
    for (; sent < concurrency; ++sent) engine.add(make_request(sent, 512, 256));
    ModelNanos t = 0;
    while (engine.has_work()) {
      const StepOutcome& o = engine.step(t);
      t = o.end;
      for (const FinishedRequest& f : o.finished) {
        worst = std::max(worst, f.first_token - f.arrival);
        if (sent < total) engine.add(make_request(sent++, 512, 256, t));
      }
    }
    throughput.push_back(total / (static_cast<double>(t) / 1e9));
    worst_ttft.push_back(worst);
  }
  EXPECT_NEAR(throughput[0], 1.2, 0.1);
  EXPECT_GT(throughput[1], 10 * throughput[0]);
  EXPECT_LT(throughput[2], throughput[1]);
  EXPECT_GT(worst_ttft[2], 4 * worst_ttft[1]);
}

}  // namespace
}  // namespace tokenbench::sim
