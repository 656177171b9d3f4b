#include "tokenbench/sim/engine_model.h"

#include <algorithm>
#include <cmath>
#include <span>
#include <utility>

namespace tokenbench::sim {

struct EngineModel::Request {
  EngineRequest spec;
  std::int64_t generated = 0;   // output tokens emitted so far
  std::int64_t num_tokens = 0;  // prompt + generated: the tokens whose KV the request needs
  std::int64_t computed = 0;    // tokens whose KV is in the cache
  bool prefilling = false;      // admitted, prompt (or recompute) not yet fully computed
  bool finished = false;
  std::int64_t chunk = 0;  // prefill tokens scheduled in the current step
  bool decoding = false;   // decodes in the current step
  std::int64_t emit = 1;   // tokens its decode emits this step (accepted drafts plus one)
  KvHolding kv;
  ModelNanos first_scheduled = -1;
  ModelNanos first_token = -1;
  ModelNanos last_token = -1;
  std::int64_t cached = 0;  // prompt tokens found in the prefix cache at its first admission
};

namespace {

std::int64_t blocks_for(std::int64_t tokens, std::int64_t block_size) {
  return (tokens + block_size - 1) / block_size;
}

}  // namespace

EngineModel::EngineModel(const EngineParams& params, std::uint64_t seed)
    : params_(params),
      seed_(seed),
      kv_(params.total_blocks(), params.enable_prefix_caching),
      lora_(params.lora_adapters, params.max_loras),
      watermark_blocks_(static_cast<std::int64_t>(
          std::floor(params.watermark * static_cast<double>(params.total_blocks())))) {
  params_.block_size = std::max<std::int64_t>(1, params_.block_size);
  params_.max_num_seqs = std::max<std::int64_t>(1, params_.max_num_seqs);
  params_.max_num_batched_tokens = std::max<std::int64_t>(1, params_.max_num_batched_tokens);
}

EngineModel::~EngineModel() = default;

void EngineModel::add(EngineRequest request) {
  auto r = std::make_unique<Request>();
  r->spec = std::move(request);
  r->spec.prompt_tokens = std::max<std::int64_t>(1, r->spec.prompt_tokens);
  r->spec.output_tokens = std::max<std::int64_t>(1, r->spec.output_tokens);
  r->num_tokens = r->spec.prompt_tokens;
  waiting_.push_back(r.get());
  requests_.emplace(r->spec.id, std::move(r));
}

std::optional<std::uint32_t> EngineModel::abort(std::uint64_t id) {
  const auto it = requests_.find(id);
  if (it == requests_.end()) return std::nullopt;
  Request* r = it->second.get();
  const std::uint32_t tag = r->spec.tag;
  kv_.release(r->kv);
  if (std::erase(running_, r) > 0) lora_.release(r->spec.lora);
  std::erase(waiting_, r);
  requests_.erase(it);
  return tag;
}

double EngineModel::kv_usage() const {
  const std::int64_t total = kv_.total_blocks();
  return total > 0 ? static_cast<double>(kv_.used_blocks()) / static_cast<double>(total) : 0.0;
}

ModelNanos EngineModel::step_duration(std::int64_t prefill_tokens, std::int64_t decode_seqs,
                                      std::int64_t context_tokens) const {
  const double ns = params_.step_overhead_ms * 1e6 +
                    static_cast<double>(prefill_tokens) * params_.prefill_us_per_token * 1e3 +
                    static_cast<double>(decode_seqs) * params_.decode_us_per_seq * 1e3 *
                        static_cast<double>(1 + params_.spec_decode.k) +
                    static_cast<double>(context_tokens) * params_.decode_us_per_kv_token * 1e3;
  return static_cast<ModelNanos>(std::llround(std::max(0.0, ns)));
}

void EngineModel::preempt(Request& r) {
  // Recompute preemption: the KV is dropped and the request goes back to the front of the queue;
  // when admitted again it prefills its prompt and the tokens generated so far.
  kv_.release(r.kv);
  r.computed = 0;
  r.prefilling = false;
  r.chunk = 0;
  r.decoding = false;
  std::erase(running_, &r);
  lora_.release(r.spec.lora);
  waiting_.push_front(&r);
}

bool EngineModel::admit(Request& r, std::int64_t& budget) {
  const std::int64_t bs = params_.block_size;
  const std::span<const std::uint64_t> all_hashes(r.spec.block_hashes);
  // At least one token is always computed, so a fully cached prompt still runs one prefill token.
  const std::int64_t max_hit_blocks =
      std::min<std::int64_t>(static_cast<std::int64_t>(all_hashes.size()), (r.num_tokens - 1) / bs);
  const auto hashes = all_hashes.first(static_cast<std::size_t>(max_hit_blocks));
  const std::int64_t hits = kv_.count_hits(hashes);
  const std::int64_t needed = blocks_for(r.num_tokens, bs) - hits;
  const std::int64_t available = kv_.free_blocks() - kv_.count_evictable_hits(hashes, hits);
  // The watermark keeps headroom for the decodes of running requests; an empty batch takes the
  // head of the queue whenever it fits at all.
  const std::int64_t reserve = running_.empty() ? 0 : watermark_blocks_;
  if (needed > available - reserve) return false;
  if (params_.enable_prefix_caching) {
    outcome_.cache_queried_tokens += r.spec.prompt_tokens;
    outcome_.cache_hit_tokens += hits * bs;
  }
  if (r.first_scheduled < 0) r.cached = std::min(hits * bs, r.spec.prompt_tokens);
  kv_.take_hits(hashes, hits, r.kv);
  kv_.allocate(needed, r.kv);
  r.computed = hits * bs;
  if (r.spec.kv_transferred && r.first_scheduled < 0) r.computed = r.num_tokens - 1;
  r.prefilling = true;
  if (r.first_scheduled < 0) r.first_scheduled = outcome_.start;
  r.chunk = std::min(r.num_tokens - r.computed, budget);
  budget -= r.chunk;
  running_.push_back(&r);
  if (lora_.acquire(r.spec.lora)) ++outcome_.lora_loads;
  return true;
}

// Admits the waiting queue in order while the batch has room and the step has budget. The first
// request whose blocks do not fit blocks the rest (FCFS); one whose LoRA adapter cannot be loaded
// yet (every loaded adapter in use) waits and lets the next pass, as vLLM's scheduler skips it.
void EngineModel::admit_waiting(std::int64_t& budget) {
  std::size_t i = 0;
  while (i < waiting_.size() && budget > 0 &&
         static_cast<std::int64_t>(running_.size()) < params_.max_num_seqs) {
    Request* r = waiting_[i];
    if (!lora_.can_admit(r->spec.lora)) {
      ++i;
      continue;
    }
    if (!admit(*r, budget)) break;
    waiting_.erase(waiting_.begin() + static_cast<std::ptrdiff_t>(i));
  }
}

void EngineModel::waiting_loras(std::vector<char>& out) const {
  out.assign(static_cast<std::size_t>(lora_.adapters()), 0);
  for (const Request* r : waiting_) {
    if (r->spec.lora >= 0 && static_cast<std::size_t>(r->spec.lora) < out.size()) {
      out[static_cast<std::size_t>(r->spec.lora)] = 1;
    }
  }
}

void EngineModel::finish_prefill(Request& r) {
  r.prefilling = false;
  const auto prompt_blocks =
      std::min<std::size_t>(r.spec.block_hashes.size(),
                            static_cast<std::size_t>(r.spec.prompt_tokens / params_.block_size));
  kv_.register_blocks(std::span<const std::uint64_t>(r.spec.block_hashes).first(prompt_blocks),
                      r.kv);
}

const StepOutcome& EngineModel::step(ModelNanos start) {
  StepOutcome& o = outcome_;
  o.start = start;
  o.end = start;
  o.prefill_tokens = o.decode_seqs = o.context_tokens = o.preempted = 0;
  o.new_prompt_tokens = o.cache_queried_tokens = o.cache_hit_tokens = 0;
  o.spec.clear();
  o.lora_loads = 0;
  o.emitted.clear();
  o.finished.clear();
  std::int64_t budget = params_.max_num_batched_tokens;

  // 1. One decode (one token, or K drafts) for every running sequence past its prefill, oldest
  //    first. A decode that needs a block when none is free preempts the newest running request
  //    (maybe itself).
  for (std::size_t i = 0; i < running_.size() && budget > 0; ++i) {
    Request* r = running_[i];
    if (r->prefilling) continue;
    if (!schedule_decode(*r)) break;
    --budget;
    ++o.decode_seqs;
    o.context_tokens += r->num_tokens;
  }
  // 2. Chunked prefill: requests already running continue their prompts first...
  for (Request* r : running_) {
    if (!r->prefilling) continue;
    r->chunk = std::min(r->num_tokens - r->computed, budget);
    budget -= r->chunk;
  }
  // 3. ...then the waiting queue is admitted in order while the prompt fits in the cache, the
  //    batch has room and the step has budget. The first request that does not fit blocks the rest.
  admit_waiting(budget);
  for (const Request* r : running_) o.prefill_tokens += r->prefilling ? r->chunk : 0;
  if (o.prefill_tokens == 0 && o.decode_seqs == 0) return o;  // nothing could run
  o.end = start + step_duration(o.prefill_tokens, o.decode_seqs, o.context_tokens) +
          static_cast<ModelNanos>(std::llround(static_cast<double>(o.lora_loads) *
                                               std::max(0.0, params_.lora_load_ms) * 1e6));

  // 4. At the end of the step every decode, and every prefill that completed, samples a token.
  for (Request* r : running_) {
    std::int64_t sampled = 0;
    if (r->decoding) {
      r->decoding = false;
      sampled = r->emit;
      r->computed += sampled;  // its last token and the accepted drafts
    } else if (r->prefilling && r->chunk > 0) {
      r->computed += r->chunk;
      r->chunk = 0;
      if (r->computed == r->num_tokens) {
        finish_prefill(*r);
        sampled = 1;
      }
    }
    if (sampled == 0) continue;
    r->generated += sampled;
    r->num_tokens += sampled;
    Emission e{r->spec.id,         r->spec.tag, static_cast<std::int32_t>(sampled),
               r->first_token < 0, false,       r->last_token < 0 ? 0 : o.end - r->last_token};
    if (e.first) {
      if (params_.enable_prefix_caching) e.cached_tokens = r->cached;
      r->first_token = o.end;
      if (!r->spec.kv_transferred) o.new_prompt_tokens += r->spec.prompt_tokens;
    }
    r->last_token = o.end;
    if (r->generated >= r->spec.output_tokens) {
      e.finished = true;
      r->finished = true;
      o.finished.push_back({r->spec.id, r->spec.arrival, r->first_scheduled, r->first_token, o.end,
                            r->spec.prompt_tokens, r->generated, r->spec.tag});
    }
    o.emitted.push_back(e);
  }
  if (!o.finished.empty()) {
    for (const FinishedRequest& f : o.finished) drop(f.id);
  }
  return o;
}

// Schedules `r`'s decode in this step: with speculative decoding it drafts K tokens, of which the
// accepted ones plus the bonus token are emitted (capped by what it has left to generate). The
// blocks for the tokens it keeps are allocated, preempting the newest running requests while none
// are free. False when `r` itself was preempted (the step's decodes stop there).
bool EngineModel::schedule_decode(Request& r) {
  const SpecDecodeConfig& sd = params_.spec_decode;
  std::int64_t accepted = 0;
  r.emit = 1;
  if (sd.enabled()) {
    accepted = draw_accepted_drafts(seed_, r.spec.id, r.generated, sd.k, sd.accept);
    r.emit = std::min(accepted + 1, r.spec.output_tokens - r.generated);
  }
  const std::int64_t need =
      blocks_for(r.num_tokens + r.emit - 1, params_.block_size) - r.kv.blocks();
  while (need > kv_.free_blocks()) {
    Request* victim = running_.back();
    preempt(*victim);
    ++outcome_.preempted;
    if (victim == &r) return false;
  }
  if (need > 0) kv_.allocate(need, r.kv);
  r.decoding = true;
  if (sd.enabled()) outcome_.spec.record(sd.k, accepted);
  return true;
}

void EngineModel::drop(std::uint64_t id) {
  const auto it = requests_.find(id);
  Request* r = it->second.get();
  kv_.release(r->kv);
  std::erase(running_, r);
  lora_.release(r->spec.lora);
  requests_.erase(it);
}

}  // namespace tokenbench::sim
