#include "tokenbench/sim/engine_runner.h"

#include <algorithm>
#include <boost/asio/post.hpp>
#include <chrono>
#include <cmath>
#include <utility>

namespace tokenbench::sim {
namespace {

// When the engine runs behind real time (or costs nothing), up to this many steps are run before
// their tokens are handed to the io loops in one post per loop.
constexpr int kMaxStepsPerFlush = 64;

}  // namespace

EngineRunner::EngineRunner(const EngineParams& params, double time_scale, SimMetrics& metrics,
                           std::uint64_t seed)
    : params_(params),
      seed_(seed),
      time_scale_(time_scale > 0 ? time_scale : 1.0),
      metrics_(metrics),
      model_(std::make_unique<EngineModel>(params, seed)) {}

EngineRunner::~EngineRunner() { stop(); }

void EngineRunner::start(std::vector<boost::asio::io_context*> loops) {
  loops_ = std::move(loops);
  open_.clear();
  for (std::size_t i = 0; i < loops_.size(); ++i) open_.push_back(std::make_unique<TokenBatch>());
  origin_ = core::Clock::now();
  thread_ = std::thread([this] { run(); });
}

void EngineRunner::submit(EngineSubmission submission) {
  std::lock_guard lock(mu_);
  Command c;
  c.id = submission.id;
  c.submission = std::move(submission);
  inbox_.push_back(std::move(c));
  if (idle_) cv_.notify_one();
}

void EngineRunner::cancel(std::uint64_t id) {
  std::lock_guard lock(mu_);
  Command c;
  c.cancel = true;
  c.id = id;
  inbox_.push_back(std::move(c));
  if (idle_) cv_.notify_one();
}

void EngineRunner::reset_prefix_cache() {
  std::lock_guard lock(mu_);
  Command c;
  c.reset = true;
  inbox_.push_back(std::move(c));
  if (idle_) cv_.notify_one();
}

void EngineRunner::stop() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  cv_.notify_one();
  if (thread_.joinable()) thread_.join();
}

void EngineRunner::clear() {
  std::lock_guard lock(mu_);
  inbox_.clear();
  pending_.clear();
  slots_.clear();
  free_slots_.clear();
  open_.clear();
  model_ = std::make_unique<EngineModel>(params_, seed_);
}

ModelNanos EngineRunner::to_model(core::Clock::time_point t) const {
  const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(t - origin_).count();
  return static_cast<ModelNanos>(std::llround(static_cast<double>(ns) * time_scale_));
}

core::Clock::time_point EngineRunner::to_wall(ModelNanos t) const {
  return origin_ + std::chrono::nanoseconds(static_cast<std::int64_t>(
                       std::llround(static_cast<double>(t) / time_scale_)));
}

double EngineRunner::to_seconds(ModelNanos d) const {
  return static_cast<double>(d) / time_scale_ / 1e9;
}

void EngineRunner::apply(std::vector<Command>& commands) {
  for (Command& c : commands) {
    if (c.reset) {
      model_->reset_prefix_cache();
      continue;
    }
    if (c.cancel) {
      if (const auto tag = model_->abort(c.id)) {
        ++delta_.success_abort;
        release(*tag);
        continue;
      }
      const auto it = std::find_if(pending_.begin(), pending_.end(),
                                   [&](const EngineRequest& r) { return r.id == c.id; });
      if (it != pending_.end()) {
        ++delta_.success_abort;
        release(it->tag);
        pending_.erase(it);
      }
      continue;
    }
    EngineSubmission& s = c.submission;
    std::uint32_t tag;
    if (free_slots_.empty()) {
      tag = static_cast<std::uint32_t>(slots_.size());
      slots_.emplace_back();
    } else {
      tag = free_slots_.back();
      free_slots_.pop_back();
    }
    Slot& slot = slots_[tag];
    slot.sink = std::move(s.sink);
    slot.loop = std::min(s.loop, loops_.size() - 1);
    slot.finish = s.finish;
    slot.arrival = std::max<ModelNanos>(0, to_model(s.received));
    slot.batch_pos = -1;
    slot.abort_on_finish = s.abort_on_finish;
    slot.ttft = 0;
    slot.itl.clear();
    EngineRequest r;
    r.id = s.id;
    r.tag = tag;
    r.prompt_tokens = s.prompt_tokens;
    r.output_tokens = s.output_tokens;
    r.arrival = slot.arrival;
    r.block_hashes = std::move(s.block_hashes);
    r.lora = s.lora;
    r.kv_transferred = s.kv_transferred;
    // Keep pending_ in arrival order (io threads may hand over slightly out of order).
    auto pos = pending_.end();
    while (pos != pending_.begin() && std::prev(pos)->arrival > r.arrival) --pos;
    pending_.insert(pos, std::move(r));
  }
  commands.clear();
}

