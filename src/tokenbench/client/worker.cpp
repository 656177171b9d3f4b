// A Worker's loop, slots, timers and retries (worker.h). What happens to a reply's bytes is
// worker_reply.cpp; what carries them is the transports (client/transport.h).

#include "tokenbench/client/worker.h"

#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>

#include "tokenbench/client/curl_transport.h"
#include "tokenbench/client/http1_transport.h"
#include "tokenbench/client/http2_transport.h"
#include "tokenbench/client/http_get.h"
#include "tokenbench/client/http_target.h"
#include "tokenbench/client/rx_stamps.h"
#include "tokenbench/core/text.h"

namespace tokenbench::client {
namespace {

constexpr int kIdleWaitMs = 50;  // upper bound on a wait, so cancellation is seen promptly

// epoll's data word of the worker's timer: transport number 0.
constexpr std::uint64_t kTimerTag = 0;

core::Nanos seconds_to_nanos(double s) { return static_cast<core::Nanos>(s * 1e9); }

core::Nanos earliest(core::Nanos a, core::Nanos b) {
  if (a == core::kNever) return b;
  if (b == core::kNever) return a;
  return std::min(a, b);
}

}  // namespace

Worker::Worker(const EngineConfig& config, const core::RunClock& clock, RouteState& route)
    : config_(config), clock_(clock), route_(route), adapter_(make_adapter(config.api)) {
  epoll_fd_ = epoll_create1(EPOLL_CLOEXEC);
  timer_fd_ = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
  if (epoll_fd_ < 0 || timer_fd_ < 0) {
    throw std::runtime_error(std::string("cannot create the event loop: ") + std::strerror(errno));
  }
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.u64 = kTimerTag;
  epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, timer_fd_, &ev);
  if (config_.native_transport && config_.kernel_stamps) keep_rx_stamps_on();
  make_transports();
}

void Worker::make_transports() {
  std::vector<std::optional<HttpTarget>> targets;
  bool any_curl = false;
  bool any_native = false;
  for (const Endpoint& endpoint : config_.endpoints) {
    std::string why_not;
    targets.push_back(config_.native_transport ? native_target(endpoint.url, why_not)
                                               : std::nullopt);
    if (targets.back()) {
      any_native = true;
      continue;
    }
    any_curl = true;
    if (config_.http2) {
      if (const std::string problem = curl_http2_problem(endpoint.url); !problem.empty()) {
        throw std::runtime_error(problem);
      }
    }
  }
  if (any_curl) {
    transports_[kCurl] =
        std::make_unique<CurlTransport>(TransportContext{config_, clock_, epoll_fd_, *this, kCurl});
  }
  if (any_native) {
    const TransportContext context{config_, clock_, epoll_fd_, *this, kNative};
    if (config_.http2) {
      transports_[kNative] = std::make_unique<Http2Transport>(context, targets);
    } else {
      transports_[kNative] = std::make_unique<Http1Transport>(context, targets);
    }
  }
  for (const auto& target : targets) {
    carrier_.push_back(transports_[target ? kNative : kCurl].get());
  }
  set_wait_check_period(any_native);
}

void Worker::set_wait_check_period(bool native) {
  double wait_timeout = 0;
  std::vector<double> waits{config_.ttft_timeout_s, config_.stall_timeout_s};
  if (native) {
    // The native transports leave their connect and total timeouts to the worker.
    waits.push_back(config_.timeout_s);
    waits.push_back(config_.connect_timeout_s);
  }
  for (const double s : waits) {
    if (s > 0 && (wait_timeout == 0 || s < wait_timeout)) wait_timeout = s;
  }
  if (wait_timeout > 0) {
    // A tenth of the shortest wait timeout, so a timeout fires at most 10% late.
    wait_check_period_ =
        std::clamp<core::Nanos>(seconds_to_nanos(wait_timeout / 10), 5'000'000, 250'000'000);
  }
}

Worker::~Worker() {
  for (auto& transport : transports_) transport.reset();
  if (timer_fd_ >= 0) close(timer_fd_);
  if (epoll_fd_ >= 0) close(epoll_fd_);
}

