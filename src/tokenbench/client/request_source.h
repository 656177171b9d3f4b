#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "tokenbench/core/clock.h"
#include "tokenbench/core/request.h"

namespace tokenbench::client {

/// A phase's request count when it is not known ahead (a --duration run); the same value as
/// load::ArrivalSchedule::kUnbounded.
inline constexpr std::size_t kUnboundedCount = std::numeric_limits<std::size_t>::max();

/// One request a worker is to send now. The spec and body stay valid until the source's done() is
/// called for its record (or the phase ends), or, when `hold` owns them, for as long as the
/// transfer sending the request keeps `hold`.
struct SourcedRequest {
  const core::RequestSpec* spec = nullptr;
  const std::string* body = nullptr;
  std::shared_ptr<const void> hold;  ///< owns spec and body when set (a request made as it goes)
  std::uint64_t id = 0;              ///< the record's id
  core::Phase phase = core::Phase::kMeasure;
  /// One of --nonstream-sample: sent with stream false (`body` is the non-streamed one).
  bool nonstream_sample = false;
  core::Nanos due = 0;                  ///< when it became due
  core::Nanos intended = core::kNever;  ///< RequestRecord::intended (kNever: closed loop)
  /// RequestRecord::scheduled: the later of `due` and the moment the worker's slot freed.
  core::Nanos scheduled = 0;
  std::int64_t session = -1;  ///< multi-turn runs: the session; -1 outside sessions
  std::int32_t turn = -1;     ///< multi-turn runs: the turn index from 0; -1 outside sessions
  /// Agentic jobs: the job and call (copied into the record); valid as `spec` is. Null otherwise.
  const core::JobCallTag* job = nullptr;
};

/// Where an engine's workers take the requests of one phase from, and report their ends to
/// (HttpEngine::run_phase). The engine knows nothing of schedules, phases of a benchmark or
/// sessions: it asks for the next request due and sends it. Implementations are shared by all the
/// engine's worker threads: every method must be thread-safe, and next() should not block (the
/// schedule's queue claims with one compare-and-swap).
class RequestSource {
 public:
  virtual ~RequestSource() = default;

  /// The run-clock time the phase started: a worker's slots count as free from then on.
  virtual core::Nanos phase_start() const = 0;
  /// The phase its requests are measured in (workers read their CPU clock in measure phases).
  virtual core::Phase phase() const = 0;
  /// True when done() needs each record's answer_text (multi-turn histories).
  virtual bool wants_answers() const { return false; }

  /// Claims the next request due at `now` into `request` and returns true. `slot_freed` is when
  /// the worker's free slot became free (kNoSlotWait without a concurrency limit): the request's
  /// `scheduled` stamp is the later of its due time and `slot_freed`. Otherwise returns false
  /// with `next_due` the earliest moment a known request becomes due (kNever: none known yet) and
  /// `finished` true when no request will ever come again.
  virtual bool next(core::Nanos now, core::Nanos slot_freed, SourcedRequest& request,
                    core::Nanos& next_due, bool& finished) = 0;
  /// A request handed out by next() ended for good (after its retries), its record final.
  virtual void done(const core::RequestRecord& record) { (void)record; }
  /// No request is handed out after this call (cancel, SIGINT). Any thread.
  virtual void stop() = 0;

  /// `slot_freed` when the worker has no slot to wait for.
  static constexpr core::Nanos kNoSlotWait = std::numeric_limits<core::Nanos>::min();
};

/// The simplest source: `count` requests all due at `start`, request i served by spec and body
/// (i % specs.size()) with record id i, in one phase, closed loop. For probes and tests; the
/// vectors outlive the source. Lock-free.
class ImmediateSource final : public RequestSource {
 public:
  ImmediateSource(const std::vector<core::RequestSpec>& specs,
                  const std::vector<std::string>& bodies, std::size_t count, core::Nanos start,
                  core::Phase phase = core::Phase::kMeasure)
      : specs_(specs), bodies_(bodies), count_(count), start_(start), phase_(phase) {}

  core::Nanos phase_start() const override { return start_; }
  core::Phase phase() const override { return phase_; }
  bool next(core::Nanos, core::Nanos slot_freed, SourcedRequest& request, core::Nanos& next_due,
            bool& finished) override {
    next_due = core::kNever;
    const std::size_t i = next_.fetch_add(1, std::memory_order_acq_rel);
    if (i >= count_ || specs_.empty() || stopped_.load(std::memory_order_relaxed)) {
      finished = true;
      return false;
    }
    request = SourcedRequest{};
    request.spec = &specs_[i % specs_.size()];
    request.body = &bodies_[i % specs_.size()];
    request.id = i;
    request.phase = phase_;
    request.due = start_;
    request.scheduled = std::max(start_, slot_freed);
    return true;
  }
  void stop() override { stopped_.store(true, std::memory_order_relaxed); }

 private:
  const std::vector<core::RequestSpec>& specs_;
  const std::vector<std::string>& bodies_;
  const std::size_t count_;
  const core::Nanos start_;
  const core::Phase phase_;
  std::atomic<std::size_t> next_{0};
  std::atomic<bool> stopped_{false};
};

}  // namespace tokenbench::client
