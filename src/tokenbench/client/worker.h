#pragma once

#include <atomic>
#include <cstddef>
#include <deque>
#include <memory>
#include <string_view>
#include <vector>

#include "tokenbench/client/api_adapter.h"
#include "tokenbench/client/http_engine.h"
#include "tokenbench/client/transfer.h"
#include "tokenbench/client/transport.h"
#include "tokenbench/core/read_lag.h"

namespace tokenbench::client {

/// The internals of one HttpEngine worker: an epoll loop with a timerfd for the transports'
/// timeouts, the schedule's next due request, retries and wait checks; the request slots; and
/// the transports that carry the requests (client/transport.h): libcurl for what the native
/// transports cannot carry, and the native HTTP/1.1 or HTTP/2 transport for the rest. The
/// worker turns what they report into records. Used by one thread at a time.
class Worker final : private TransferHost {
 public:
  Worker(const EngineConfig& config, const core::RunClock& clock, RouteState& route);
  ~Worker();
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;

  /// Runs one phase with `slots` requests in flight at most (see HttpEngine::run_phase).
  void run(RequestSource& source, std::size_t slots, const RecordSink& sink,
           const std::atomic<bool>& canceled);

  /// Readings of this worker's thread CPU clock during measure phases (at the phase's start and
  /// end and about every kCpuSamplePeriod in between), in time order.
  const std::vector<core::CpuSample>& cpu_samples() const { return cpu_samples_; }
  /// The read lag of this worker's kernel-stamped reads during measure phases: all of them, and
  /// one window per CPU reading (core/read_lag.h). Empty without kernel stamps.
  const core::ReadLagLog& read_lag() const { return read_lag_log_; }

  /// Opens up to `per_endpoint` idle connections to each native endpoint before a phase, at most
  /// SocketTransport::kConnectWindow handshakes at a time so that a listen backlog does not
  /// overflow; returns when they are open or `deadline` passes. Failures are left for the
  /// requests to record.
  void preopen(std::size_t per_endpoint, core::Nanos deadline);
  /// Idle native connections open now (tests, benchmarks).
  std::size_t idle_connections() const;

  /// How often a worker reads its CPU clock while it measures.
  static constexpr core::Nanos kCpuSamplePeriod = 250'000'000;

 private:
  static constexpr int kMaxEvents = 512;
  // The transports' numbers in the epoll data words; 0 is the worker's timer.
  static constexpr std::uint32_t kCurl = 1;
  static constexpr std::uint32_t kNative = 2;

  // TransferHost: what the transports report (worker_reply.cpp).
  bool header_line(Transfer& t, std::string_view line, core::Nanos now) override;
  bool body_bytes(Transfer& t, std::string_view data, core::Nanos now) override;
  void finish(Transfer& t, CURLcode result) override;
  void note_read(core::Nanos lag) override;

  /// The transports this worker's endpoints need, and which carries each endpoint.
  void make_transports();
  /// How often expire_waits runs: a tenth of the shortest wait timeout (kNever: none).
  void set_wait_check_period(bool native);
  /// One turn of the loop's wait: arms the timer, waits and hands each event to its owner.
  void wait_and_dispatch(core::Nanos next_due, core::Nanos next_retry);