void EngineRunner::add_due(ModelNanos start) {
  while (!pending_.empty() && pending_.front().arrival <= start) {
    model_->add(std::move(pending_.front()));
    pending_.pop_front();
  }
}

void EngineRunner::release(std::uint32_t tag) {
  Slot& slot = slots_[tag];
  slot.batch_pos = -1;
  open_[slot.loop]->released.push_back(std::move(slot.sink));
  slot.sink.reset();
  slot.itl.clear();
  free_slots_.push_back(tag);
}

void EngineRunner::record(const StepOutcome& o) {
  delta_.preemptions += o.preempted;
  delta_.prompt_tokens += o.new_prompt_tokens;
  delta_.cache_queries += o.cache_queried_tokens;
  delta_.cache_hits += o.cache_hit_tokens;
  if (!o.spec.empty()) delta_.spec.merge(o.spec);
  delta_.lora_loads += o.lora_loads;
  for (const Emission& e : o.emitted) {
    Slot& slot = slots_[e.tag];
    delta_.generation_tokens += e.tokens;
    // Kept with the request until it finishes: an aborted request observes no latency.
    if (e.first) {
      slot.ttft = to_seconds(o.end - slot.arrival);
    } else {
      slot.itl.observe(to_seconds(e.gap));
    }
    TokenBatch& batch = *open_[slot.loop];
    if (slot.batch_pos >= 0) {
      TokenEvent& ev = batch.events[static_cast<std::size_t>(slot.batch_pos)];
      ev.tokens += e.tokens;
      ev.finished = ev.finished || e.finished;
      if (e.cached_tokens >= 0) ev.cached = e.cached_tokens;
    } else {
      slot.batch_pos = static_cast<std::int64_t>(batch.events.size());
      batch.events.push_back({slot.sink.get(), e.id, e.tag, e.tokens, e.finished, e.cached_tokens});
    }
  }
  for (const FinishedRequest& f : o.finished) {
    const Slot& slot = slots_[f.tag];
    if (slot.abort_on_finish) continue;
    delta_.ttft.observe(slot.ttft);
    delta_.itl.merge(slot.itl);
    delta_.e2e.observe(to_seconds(f.finished - f.arrival));
    delta_.queue.observe(to_seconds(f.first_scheduled - f.arrival));
    delta_.prefill.observe(to_seconds(f.first_token - f.first_scheduled));
    delta_.decode.observe(to_seconds(f.finished - f.first_token));
    delta_.inference.observe(to_seconds(f.finished - f.first_scheduled));
  }
  for (const Emission& e : o.emitted) {
    if (!e.finished) continue;
    const Slot& slot = slots_[e.tag];
    if (slot.abort_on_finish) {
      ++delta_.success_abort;
    } else {
      (slot.finish == FinishReason::kStop ? delta_.success_stop : delta_.success_length)++;
    }
    release(e.tag);
  }
}