Transfer* Worker::acquire() {
  if (!free_.empty()) {
    Transfer* t = free_.back();
    free_.pop_back();
    return t;
  }
  auto t = std::make_unique<Transfer>();
  t->index = static_cast<std::uint32_t>(pool_.size());
  t->sse.set_max_event_bytes(config_.max_event_bytes);
  Transfer* raw = t.get();
  pool_.push_back(std::move(t));
  return raw;
}

void Worker::preopen(std::size_t per_endpoint, core::Nanos deadline) {
  if (transports_[kNative] != nullptr) transports_[kNative]->preopen(per_endpoint, deadline);
}

std::size_t Worker::idle_connections() const {
  return transports_[kNative] != nullptr ? transports_[kNative]->idle_connections() : 0;
}

void Worker::run(RequestSource& source, std::size_t slots, const RecordSink& sink,
                 const std::atomic<bool>& canceled) {
  sink_ = &sink;
  source_ = &source;
  keep_answers_ = source.wants_answers();
  exhausted_ = false;
  freed_at_.clear();
  slots_limited_ = config_.max_concurrency > 0;
  if (slots_limited_) freed_at_.assign(slots, source.phase_start());
  const bool sample_cpu = source.phase() == core::Phase::kMeasure;
  measuring_ = sample_cpu;
  read_lag_window_.clear();
  const auto read_cpu = [this](core::Nanos now) {
    cpu_samples_.push_back({now, core::thread_cpu_now(), core::thread_run_delay_now()});
    next_cpu_sample_ = now + kCpuSamplePeriod;
    // The read lag's window ends with each CPU reading (the first one's holds no reads).
    if (read_lag_window_.count() > 0) {
      read_lag_log_.windows.push_back(core::window_of(read_lag_window_, now));
      read_lag_window_.clear();
    }
  };
  if (sample_cpu) read_cpu(clock_.now());

  while (true) {
    if (sample_cpu) {
      // One clock read per loop turn; the CPU clock only every kCpuSamplePeriod.
      const core::Nanos now = clock_.now();
      if (now >= next_cpu_sample_) read_cpu(now);
    }
    if (canceled.load(std::memory_order_relaxed)) {
      source.stop();
      cancel_all();
      break;
    }
    const core::Nanos next_retry =
        retrying_.empty() ? core::kNever : launch_due_retries(clock_.now());
    const core::Nanos next_due = issue_due(slots);
    if (transports_[kCurl] != nullptr && transports_[kCurl]->run_due()) continue;
    if (active_ == 0 && exhausted_) break;
    wait_and_dispatch(next_due, next_retry);
    for (auto& transport : transports_) {
      if (transport != nullptr) transport->after_events();
    }
    if (next_wait_check_ != core::kNever && clock_.now() >= next_wait_check_) {
      next_wait_check_ = expire_waits(clock_.now());
    }
  }
  disarm_timer();
  if (sample_cpu) read_cpu(clock_.now());
  measuring_ = false;
  sink_ = nullptr;
  source_ = nullptr;
}

void Worker::wait_and_dispatch(core::Nanos next_due, core::Nanos next_retry) {
  core::Nanos wake = earliest(next_due, next_retry);
  for (const auto& transport : transports_) {
    if (transport != nullptr) wake = earliest(wake, transport->wake_at());
  }
  if (active_ > 0 && wait_check_period_ != core::kNever) {
    if (next_wait_check_ == core::kNever) next_wait_check_ = clock_.now() + wait_check_period_;
    wake = earliest(wake, next_wait_check_);
  }
  arm_timer(wake);

  epoll_event events[kMaxEvents];
  const int n = epoll_wait(epoll_fd_, events, kMaxEvents, kIdleWaitMs);
  for (int i = 0; i < n; ++i) {
    const std::uint64_t tag = events[i].data.u64;
    if (tag == kTimerTag) {
      std::uint64_t expirations = 0;
      [[maybe_unused]] const auto r = read(timer_fd_, &expirations, sizeof expirations);
      armed_ = core::kNever;
      continue;
    }
    transports_[Transport::id_of(tag)]->on_events(Transport::key_of(tag), events[i].events);
  }
}

