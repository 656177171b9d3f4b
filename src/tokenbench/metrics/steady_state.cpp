#include "tokenbench/metrics/steady_state.h"

#include <algorithm>
#include <cmath>

namespace tokenbench::metrics {
namespace {

double median_of(std::vector<double> v) {
  if (v.empty()) return 0;
  const auto mid = v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2);
  std::nth_element(v.begin(), mid, v.end());
  return *mid;
}

constexpr std::size_t kMinBuckets = 5;
constexpr double kReach = 0.9;     // of the target in flight
constexpr double kStable = 0.10;   // output within 10% of the median
constexpr std::size_t kAhead = 3;  // buckets whose mean output must be stable

}  // namespace

std::size_t SteadyStateBuilder::bucket_of(core::Nanos t) {
  if (origin_ < 0) origin_ = t;
  if (t < origin_) t = origin_;  // a stamp before the first seen (records end out of order)
  auto i = static_cast<std::size_t>((t - origin_) / width_);
  while (i >= kMaxBuckets) {
    widen();
    i = static_cast<std::size_t>((t - origin_) / width_);
  }
  if (i >= output_.size()) {
    output_.resize(i + 1, 0.0);
    in_flight_delta_.resize(i + 1, 0);
  }
  return i;
}

void SteadyStateBuilder::widen() {
  // Pairs of buckets become one twice as wide: the deltas and tokens add up.
  const std::size_t n = (output_.size() + 1) / 2;
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t a = 2 * i, b = 2 * i + 1;
    output_[i] = output_[a] + (b < output_.size() ? output_[b] : 0.0);
    in_flight_delta_[i] =
        in_flight_delta_[a] + (b < in_flight_delta_.size() ? in_flight_delta_[b] : 0);
  }
  output_.resize(n);
  in_flight_delta_.resize(n);
  width_ *= 2;
}

void SteadyStateBuilder::add(const core::RequestRecord& r) {
  if (r.phase != core::Phase::kMeasure || r.retried || r.sent == core::kNever ||
      r.done == core::kNever) {
    return;
  }
  if (origin_ < 0) origin_ = r.sent - r.sent % kFirstWidth;
  // Each index is taken after the stamps before it: a widening moves the buckets.
  ++in_flight_delta_[bucket_of(r.sent)];
  --in_flight_delta_[bucket_of(r.done)];
  if (!r.chunks.empty()) {
    for (const auto& c : r.chunks) output_[bucket_of(c.t)] += c.tokens;
  } else if (r.ok()) {
    output_[bucket_of(r.done)] += static_cast<double>(r.output_tokens);
  }
}

std::optional<SteadyWindow> SteadyStateBuilder::finish() const {
  const std::size_t n = output_.size();
  if (n < kMinBuckets) return std::nullopt;
  // The in-flight count at each bucket: the running sum of its deltas, at the bucket's end.
  std::vector<double> level(n);
  std::int64_t sum = 0;
  for (std::size_t i = 0; i < n; ++i) {
    sum += in_flight_delta_[i];
    level[i] = static_cast<double>(sum);
  }
  double target = max_concurrency_ > 0 ? max_concurrency_ : 0;
  if (target == 0) {
    target = median_of(std::vector<double>(level.begin() + static_cast<std::ptrdiff_t>(n / 4),
                                           level.begin() + static_cast<std::ptrdiff_t>(3 * n / 4)));
  }
  if (!(target > 0)) return std::nullopt;
  std::size_t first = n, last = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (level[i] >= kReach * target) {
      first = std::min(first, i);
      last = i;
    }
  }
  if (first == n || last < first + kMinBuckets - 1) return std::nullopt;
  std::vector<double> full(output_.begin() + static_cast<std::ptrdiff_t>(first),
                           output_.begin() + static_cast<std::ptrdiff_t>(last + 1));
  const double rate = median_of(full);
  std::size_t start = first;
  while (start + kAhead <= last) {
    double mean = 0;
    for (std::size_t k = start; k < start + kAhead; ++k) mean += output_[k];
    mean /= kAhead;
    if (std::abs(mean - rate) <= kStable * rate) break;
    ++start;
  }
  if (last < start + kMinBuckets - 1) return std::nullopt;
  return SteadyWindow{origin_ + static_cast<core::Nanos>(start) * width_,
                      origin_ + static_cast<core::Nanos>(last + 1) * width_, target};
}

std::string SteadyStateBuilder::why_none() const {
  if (finish()) return "";
  if (output_.size() < kMinBuckets) return "the run is too short to have one";
  return "the requests in flight never held near their target long enough (the run may be "
         "too short, or its load never steady)";
}

}  // namespace tokenbench::metrics