void EngineRunner::flush() {
  if (!delta_.empty()) {
    metrics_.merge(delta_);
    delta_.clear();
  }
  metrics_.set_gauges(model_->num_running(),
                      model_->num_waiting() + static_cast<std::int64_t>(pending_.size()),
                      model_->kv_usage());
  if (model_->lora().enabled()) publish_loras();
  for (std::size_t i = 0; i < open_.size(); ++i) {
    auto& batch = open_[i];
    if (batch->events.empty() && batch->released.empty()) continue;
    for (const TokenEvent& e : batch->events) {
      // A slot released and reused since keeps its own position.
      if (slots_[e.tag].sink.get() == e.sink) slots_[e.tag].batch_pos = -1;
    }
    std::unique_ptr<TokenBatch> next;
    {
      std::lock_guard lock(mu_);
      if (!pool_.empty()) {
        next = std::move(pool_.back());
        pool_.pop_back();
      }
    }
    if (!next) next = std::make_unique<TokenBatch>();
    std::swap(batch, next);
    boost::asio::post(*loops_[i], [this, b = std::move(next)]() mutable { deliver(std::move(b)); });
  }
}

// vllm:lora_requests_info: the adapters of the running batch and of the queue (requests not yet
// reached by a step included, as the waiting gauge counts them).
void EngineRunner::publish_loras() {
  model_->lora().running(running_loras_);
  model_->waiting_loras(waiting_loras_);
  for (const EngineRequest& r : pending_) {
    if (r.lora >= 0 && static_cast<std::size_t>(r.lora) < waiting_loras_.size()) {
      waiting_loras_[static_cast<std::size_t>(r.lora)] = 1;
    }
  }
  metrics_.set_lora_info(running_loras_, waiting_loras_);
}

void EngineRunner::deliver(std::unique_ptr<TokenBatch> batch) {
  for (const TokenEvent& e : batch->events) {
    e.sink->on_engine_tokens(e.id, e.tokens, e.finished, e.cached);
  }
  batch->events.clear();
  batch->released.clear();
  std::lock_guard lock(mu_);
  pool_.push_back(std::move(batch));
}

void EngineRunner::run() {
  std::vector<Command> commands;
  int steps_since_flush = 0;
  for (;;) {
    {
      std::unique_lock lock(mu_);
      if (stopping_) break;
      commands.swap(inbox_);
    }
    apply(commands);

    // The next step starts when the last one ended, or, on an idle engine, at the first arrival.
    ModelNanos start = last_end_;
    if (!model_->has_work()) {
      if (pending_.empty()) {
        flush();
        steps_since_flush = 0;
        std::unique_lock lock(mu_);
        idle_ = true;
        cv_.wait(lock, [this] { return stopping_ || !inbox_.empty(); });
        idle_ = false;
        continue;
      }
      start = std::max(start, pending_.front().arrival);
    }
    add_due(start);
    const StepOutcome& outcome = model_->step(start);
    last_end_ = outcome.end;
    if (outcome.prefill_tokens == 0 && outcome.decode_seqs == 0) {
      // Nothing fits (cannot happen with validated requests): wait for a command to change that.
      flush();
      std::unique_lock lock(mu_);
      idle_ = true;
      cv_.wait(lock, [this] { return stopping_ || !inbox_.empty(); });
      idle_ = false;
      continue;
    }
    const auto due = to_wall(outcome.end);
    if (due > core::Clock::now()) {
      // Hand over what earlier steps produced, then sleep until this step ends. Commands that
      // arrive meanwhile wait for the step boundary, as in a real engine.
      flush();
      steps_since_flush = 0;
      std::unique_lock lock(mu_);
      cv_.wait_until(lock, due, [this] { return stopping_; });
      if (stopping_) break;
    }
    record(outcome);
    if (++steps_since_flush >= kMaxStepsPerFlush) {
      flush();
      steps_since_flush = 0;
    }
  }
}

}  // namespace tokenbench::sim