core::Nanos Worker::issue_due(std::size_t slots) {
  while (active_ < slots) {
    const core::Nanos now = clock_.now();
    // A request waiting for a slot was really due when the slot freed: the schedule's lag is
    // measured from the later of the two, so queue time is the client's own delay.
    const core::Nanos freed =
        slots_limited_ && !freed_at_.empty() ? freed_at_.front() : RequestSource::kNoSlotWait;
    SourcedRequest request;
    core::Nanos next_due = core::kNever;
    bool finished = false;
    if (!source_->next(now, freed, request, next_due, finished)) {
      exhausted_ = finished;
      return next_due;
    }
    if (slots_limited_ && !freed_at_.empty()) freed_at_.pop_front();
    begin(acquire(), request);
  }
  return core::kNever;
}
std::uint32_t Worker::route(const core::RequestSpec& spec) {
  const std::size_t n = config_.endpoints.size();
  if (n == 1) return 0;
  std::uint32_t chosen = 0;
  switch (config_.routing) {
    case Routing::kBySpec:
      return spec.target < n ? spec.target : 0;
    case Routing::kRoundRobin:
      chosen = static_cast<std::uint32_t>(route_.next.fetch_add(1, std::memory_order_relaxed) % n);
      break;
    case Routing::kLeastInflight: {
      // Ties go round-robin, so equal replicas share the load evenly.
      const std::size_t first = route_.next.fetch_add(1, std::memory_order_relaxed) % n;
      std::int64_t fewest = std::numeric_limits<std::int64_t>::max();
      for (std::size_t k = 0; k < n; ++k) {
        const std::size_t i = (first + k) % n;
        const std::int64_t v = route_.inflight[i].load(std::memory_order_relaxed);
        if (v < fewest) {
          fewest = v;
          chosen = static_cast<std::uint32_t>(i);
        }
      }
      break;
    }
  }
  route_.inflight[chosen].fetch_add(1, std::memory_order_relaxed);
  return chosen;
}

void Worker::begin(Transfer* t, const SourcedRequest& request) {
  const core::RequestSpec& spec = *request.spec;
  const bool nonstream_sample = config_.stream && request.nonstream_sample;
  const core::Phase phase = request.phase;
  t->spec = &spec;
  t->stream = config_.stream && !nonstream_sample;
  t->request_body = request.body;
  t->hold = request.hold;
  t->rec = core::RequestRecord{};
  t->rec.nonstream_sample = nonstream_sample;
  t->rec.id = request.id;
  t->rec.phase = phase;
  const std::uint32_t endpoint = route(spec);
  t->endpoint = endpoint;
  t->rec.endpoint = endpoint;
  t->rec.mix = spec.mix;
  t->rec.intended = request.intended;
  t->rec.scheduled = request.scheduled;
  t->rec.session = request.session;
  t->rec.turn = request.turn;
  if (request.job != nullptr) t->rec.job = *request.job;
  if (config_.ideal_cache && spec.prefix_tokens > 0) {  // sent now: the order the cache sees
    t->rec.ideal_cached_tokens = config_.ideal_cache->observe(spec.prefix_blocks);
    t->rec.ideal_prompt_tokens = spec.prefix_tokens;
  }
  if (config_.request_ids) {
    t->trace = make_trace_id(config_.run_id,
                             phase == core::Phase::kDropped ? core::Phase::kMeasure : phase,
                             spec.target, t->rec.id);
    t->rec.request_id = request_id_text(t->trace);
  }
  t->attempt = 0;
  route_.started.fetch_add(1, std::memory_order_relaxed);
  t->limits = reply_limits(config_, spec.max_tokens);
  t->active = true;
  ++active_;
  launch(t);
}

std::atomic<std::int64_t>& Worker::attempts_of(const Transfer& t) {
  return route_.attempts[config_.routing == Routing::kBySpec ? t.endpoint : 0];
}

