#pragma once

#include <atomic>
#include <cstddef>

#include "tokenbench/core/clock.h"
#include "tokenbench/load/arrival_schedule.h"

namespace tokenbench::load {

/// One rank's share of a distributed run's schedule (distributed/): the indices i with
/// (i / group) mod stride == first, i.e. whole groups of `group` consecutive indices (a prompt's
/// requests to every target compared) dealt out in turn. The default is the whole schedule.
struct Shard {
  std::size_t first = 0;
  std::size_t stride = 1;
  std::size_t group = 1;

  /// The first index of the share, and the one after `index` (an index of the share).
  std::size_t begin() const { return first * group; }
  std::size_t after(std::size_t index) const {
    return (index + 1) % group != 0 ? index + 1 : index + 1 + (stride - 1) * group;
  }
  /// How many of the indices below `count` are in the share (`count` a multiple of group, or
  /// kUnbounded, returned as it is).
  std::size_t size_of(std::size_t count) const {
    if (count == static_cast<std::size_t>(-1)) return count;
    const std::size_t groups = count / group;
    return (groups > first ? (groups - first + stride - 1) / stride : 0) * group;
  }
};

/// The requests of one phase, handed out in schedule order to whichever worker has a free slot.
/// Lock-free: a worker peeks at the next index and claims it with one compare-and-swap, so no
/// request is sent twice and total in-flight requests never exceed the sum of the workers' slots.
/// All methods are safe to call from any thread; the schedule must outlive the queue.
class WorkQueue {
 public:
  /// `phase_start` is the run-clock time the schedule's offsets count from; no request becomes due
  /// at or after `deadline` (kNever: no deadline).
  /// With a `shard`, the queue hands out only its indices (their own schedule times).
  WorkQueue(const ArrivalSchedule& schedule, core::Nanos phase_start,
            core::Nanos deadline = core::kNever, Shard shard = {})
      : schedule_(schedule),
        phase_start_(phase_start),
        deadline_(deadline),
        shard_(Shard{shard.first, shard.stride == 0 ? 1 : shard.stride,
                     shard.group == 0 ? 1 : shard.group}),
        next_(shard_.begin()) {}

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
    return next_.compare_exchange_strong(expected, shard_.after(index), std::memory_order_acq_rel);
  }

  /// No request is handed out after this call (e.g. on SIGINT).
  void stop() { stopped_.store(true, std::memory_order_relaxed); }

  core::Nanos phase_start() const { return phase_start_; }

 private:
  const ArrivalSchedule& schedule_;
  const core::Nanos phase_start_;
  const core::Nanos deadline_;
  const Shard shard_;
  std::atomic<std::size_t> next_;
  std::atomic<bool> stopped_{false};
};

}  // namespace tokenbench::load
