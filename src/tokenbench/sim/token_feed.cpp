#include "tokenbench/sim/token_feed.h"

#include <algorithm>
#include <chrono>
#include <utility>

#include "tokenbench/sim/sim_metrics.h"
#include "tokenbench/sim/token_timeline.h"

namespace tokenbench::sim {
namespace {

using core::Clock;

double seconds_between(Clock::time_point from, Clock::time_point to) {
  return std::chrono::duration<double>(to - from).count();
}

LlamaTimings timings_of(const FeedRequest& r, Clock::time_point first, Clock::time_point last) {
  LlamaTimings t;
  t.prompt_n = r.prompt_tokens;
  t.predicted_n = r.plan.output_tokens;
  if (r.plan.output_tokens > 0) {
    t.prompt_ms = std::max(0.0, seconds_between(r.received, first) * 1e3);
    t.predicted_ms = std::max(0.0, seconds_between(first, last) * 1e3);
  }
  return t;
}

// Fixed delays: token i is due at the i-th time of the request's TokenTimeline. Records the
// metrics that the engine would: token counters count the tokens generated (due) by the time the
// request ends, aborted or not; latency observations wait in delta_ and are merged only when the
// request finishes successfully (its last token is due without a fault that aborts it).
class FixedFeed final : public TokenFeed {
 public:
  explicit FixedFeed(ServerContext& context) : ctx_(context) {}

  void start(FeedRequest request) override {
    r_ = std::move(request);
    r_.block_hashes.clear();
    r_.sink.reset();  // the session owns the feed: holding it would be a cycle
    timeline_.emplace(ctx_.config.timing, ctx_.config.seed, r_.arrival, r_.start);
    if (!delta_) delta_ = std::make_unique<MetricsDelta>();
    delta_->clear();
    running_ = true;
    ctx_.metrics.add_running(1);
    if (r_.stream) {
      next_due_ = timeline_->next();
      return;
    }
    for (std::int64_t i = 0; i < r_.plan.output_tokens; ++i) note(i, timeline_->next());
  }

  bool deliver(std::uint64_t, std::int32_t, bool, Clock::time_point) override { return false; }

  bool ready(std::int64_t, Clock::time_point now) const override { return next_due_ <= now; }

  std::optional<Clock::time_point> due(std::int64_t) const override { return next_due_; }

  void emitted(std::int64_t index, Clock::time_point) override {
    note(index, next_due_);
    if (index + 1 < r_.plan.output_tokens) next_due_ = timeline_->next();
  }

  std::optional<Clock::time_point> wake_at(Clock::time_point) const override { return next_due_; }

  std::optional<Clock::time_point> whole_due() const override { return last_due_; }

  void stall(Clock::duration pause, std::int64_t index, Clock::time_point) override {
    timeline_->delay(pause);
    if (index < r_.plan.output_tokens) next_due_ += pause;
  }

  void end(bool aborted, std::int64_t generated) override {
    if (running_) finish(aborted, generated);
  }

  void abandon(std::int64_t emitted, Clock::time_point now) override {
    if (running_) finish(/*aborted=*/true, r_.stream ? emitted : due_by(now));
  }

  LlamaTimings timings() const override { return timings_of(r_, first_due_, last_due_); }

 private:
  // Token `index` is due at `due`.
  void note(std::int64_t index, Clock::time_point due) {
    if (index == 0) {
      delta_->ttft.observe(seconds_between(r_.received, due));
      first_due_ = due;
    } else {
      delta_->itl.observe(seconds_between(last_due_, due));
    }
    last_due_ = due;
  }

  // The tokens of a whole reply due by `now` (its timeline replayed).
  std::int64_t due_by(Clock::time_point now) const {
    TokenTimeline replay(ctx_.config.timing, ctx_.config.seed, r_.arrival, r_.start);
    std::int64_t n = 0;
    while (n < r_.plan.output_tokens && replay.next() <= now) ++n;
    return n;
  }