  /// Claims and starts every request that is due while slots are free; returns the due time of the
  /// next request not yet started (kNever when none) and sets exhausted_ when the source is
  /// finished.
  core::Nanos issue_due(std::size_t slots);
  /// Starts `request` (a fresh record).
  void begin(Transfer* t, const SourcedRequest& request);
  /// The count of attempts in flight that `t`'s attempt belongs to (its target's).
  std::atomic<std::int64_t>& attempts_of(const Transfer& t);
  /// Resets `t`'s per-attempt state and hands it to its endpoint's transport.
  void launch(Transfer* t);
  /// Launches the retries whose backoff has passed; returns when the next one is due (or kNever).
  core::Nanos launch_due_retries(core::Nanos now);
  /// After a failed attempt that is_retryable: records it and schedules the next. False when the
  /// request has no attempts left (or the run is stopping).
  bool schedule_retry(Transfer* t);
  void on_event(Transfer* t, std::string_view data, core::Nanos now);
  /// The content of one stream event: stamps, text kept, limits (on_event).
  void on_content(Transfer* t, const ApiEvent& ev, core::Nanos now);
  /// True when `adding` more bytes of text beside the `kept` ones stay within `t`'s text bound
  /// (ReplyLimits::text_bytes); otherwise aborts `t` as a protocol failure and returns false.
  bool text_fits(Transfer* t, std::size_t kept, std::size_t adding);
  /// Counts `len` more bytes of `t`'s reply; past its limit, aborts it and returns false.
  bool count_reply_bytes(Transfer* t, std::size_t len);
  /// A header field line of `t` (not the status line or the end); false when it ended `t`.
  bool header_field(Transfer* t, std::string_view line);
  /// Ends the transfers that waited too long for a first token (--ttft-timeout) or for their
  /// next byte (--stall-timeout); returns when the next check is due (kNever: none configured).
  core::Nanos expire_waits(core::Nanos now);
  /// Why `t` has waited too long at `now`, as its error; false when it has not.
  bool overdue(const Transfer& t, core::Nanos now, core::ErrorClass& error,
               std::string& message) const;
  /// Classifies a finished transfer: gathers what it saw (ReplyFacts) for classify_reply.
  void classify(Transfer* t, CURLcode result, const AttemptFacts& facts);
  /// Hands the finished record of `t` on (or its retry) and frees its slot.
  void release(Transfer* t);
  void cancel_all();
  /// Makes the timerfd fire no later than `wake` (kNever: no new requirement).
  void arm_timer(core::Nanos wake);
  void disarm_timer();
  Transfer* acquire();
  /// The endpoint that serves `spec` (config_.routing); counts it in flight for least-inflight.
  std::uint32_t route(const core::RequestSpec& spec);

  const EngineConfig& config_;
  const core::RunClock& clock_;
  RouteState& route_;
  int epoll_fd_ = -1;
  int timer_fd_ = -1;
  std::unique_ptr<ApiAdapter> adapter_;
  // By number (kCurl, kNative; null when no endpoint needs it), and per endpoint the one that
  // carries it.
  std::unique_ptr<Transport> transports_[Transport::kIdMask + 1];
  std::vector<Transport*> carrier_;

  std::vector<std::unique_ptr<Transfer>> pool_;
  std::vector<Transfer*> free_;
  std::vector<Transfer*> retrying_;  // waiting out a backoff; they keep their slot
  bool canceling_ = false;
  std::size_t active_ = 0;
  bool slots_limited_ = false;        // a concurrency limit applies
  std::deque<core::Nanos> freed_at_;  // when each currently free slot became free (oldest first)
  bool exhausted_ = false;
  core::Nanos armed_ = core::kNever;
  core::Nanos wait_check_period_ = core::kNever;  // how often expire_waits runs; kNever: never
  core::Nanos next_wait_check_ = core::kNever;
  const RecordSink* sink_ = nullptr;
  RequestSource* source_ = nullptr;           // where the phase's requests come from and end
  bool keep_answers_ = false;                 // records keep answer_text (source_->wants_answers())
  std::vector<core::CpuSample> cpu_samples_;  // this thread's CPU clock during measure phases
  core::Nanos next_cpu_sample_ = core::kNever;
  // The read lag: the current read's (kNever: unknown), and the measure phases' account of it.
  core::Nanos read_lag_ = core::kNever;
  bool measuring_ = false;
  core::ReadLagLog read_lag_log_;
  core::ReadLagHistogram read_lag_window_;  // the reads since the last CPU reading
};

}  // namespace tokenbench::client
