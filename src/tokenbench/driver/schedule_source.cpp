#include "tokenbench/driver/schedule_source.h"

#include <algorithm>

namespace tokenbench::driver {

bool ScheduleSource::next(core::Nanos now, core::Nanos slot_freed, client::SourcedRequest& request,
                          core::Nanos& next_due, bool& finished) {
  std::size_t index = 0;
  core::Nanos due = 0;
  while (true) {
    if (!queue_.peek(now, index, due)) {
      next_due = core::kNever;
      finished = true;
      return false;
    }
    if (due > now) {
      next_due = due;
      finished = false;
      return false;
    }
    if (!work_.feed->ready(index)) {
      if (work_.feed->failed()) {  // Benchmark rethrows its error once the phase is over
        queue_.stop();
        continue;
      }
      work_.feed->late(index);
      next_due = now + kFeedRetry;
      finished = false;
      return false;
    }
    if (queue_.try_claim(index)) break;  // otherwise another worker took it; look again
  }
  const core::Nanos scheduled = std::max(due, slot_freed);
  std::shared_ptr<const Prepared> made = work_.feed->take(index);
  request = client::SourcedRequest{};
  request.spec = &made->spec;
  request.body = &made->body;
  request.hold = std::move(made);
  request.id = work_.id_base + index * work_.id_stride;
  request.phase = index < work_.drop_count || scheduled < work_.drop_before ? core::Phase::kDropped
                                                                            : work_.phase;
  request.nonstream_sample = work_.nonstream(index);
  request.due = due;
  request.intended = work_.open_loop ? due : core::kNever;
  request.scheduled = scheduled;
  return true;
}

}  // namespace tokenbench::driver