  void finish(bool aborted, std::int64_t generated) {
    running_ = false;
    MetricsDelta& d = *delta_;
    d.generation_tokens = generated;
    if (generated > 0) d.prompt_tokens = r_.prompt_tokens;  // once its first token is out
    if (aborted) {
      d.ttft.clear();
      d.itl.clear();
      ++d.success_abort;
    } else {
      const double e2e = seconds_between(r_.received, last_due_);
      const double ttft = seconds_between(r_.received, first_due_);
      d.e2e.observe(e2e);
      d.queue.observe(0.0);
      d.prefill.observe(ttft);
      d.decode.observe(e2e - ttft);
      d.inference.observe(e2e);
      ++(r_.plan.finish == FinishReason::kStop ? d.success_stop : d.success_length);
    }
    ctx_.metrics.merge(d);
    ctx_.metrics.add_running(-1);
  }

  ServerContext& ctx_;
  FeedRequest r_;
  std::optional<TokenTimeline> timeline_;
  std::unique_ptr<MetricsDelta> delta_;
  bool running_ = false;
  Clock::time_point next_due_;
  Clock::time_point first_due_;
  Clock::time_point last_due_;
};

// The engine model: the request is submitted to the engine thread, whose tokens arrive through
// deliver() on the session's loop. The engine records its own metrics.
class EngineFeed final : public TokenFeed {
 public:
  explicit EngineFeed(ServerContext& context) : ctx_(context) {}

  void start(FeedRequest request) override {
    r_ = std::move(request);
    available_ = 0;
    stall_until_ = {};
    EngineSubmission s;
    s.id = r_.arrival;
    s.prompt_tokens = r_.prompt_tokens;
    s.output_tokens = r_.plan.output_tokens;
    s.finish = r_.plan.finish;
    s.block_hashes = std::move(r_.block_hashes);
    s.received = r_.start;
    s.sink = std::move(r_.sink);
    s.loop = r_.loop;
    s.abort_on_finish = r_.abort_on_finish;
    s.lora = r_.lora;
    s.kv_transferred = r_.kv_transferred;
    active_ = true;
    ctx_.engine->submit(std::move(s));
  }

  bool deliver(std::uint64_t id, std::int32_t tokens, bool finished,
               Clock::time_point now) override {
    if (id != r_.arrival || !active_) return false;  // a request this session gave up
    if (!r_.stream) {
      if (available_ == 0) first_out_ = now;
      last_out_ = now;
    }
    available_ += tokens;
    if (finished) active_ = false;
    return true;
  }

  bool ready(std::int64_t index, Clock::time_point now) const override {
    return index < available_ && now >= stall_until_;
  }

  std::optional<Clock::time_point> due(std::int64_t) const override { return std::nullopt; }

  void emitted(std::int64_t index, Clock::time_point now) override {
    if (index == 0) first_out_ = now;
    last_out_ = now;
  }

  std::optional<Clock::time_point> wake_at(Clock::time_point now) const override {
    if (stall_until_ > now) return stall_until_;
    return std::nullopt;
  }

  std::optional<Clock::time_point> whole_due() const override { return std::nullopt; }

  void stall(Clock::duration pause, std::int64_t, Clock::time_point now) override {
    // The engine goes on generating; what it makes meanwhile leaves in one burst.
    stall_until_ = now + pause;
  }

  void end(bool, std::int64_t) override { cancel(); }

  void abandon(std::int64_t, Clock::time_point) override { cancel(); }

  LlamaTimings timings() const override { return timings_of(r_, first_out_, last_out_); }

 private:
  void cancel() {
    if (!active_) return;
    active_ = false;
    ctx_.engine->cancel(r_.arrival);
  }

  ServerContext& ctx_;
  FeedRequest r_;
  bool active_ = false;         ///< the request is in the engine
  std::int64_t available_ = 0;  ///< tokens the engine has generated for it
  Clock::time_point stall_until_;
  // When the request's first and last tokens left (stream) or were generated.
  Clock::time_point first_out_;
  Clock::time_point last_out_;
};

}  // namespace

std::unique_ptr<TokenFeed> make_token_feed(ServerContext& context) {
  if (context.engine) return std::make_unique<EngineFeed>(context);
  return std::make_unique<FixedFeed>(context);
}

}  // namespace tokenbench::sim
