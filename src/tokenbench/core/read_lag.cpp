#include "tokenbench/core/read_lag.h"

#include <algorithm>
#include <bit>
#include <cmath>

namespace tokenbench::core {

std::size_t ReadLagHistogram::index_of(Nanos v) {
  const auto u = static_cast<std::uint64_t>(v);
  if (u < kSub) return static_cast<std::size_t>(u);
  const int exponent = std::min(static_cast<int>(std::bit_width(u)) - 1, kMaxExponent);
  if (exponent == kMaxExponent && u >= (std::uint64_t{2} << kMaxExponent)) return kBuckets - 1;
  const std::uint64_t sub = (u >> (exponent - kSubBits)) & (kSub - 1);
  return kSub + static_cast<std::size_t>(exponent - kSubBits) * kSub +
         static_cast<std::size_t>(sub);
}

Nanos ReadLagHistogram::lower_edge(std::size_t index) {
  if (index < kSub) return static_cast<Nanos>(index);
  const std::size_t exponent = (index - kSub) / kSub + kSubBits;
  const std::size_t sub = (index - kSub) % kSub;
  return static_cast<Nanos>((kSub + sub) << (exponent - kSubBits));
}

Nanos ReadLagHistogram::upper_edge(std::size_t index) {
  if (index < kSub) return static_cast<Nanos>(index);
  const std::size_t exponent = (index - kSub) / kSub + kSubBits;
  return lower_edge(index) + static_cast<Nanos>(std::size_t{1} << (exponent - kSubBits)) - 1;
}

void ReadLagHistogram::merge(const ReadLagHistogram& other) {
  for (std::size_t i = 0; i < kBuckets; ++i) buckets_[i] += other.buckets_[i];
  count_ += other.count_;
  max_ = std::max(max_, other.max_);
}

void ReadLagHistogram::set_bucket(std::size_t index, std::uint64_t n) {
  count_ = count_ - buckets_[index] + n;
  buckets_[index] = n;
}

Nanos ReadLagHistogram::quantile(double q) const {
  if (count_ == 0) return 0;
  const double wanted = std::ceil(std::clamp(q, 0.0, 1.0) * static_cast<double>(count_));
  const std::uint64_t rank = std::max<std::uint64_t>(1, static_cast<std::uint64_t>(wanted));
  std::uint64_t seen = 0;
  for (std::size_t i = 0; i < kBuckets; ++i) {
    seen += buckets_[i];
    if (seen >= rank) return std::min(upper_edge(i), max_);
  }
  return max_;
}

std::uint64_t ReadLagHistogram::count_above(Nanos threshold) const {
  if (threshold < 0) return count_;
  // The threshold's own bucket counts only when some of it may lie above the threshold.
  const std::size_t own = index_of(threshold);
  std::uint64_t n = 0;
  for (std::size_t i = upper_edge(own) <= threshold ? own + 1 : own; i < kBuckets; ++i) {
    n += buckets_[i];
  }
  return n;
}

ReadLagWindow window_of(const ReadLagHistogram& h, Nanos end) {
  return {end, h.count(), h.quantile(0.50), h.quantile(0.99), h.max()};
}

}  // namespace tokenbench::core
