#pragma once

#include <atomic>
#include <cstddef>

#include "tokenbench/core/clock.h"
#include "tokenbench/load/arrival_schedule.h"

namespace tokenbench::load {

/// The requests of one phase, handed out in schedule order to whichever worker has a free slot.
/// Lock-free: a worker peeks at the next index and claims it with one compare-and-swap, so no
/// request is sent twice and total in-flight requests never exceed the sum of the workers' slots.
/// All methods are safe to call from any thread; the schedule must outlive the queue.
class WorkQueue {
 public:
  /// `phase_start` is the run-clock time the schedule's offsets count from; no request becomes due
  /// at or after `deadline` (kNever: no deadline).
  WorkQueue(const ArrivalSchedule& schedule, core::Nanos phase_start,
            core::Nanos deadline = core::kNever)
      : schedule_(schedule), phase_start_(phase_start), deadline_(deadline) {}

  /// The next unclaimed request and when it is due (run-clock time). False when the phase has no
  /// more requests: the schedule is exhausted, or `now` / the due time reached the deadline.
  bool peek(core::Nanos now, std::size_t& index, core::Nanos& due) const {
    const std::size_t i = next_.load(std::memory_order_acquire);
    if (i >= schedule_.size() || stopped_.load(std::memory_order_relaxed)) return false;
    due = phase_start_ + schedule_.offset(i);
    if (deadline_ != core::kNever && (due >= deadline_ || now >= deadline_)) return false;
    index = i;
    return true;
  }

  /// Claims `index` (as returned by peek). False when another worker took it first.
  bool try_claim(std::size_t index) {
    std::size_t expected = index;
    return next_.compare_exchange_strong(expected, index + 1, std::memory_order_acq_rel);
  }

  /// No request is handed out after this call (e.g. on SIGINT).
  void stop() { stopped_.store(true, std::memory_order_relaxed); }

  /// Requests claimed so far.
  std::size_t claimed() const { return next_.load(std::memory_order_acquire); }

  core::Nanos phase_start() const { return phase_start_; }

 private:
  const ArrivalSchedule& schedule_;
  const core::Nanos phase_start_;
  const core::Nanos deadline_;
  std::atomic<std::size_t> next_{0};
  std::atomic<bool> stopped_{false};
};

}  // namespace tokenbench::load
