#include "tokenbench/driver/per_target_source.h"

#include <algorithm>

namespace tokenbench::driver {

PerTargetSource::PerTargetSource(const std::vector<client::RequestSource*>& sources,
                                 std::size_t limit)
    : limit_(limit) {
  for (client::RequestSource* s : sources) {
    auto lane = std::make_unique<Lane>();
    lane->source = s;
    // Every slot free from the phase's start, as a worker's own slots are.
    if (limit_ > 0) lane->free.assign(limit_, s->phase_start());
    lanes_.push_back(std::move(lane));
  }
}

bool PerTargetSource::next(core::Nanos now, core::Nanos slot_freed, client::SourcedRequest& request,
                           core::Nanos& next_due, bool& finished) {
  next_due = core::kNever;
  bool all_finished = true;
  const std::size_t n = lanes_.size();
  const std::size_t first = turn_.fetch_add(1, std::memory_order_relaxed);
  for (std::size_t k = 0; k < n; ++k) {
    Lane& lane = *lanes_[(first + k) % n];
    if (lane.finished.load(std::memory_order_acquire)) continue;
    core::Nanos freed = slot_freed;
    core::Nanos taken = core::kNever;
    if (limit_ > 0) {
      std::lock_guard<std::mutex> lock(lane.mutex);
      if (lane.free.empty()) {  // every slot busy: a done() frees one
        all_finished = false;
        continue;
      }
      taken = lane.free.front();
      lane.free.pop_front();
      freed = slot_freed == kNoSlotWait ? taken : std::max(slot_freed, taken);
    }
    core::Nanos due = core::kNever;
    bool over = false;
    if (lane.source->next(now, freed, request, due, over)) return true;
    if (limit_ > 0) {
      std::lock_guard<std::mutex> lock(lane.mutex);
      lane.free.push_front(taken);
    }
    if (over) {
      lane.finished.store(true, std::memory_order_release);
      continue;
    }
    all_finished = false;
    if (due != core::kNever && (next_due == core::kNever || due < next_due)) next_due = due;
  }
  finished = all_finished;
  return false;
}

void PerTargetSource::done(const core::RequestRecord& record) {
  const std::size_t t = std::min<std::size_t>(record.endpoint, lanes_.size() - 1);
  Lane& lane = *lanes_[t];
  lane.source->done(record);
  if (limit_ == 0) return;
  const core::Nanos at = record.done != core::kNever ? record.done : record.sent;
  std::lock_guard<std::mutex> lock(lane.mutex);
  // Kept in order, so that the oldest free slot is taken first.
  lane.free.insert(std::upper_bound(lane.free.begin(), lane.free.end(), at), at);
}

void PerTargetSource::stop() {
  for (auto& lane : lanes_) lane->source->stop();
}

}  // namespace tokenbench::driver
