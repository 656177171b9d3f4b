#include "tokenbench/metrics/vllm_peaks.h"

#include <algorithm>

#include "tokenbench/metrics/peer_views.h"

namespace tokenbench::metrics {
namespace {

using core::kNever;
using core::Nanos;

constexpr Nanos kSecond = 1'000'000'000;
constexpr Nanos kStep = 10'000'000;  // 10 ms

// Where vLLM's latency ends: the last chunk with content (a [DONE] or usage chunk excluded).
Nanos end_of(const core::RequestRecord& r) {
  return r.last_token != kNever ? r.last_token : r.done;
}

}  // namespace

VllmPeaksBuilder::VllmPeaksBuilder(std::size_t request_limit, std::size_t chunk_limit)
    : request_limit_(request_limit), chunk_limit_(chunk_limit) {}

bool VllmPeaksBuilder::counts(const core::RequestRecord& r) {
  return counted_by_peers(r) && r.sent != kNever && end_of(r) != kNever;
}

void VllmPeaksBuilder::add(const core::RequestRecord& r) {
  if (!counts(r)) return;
  const Nanos end = end_of(r);
  min_start_ = min_start_ == kNever ? r.sent : std::min(min_start_, r.sent);
  max_end_ = max_end_ == kNever ? end : std::max(max_end_, end);
  peak_counted_ = std::max(peak_counted_, r.in_flight);
  if (exact_ &&
      (spans_.size() >= request_limit_ || chunks_.size() + r.chunks.size() > chunk_limit_)) {
    to_steps();
  }
  if (exact_) {
    spans_.emplace_back(r.sent, end);
    for (const core::ChunkStamp& c : r.chunks) chunks_.push_back(c.t);
    return;
  }
  for (const core::ChunkStamp& c : r.chunks) count_step(c.t);
}

void VllmPeaksBuilder::count_step(Nanos t) {
  if (t < 0) return;
  const auto step = static_cast<std::size_t>(t / kStep);
  if (step >= steps_.size()) steps_.resize(step + 1, 0);
  ++steps_[step];
}

void VllmPeaksBuilder::to_steps() {
  exact_ = false;
  for (const Nanos t : chunks_) count_step(t);
  chunks_ = {};
  spans_ = {};
}

VllmPeaks VllmPeaksBuilder::finish() const {
  VllmPeaks p;
  p.exact = exact_;
  if (min_start_ == kNever) return p;
  // vLLM's buckets: int(t - min_start) seconds, ceil(max_end - min_start) + 1 of them.
  const auto seconds =
      static_cast<std::size_t>((max_end_ - min_start_ + kSecond - 1) / kSecond) + 1;
  std::vector<std::int64_t> per_second(seconds, 0);
  const auto bucket = [&](Nanos t, std::int64_t n) {
    if (t < min_start_) return;
    const auto s = static_cast<std::size_t>((t - min_start_) / kSecond);
    if (s < seconds) per_second[s] += n;
  };
  if (exact_) {
    for (const Nanos t : chunks_) bucket(t, 1);
    // The sweep over half-open [send, end): an end at an instant goes before a send at it.
    std::vector<std::pair<Nanos, int>> events;
    events.reserve(spans_.size() * 2);
    for (const auto& [send, end] : spans_) {
      events.emplace_back(send, 1);
      events.emplace_back(end, -1);
    }
    std::sort(events.begin(), events.end());
    std::int64_t now = 0;
    for (const auto& [t, delta] : events) {
      now += delta;
      p.max_concurrent_requests = std::max(p.max_concurrent_requests, now);
    }
  } else {
    for (std::size_t i = 0; i < steps_.size(); ++i) {
      // A step begun before the first send counts from it.
      if (steps_[i] > 0) bucket(std::max(static_cast<Nanos>(i) * kStep, min_start_), steps_[i]);
    }
    p.max_concurrent_requests = peak_counted_;
  }
  p.max_output_tokens_per_s =
      static_cast<double>(*std::max_element(per_second.begin(), per_second.end()));
  return p;
}

}  // namespace tokenbench::metrics
