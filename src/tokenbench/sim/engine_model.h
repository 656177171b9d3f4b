#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <unordered_map>
#include <vector>

#include "tokenbench/sim/engine_params.h"
#include "tokenbench/sim/kv_cache.h"
#include "tokenbench/sim/lora_slots.h"
#include "tokenbench/sim/spec_decode.h"

namespace tokenbench::sim {

/// Model time in nanoseconds (the engine's own clock; the runner maps it to real time).
using ModelNanos = std::int64_t;

/// A request as the engine sees it. Plain data, moved into the engine by add().
struct EngineRequest {
  std::uint64_t id = 0;                     ///< unique among the requests in the engine
  std::uint32_t tag = 0;                    ///< opaque to the engine; handed back in emissions
  std::int64_t prompt_tokens = 0;           ///< at least 1 is assumed (0 counts as 1)
  std::int64_t output_tokens = 1;           ///< generated before the request finishes (>= 1)
  ModelNanos arrival = 0;                   ///< when it reached the engine
  std::vector<std::uint64_t> block_hashes;  ///< chained hashes of its full prompt blocks
  std::int32_t lora = -1;                   ///< its LoRA adapter; -1: the base model
  /// Its prompt's KV arrives from a prefill worker (--role decode): at its first admission the
  /// blocks are allocated and only the last prompt token is computed (as vLLM's decode side
  /// does); its prompt tokens are not counted as prefilled here.
  bool kv_transferred = false;
};

/// The tokens one request produced at the end of a step.
struct Emission {
  std::uint64_t id = 0;
  std::uint32_t tag = 0;
  std::int32_t tokens = 0;  ///< 1, or with speculative decoding the accepted drafts plus one
  bool first = false;       ///< this is the request's first output token
  bool finished = false;    ///< that was its last token; the engine has dropped it
  ModelNanos gap = 0;       ///< since its previous token (0 for the first)
  /// The first token's emission: the prompt tokens found in the prefix cache when the request
  /// was admitted (-1 without prefix caching, and on every later emission).
  std::int64_t cached_tokens = -1;
};

/// Lifetime stamps of a finished request, for the latency histograms.
struct FinishedRequest {
  std::uint64_t id = 0;
  ModelNanos arrival = 0;
  ModelNanos first_scheduled = 0;  ///< first admitted to the running batch
  ModelNanos first_token = 0;
  ModelNanos finished = 0;
  std::int64_t prompt_tokens = 0;
  std::int64_t output_tokens = 0;
  std::uint32_t tag = 0;  ///< the request's tag
};

/// What one step did. Reused from step to step (vectors keep their capacity).
struct StepOutcome {
  ModelNanos start = 0;
  ModelNanos end = 0;                     ///< tokens are emitted at this time
  std::int64_t prefill_tokens = 0;        ///< prompt (or recomputed) tokens computed
  std::int64_t decode_seqs = 0;           ///< sequences that decoded (one token, or a draft)
  std::int64_t context_tokens = 0;        ///< tokens the decodes attended to
  std::int64_t preempted = 0;             ///< requests preempted while scheduling this step
  std::int64_t new_prompt_tokens = 0;     ///< prompt tokens of requests emitting their first token
  std::int64_t cache_queried_tokens = 0;  ///< prompt tokens looked up in the prefix cache
  std::int64_t cache_hit_tokens = 0;      ///< of which found cached
  SpecDecodeCounts spec;                  ///< speculative decoding's drafts and acceptances
  std::int64_t lora_loads = 0;            ///< LoRA adapters loaded for admissions
  std::vector<Emission> emitted;
  std::vector<FinishedRequest> finished;
};

/// A pure model of a continuous-batching inference engine (vLLM's scheduler, simplified): a FCFS
/// waiting queue, a running batch of at most max_num_seqs, a block-based KV cache with optional
/// prefix caching, chunked prefill under a per-step token budget, and recompute preemption of the
/// newest running request when a decode finds no free block, and LoRA adapters loaded on demand
/// (at most max_loras at once; a request whose adapter cannot be loaded yet lets those behind it
/// pass, as vLLM's scheduler does). With speculative decoding each
/// decoding sequence drafts K tokens per step and emits the accepted ones plus one, drawn from
/// `seed`. No threads and no clock: the caller decides when each step starts and is told when it
/// ends.
///
/// Not thread-safe; owned by one thread (the EngineRunner's, or a test's).
class EngineModel {
 public:
  /// `seed` drives the draws of speculative decoding (unused without it).
  explicit EngineModel(const EngineParams& params, std::uint64_t seed = 0);
  ~EngineModel();
  EngineModel(const EngineModel&) = delete;
  EngineModel& operator=(const EngineModel&) = delete;

  /// Puts a request at the back of the waiting queue. Its id must not be in the engine.
  void add(EngineRequest request);
  /// Drops a request wherever it is, freeing its KV blocks. Returns its tag, or nothing when it
  /// is unknown (already finished or never added).
  std::optional<std::uint32_t> abort(std::uint64_t id);

  /// True when a step would do something (a request is running or waiting).
  bool has_work() const { return !running_.empty() || !waiting_.empty(); }

  /// Schedules and runs one step starting at `start`: decodes, chunked prefills and admissions,
  /// preempting where the cache is full. Returns what it did; the reference stays valid until the
  /// next call. Requests that finish are dropped from the engine before it returns.
  const StepOutcome& step(ModelNanos start);

  /// The duration of a step with this work (the formula in EngineParams).
  ModelNanos step_duration(std::int64_t prefill_tokens, std::int64_t decode_seqs,
                           std::int64_t context_tokens) const;

  std::int64_t num_running() const { return static_cast<std::int64_t>(running_.size()); }
  std::int64_t num_waiting() const { return static_cast<std::int64_t>(waiting_.size()); }
  /// Fraction of KV blocks referenced by running requests, in [0, 1].
  double kv_usage() const;
  const KvCache& kv_cache() const { return kv_; }
  /// Forgets the cached blocks no request holds (KvCache::reset_prefix_cache).
  std::int64_t reset_prefix_cache() { return kv_.reset_prefix_cache(); }
  const EngineParams& params() const { return params_; }
  /// The LoRA adapters loaded and in use.
  const LoraSlots& lora() const { return lora_; }
  /// Flags, per LoRA adapter, those that waiting requests ask for.
  void waiting_loras(std::vector<char>& out) const;

 private:
  struct Request;
  bool admit(Request& r, std::int64_t& budget);
  void preempt(Request& r);
  void finish_prefill(Request& r);
  void drop(std::uint64_t id);
  bool schedule_decode(Request& r);
  void admit_waiting(std::int64_t& budget);

  EngineParams params_;
  std::uint64_t seed_;
  KvCache kv_;
  LoraSlots lora_;
  std::int64_t watermark_blocks_;
  std::unordered_map<std::uint64_t, std::unique_ptr<Request>> requests_;
  std::deque<Request*> waiting_;   ///< FCFS; preempted requests go back to the front
  std::vector<Request*> running_;  ///< in admission order; the newest is preempted first
  std::vector<Request*> scratch_;
  StepOutcome outcome_;
};

}  // namespace tokenbench::sim