void Worker::launch(Transfer* t) {
  // Room for the expected chunks, so a stream does not allocate per token; capped, because a
  // request may ask for far more tokens than it gets.
  const auto expected =
      static_cast<std::size_t>(std::clamp<std::int64_t>(t->spec->max_tokens, 16, 4096)) + 2;
  t->rec.chunks.reserve(expected);
  t->rec.chunk_text_bytes.reserve(expected);
  if (config_.keep_text) t->rec.output_text.reserve(expected * 8);
  if (config_.keep_prompt) {
    // --save-detailed: the prompt as sent (chat messages as their JSON array), bounded.
    const std::string& prompt =
        t->spec->messages_json.empty() ? t->spec->prompt : t->spec->messages_json;
    t->rec.prompt_text.assign(core::utf8_prefix(prompt, core::kMaxDetailTextBytes));
    t->rec.text_truncated = t->rec.prompt_text.size() < prompt.size();
  }
  t->rec.streamed = t->stream;
  t->rec.attempt = t->attempt;
  t->body.clear();
  t->sse.reset();
  t->status = 0;
  t->status_known = false;
  t->event_stream = t->stream;
  t->done_seen = false;
  t->aborted = false;
  t->html = false;
  t->reply_bytes = 0;
  t->retry_after_s = 0;
  t->retry_at = core::kNever;
  t->last_byte = core::kNever;
  t->usage_prompt = -1;
  t->usage_completion = -1;
  t->chunks_judged = 0;
  t->chunks_late = 0;
  t->last_chunk_late = false;
  t->location.clear();
  t->transport = carrier_[t->endpoint];
  t->rec.in_flight = attempts_of(*t).fetch_add(1, std::memory_order_relaxed) + 1;
  t->counted = true;
  t->transport->submit(*t);
}

core::Nanos Worker::launch_due_retries(core::Nanos now) {
  core::Nanos next = core::kNever;
  for (std::size_t i = 0; i < retrying_.size();) {
    Transfer* t = retrying_[i];
    if (t->retry_at <= now) {
      retrying_[i] = retrying_.back();
      retrying_.pop_back();
      launch(t);
      continue;
    }
    if (next == core::kNever || t->retry_at < next) next = t->retry_at;
    ++i;
  }
  return next;
}

bool Worker::schedule_retry(Transfer* t) {
  if (canceling_ || t->attempt >= static_cast<std::uint32_t>(std::max(0, config_.retries)) ||
      !is_retryable(t->rec)) {
    return false;
  }
  const core::Nanos wait = retry_backoff(config_.seed, t->rec.id, t->attempt, t->retry_after_s);
  core::RequestRecord next;
  next.id = t->rec.id;
  next.phase = t->rec.phase;
  next.endpoint = t->rec.endpoint;
  next.intended = t->rec.intended;
  next.scheduled = t->rec.done + wait;
  next.request_id = t->rec.request_id;
  next.nonstream_sample = t->rec.nonstream_sample;
  next.session = t->rec.session;  // a retried turn stays its session's turn
  next.turn = t->rec.turn;
  next.job = t->rec.job;
  next.ideal_cached_tokens = t->rec.ideal_cached_tokens;
  next.ideal_prompt_tokens = t->rec.ideal_prompt_tokens;
  t->rec.retried = true;
  (*sink_)(std::move(t->rec));
  t->rec = std::move(next);
  t->retry_at = t->rec.scheduled;
  ++t->attempt;
  retrying_.push_back(t);
  return true;
}

void Worker::release(Transfer* t) {
  core::RequestRecord& rec = t->rec;
  if (t->counted) {  // the attempt has ended
    attempts_of(*t).fetch_sub(1, std::memory_order_relaxed);
    t->counted = false;
  }
  if (schedule_retry(t)) return;
  t->active = false;
  --active_;
  if (config_.endpoints.size() > 1 && config_.routing != Routing::kBySpec) {
    route_.inflight[t->endpoint].fetch_sub(1, std::memory_order_relaxed);
  }
  if (slots_limited_) freed_at_.push_back(rec.done);
  source_->done(rec);
  (*sink_)(std::move(rec));
  t->hold.reset();
  free_.push_back(t);
}

