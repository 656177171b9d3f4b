#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "tokenbench/client/request_source.h"
#include "tokenbench/core/clock.h"
#include "tokenbench/core/request.h"
#include "tokenbench/driver/request_feed.h"
#include "tokenbench/load/nonstream_sample.h"
#include "tokenbench/load/work_queue.h"

namespace tokenbench::driver {

/// The requests of one single-turn phase. Schedule index i is served by the request `feed` made
/// for it; its record id is id_base + i * id_stride. The feed outlives the phase. Plain data.
struct PhaseWork {
  RequestFeed* feed = nullptr;
  core::Phase phase = core::Phase::kMeasure;
  std::uint64_t id_base = 0;
  /// Targets compared each on its own schedule: target t of T numbers its requests t, t + T, ...,
  /// the ids one shared schedule would give them.
  std::uint64_t id_stride = 1;
  /// True when the queue follows an arrival schedule (--request-rate): records then keep the
  /// schedule's due time as RequestRecord::intended.
  bool open_loop = false;
  /// Requests with a schedule index below drop_count, or scheduled before drop_before, are
  /// recorded with Phase::kDropped instead of `phase` (--drop-first).
  std::size_t drop_count = 0;
  core::Nanos drop_before = 0;
  /// --nonstream-sample: schedule index i is sent non-streamed (its feed makes a body with stream
  /// false) when its prompt (i / per_prompt) modulo sample_prompts is one of
  /// load::nonstream_pick's `sample_count` of them. 0: none.
  std::size_t sample_count = 0;
  std::size_t sample_prompts = 0;
  std::size_t per_prompt = 1;

  /// True when schedule index `index` is one of the non-streamed sample.
  bool nonstream(std::size_t index) const {
    return sample_count > 0 && sample_prompts > 0 &&
           load::nonstream_pick((index / per_prompt) % sample_prompts, sample_prompts,
                                sample_count);
  }
};

/// A single-turn phase's requests for the engine's workers: the schedule's indices as `queue`
/// makes them due (peek, then claim with one compare-and-swap: lock-free), each the request its
/// feed made, with the id and phase `work` says. An index due before the feed made it is left
/// for a moment (the worker looks again kFeedRetry later) and counted late. The queue and the
/// feed outlive the source.
class ScheduleSource final : public client::RequestSource {
 public:
  ScheduleSource(load::WorkQueue& queue, PhaseWork work) : queue_(queue), work_(work) {}

  core::Nanos phase_start() const override { return queue_.phase_start(); }
  core::Phase phase() const override { return work_.phase; }
  bool next(core::Nanos now, core::Nanos slot_freed, client::SourcedRequest& request,
            core::Nanos& next_due, bool& finished) override;
  void stop() override { queue_.stop(); }

  /// How soon a worker looks again at a due index its feed has not made yet.
  static constexpr core::Nanos kFeedRetry = 200'000;

 private:
  load::WorkQueue& queue_;
  const PhaseWork work_;
};

}  // namespace tokenbench::driver
