#pragma once

#include <cstddef>
#include <cstdint>

#include "tokenbench/client/api_adapter.h"
#include "tokenbench/core/clock.h"
#include "tokenbench/load/arrival_schedule.h"
#include "tokenbench/load/work_queue.h"

namespace tokenbench::driver {

/// What a driver of units of several calls (SessionDriver's sessions, JobDriver's jobs) needs
/// beside its units. Plain data.
struct UnitOptions {
  core::ApiKind api = core::ApiKind::kOpenAIChat;
  client::BodyOptions body;
  /// --concurrency-unit session (job) with --max-concurrency: at most this many units between
  /// their first call's send and their last call's end (0: no limit on units).
  std::size_t max_units = 0;
  /// The ideal prefix cache's block (--cache-block): each call's prompt blocks are made with it
  /// (core::set_prefix_blocks); 0: none.
  std::int64_t ideal_block = 0;
  /// A distributed run's share (distributed/): units i with i mod stride == first, and call ids
  /// k * stride + first for the k-th call sent, so that ids stay unique across ranks.
  load::Shard shard;
};

/// Whether a driver's next unit may start, and when it is due: the unit numbered `started` of
/// `schedule`, from `phase_start`, none once stopped, at or after `deadline` (kNever: none), or
/// when the schedule is spent. `halted`: stopped, or `now` is past the deadline.
struct UnitStart {
  bool halted = false;
  bool can_start = false;
  core::Nanos due = core::kNever;
};
inline UnitStart unit_start(const load::ArrivalSchedule& schedule, core::Nanos phase_start,
                            core::Nanos deadline, core::Nanos now, std::size_t started,
                            bool stopped) {
  UnitStart s;
  s.halted = stopped || (deadline != core::kNever && now >= deadline);
  s.can_start = !s.halted && started < schedule.size();
  if (s.can_start) {
    s.due = phase_start + schedule.offset(started);
    if (deadline != core::kNever && s.due >= deadline) s.can_start = false;
  }
  return s;
}

}  // namespace tokenbench::driver