core::Nanos Worker::expire_waits(core::Nanos now) {
  core::ErrorClass error = core::ErrorClass::kNone;
  std::string message;
  for (auto& owned : pool_) {
    Transfer* t = owned.get();
    if (!t->active || t->transport == nullptr) continue;
    if (!overdue(*t, now, error, message)) continue;
    t->abort(error, message);
    finish(*t, CURLE_ABORTED_BY_CALLBACK);
  }
  return active_ > 0 ? now + wait_check_period_ : core::kNever;
}

bool Worker::overdue(const Transfer& t, core::Nanos now, core::ErrorClass& error,
                     std::string& message) const {
  const Stage stage = t.transport->stage(t);
  if (stage == Stage::kIdle) return false;
  const bool timed_here = !t.transport->times_itself();
  const core::Nanos ttft = seconds_to_nanos(config_.ttft_timeout_s);
  const core::Nanos stall = seconds_to_nanos(config_.stall_timeout_s);
  const core::Nanos connect = seconds_to_nanos(config_.connect_timeout_s);
  const core::Nanos total = seconds_to_nanos(config_.timeout_s);
  const core::Nanos waited = now - t.rec.sent;
  if (timed_here && stage == Stage::kConnecting && connect > 0 && waited >= connect) {
    error = core::ErrorClass::kConnectTimeout;
    message = "Connection timed out after " + std::to_string(waited / 1'000'000) +
              " milliseconds (--connect-timeout)";
  } else if (timed_here && total > 0 && waited >= total) {
    error = core::ErrorClass::kTimeout;
    message = "Operation timed out after " + std::to_string(waited / 1'000'000) +
              " milliseconds with " + std::to_string(t.reply_bytes) + " bytes received (--timeout)";
  } else if (ttft > 0 && t.rec.first_token == core::kNever && waited >= ttft) {
    error = core::ErrorClass::kTtftTimeout;
    message = "no first token within " + core::format_seconds(config_.ttft_timeout_s) +
              " (--ttft-timeout)";
  } else if (stall > 0 && t.reply_bytes > 0 && now - t.last_activity >= stall) {
    error = core::ErrorClass::kStallTimeout;
    message = "no byte for " + core::format_seconds(config_.stall_timeout_s) +
              " in the middle of the reply (--stall-timeout), after " +
              std::to_string(t.rec.chunks.size()) + " content chunks";
  } else {
    return false;
  }
  return true;
}

void Worker::cancel_all() {
  canceling_ = true;
  retrying_.clear();
  for (auto& transport : transports_) {
    if (transport != nullptr) transport->drop_deferred();  // still active: finished below
  }
  for (auto& owned : pool_) {
    Transfer* t = owned.get();
    if (!t->active) continue;
    t->aborted = true;
    t->rec.error = core::ErrorClass::kCanceled;
    t->rec.error_message = "the run was stopped before the request ended";
    finish(*t, CURLE_ABORTED_BY_CALLBACK);
  }
}

void Worker::arm_timer(core::Nanos wake) {
  // Re-arming costs a syscall, and curl moves its deadline after nearly every event. A timer that
  // is already set to fire no later than `wake` is left alone: waking early only costs one loop
  // turn, while a syscall per event would cost every event.
  if (wake == core::kNever || (armed_ != core::kNever && armed_ <= wake)) return;
  armed_ = wake;
  itimerspec spec{};
  const auto tp = clock_.to_time_point(std::max<core::Nanos>(wake, 1));
  const auto ns =
      std::chrono::duration_cast<std::chrono::nanoseconds>(tp.time_since_epoch()).count();
  spec.it_value.tv_sec = static_cast<time_t>(ns / 1'000'000'000);
  spec.it_value.tv_nsec = static_cast<long>(ns % 1'000'000'000);
  if (spec.it_value.tv_sec == 0 && spec.it_value.tv_nsec == 0) spec.it_value.tv_nsec = 1;
  timerfd_settime(timer_fd_, TFD_TIMER_ABSTIME, &spec, nullptr);
}

void Worker::disarm_timer() {
  armed_ = core::kNever;
  itimerspec spec{};
  timerfd_settime(timer_fd_, TFD_TIMER_ABSTIME, &spec, nullptr);
}

}  // namespace tokenbench::client
