#include "tokenbench/metrics/quantile_sketch.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "tokenbench/metrics/percentile.h"

namespace tokenbench::metrics {
namespace {

double checked_alpha(double alpha) {
  if (!(alpha >= 1e-6 && alpha <= 0.5)) {
    throw std::invalid_argument("quantile sketch: relative error " + std::to_string(alpha) +
                                " is outside [1e-6, 0.5]");
  }
  return alpha;
}

std::size_t checked_max_buckets(std::size_t n) {
  if (n < 16 || n > kMaxMaxBuckets) {
    throw std::invalid_argument("quantile sketch: bucket bound " + std::to_string(n) +
                                " is outside [16, " + std::to_string(kMaxMaxBuckets) + "]");
  }
  return n;
}

// numpy's _lerp, as percentile.cpp: exact at both ends.
double lerp(double a, double b, double t) {
  const double diff = b - a;
  if (t >= 0.5) return b - diff * (1.0 - t);
  return a + diff * t;
}

}  // namespace

// ---- Store ----

void QuantileSketch::Store::add(std::int32_t key, std::uint64_t n) {
  if (total_ != 0 && key >= min_key_ && key <= max_key_) {
    counts_[static_cast<std::size_t>(key - offset_)] += n;
    total_ += n;
    return;
  }
  std::uint64_t folded = 0;
  if (total_ == 0) {
    reserve_keys(key, key);
    min_key_ = max_key_ = key;
  } else if (key > max_key_) {
    const std::int64_t floor = std::int64_t{key} - max_buckets_ + 1;
    if (floor > min_key_) {
      // Every key below the new floor is counted at the floor: collapse.
      for (std::int64_t k = min_key_; k <= std::min<std::int64_t>(max_key_, floor - 1); ++k) {
        auto& c = counts_[static_cast<std::size_t>(k - offset_)];
        folded += c;
        c = 0;
      }
      collapsed_ = true;
      min_key_ = static_cast<std::int32_t>(floor);
    }
    reserve_keys(min_key_, key);
    max_key_ = key;
  } else {
    const std::int64_t floor = std::int64_t{max_key_} - max_buckets_ + 1;
    if (key < floor) {
      key = static_cast<std::int32_t>(floor);
      collapsed_ = true;
    }
    reserve_keys(key, max_key_);
    min_key_ = std::min(min_key_, key);
  }
  counts_[static_cast<std::size_t>(min_key_ - offset_)] += folded;
  counts_[static_cast<std::size_t>(key - offset_)] += n;
  total_ += n;
}

// Makes counts_ cover keys lo..hi (hi - lo < max_buckets_), keeping every count; grows by half
// again so that a widening range costs amortized O(1).
void QuantileSketch::Store::reserve_keys(std::int64_t lo, std::int64_t hi) {
  const auto size = static_cast<std::int64_t>(counts_.size());
  if (size != 0 && lo >= offset_ && hi < offset_ + size) return;
  const std::int64_t needed = hi - lo + 1;
  const std::int64_t new_size = std::min(max_buckets_, std::max<std::int64_t>(64, needed * 3 / 2));
  const bool upward = size == 0 || hi >= offset_ + size;
  const std::int64_t new_offset = upward ? lo : hi - new_size + 1;
  std::vector<std::uint64_t> grown(static_cast<std::size_t>(new_size), 0);
  for (std::int64_t i = 0; i < size; ++i) {
    const std::uint64_t c = counts_[static_cast<std::size_t>(i)];
    if (c == 0) continue;
    // Folding left nothing outside [lo, hi].
    grown[static_cast<std::size_t>(offset_ + i - new_offset)] = c;
  }
  counts_.swap(grown);
  offset_ = new_offset;
}

void QuantileSketch::Store::merge(const Store& other) {
  collapsed_ = collapsed_ || other.collapsed_;
  if (other.empty()) return;
  // Highest key first: the store grows once upward, then only downward.
  for (std::int64_t k = other.max_key_; k >= other.min_key_; --k) {
    const std::uint64_t c = other.at(static_cast<std::int32_t>(k));
    if (c != 0) add(static_cast<std::int32_t>(k), c);
  }
}

std::uint64_t QuantileSketch::Store::at(std::int32_t key) const {
  if (total_ == 0 || key < min_key_ || key > max_key_) return 0;
  return counts_[static_cast<std::size_t>(key - offset_)];
}

std::int32_t QuantileSketch::Store::key_at_rank(std::uint64_t rank) const {
  // Walk from the nearer end: a high percentile costs as little as a low one.
  const bool from_highest = rank >= total_ / 2;
  const std::uint64_t target = from_highest ? total_ - 1 - rank : rank;
  std::uint64_t seen = 0;
  const std::int64_t n = std::int64_t{max_key_} - min_key_ + 1;
  for (std::int64_t i = 0; i < n; ++i) {
    const std::int64_t k = from_highest ? max_key_ - i : min_key_ + i;
    seen += counts_[static_cast<std::size_t>(k - offset_)];
    if (seen > target) return static_cast<std::int32_t>(k);
  }
  return from_highest ? min_key_ : max_key_;
}

// ---- QuantileSketch ----

QuantileSketch::QuantileSketch(double relative_error, std::size_t max_buckets)
    : alpha_(checked_alpha(relative_error)),
      max_buckets_(checked_max_buckets(max_buckets)),
      log_gamma_(std::log1p(2.0 * alpha_ / (1.0 - alpha_))),
      inv_log_gamma_(1.0 / log_gamma_),
      min_indexable_(std::numeric_limits<double>::min() * (1.0 + alpha_) / (1.0 - alpha_)),
      positive_(max_buckets_),
      negative_(max_buckets_) {}

std::int32_t QuantileSketch::key(double magnitude) const {
  return static_cast<std::int32_t>(std::ceil(std::log(magnitude) * inv_log_gamma_));
}

double QuantileSketch::representative(std::int32_t key) const {
  return (1.0 + alpha_) * std::exp(static_cast<double>(key - 1) * log_gamma_);
}

void QuantileSketch::add(double value) { add(value, 1); }

void QuantileSketch::add(double value, std::uint64_t n) {
  if (n == 0) return;
  if (!std::isfinite(value)) {
    refused_ += n;
    return;
  }
  const std::uint64_t before = count_;
  count_ += n;
  if (before == 0) {
    min_ = max_ = value;
  } else {
    min_ = std::min(min_, value);
    max_ = std::max(max_, value);
  }
  if (n == 1) {
    sum_ += value;
    const double delta = value - mean_;  // Welford's update
    mean_ += delta / static_cast<double>(count_);
    m2_ += delta * (value - mean_);
  } else {
    // n equal values: Chan's formula with a batch of mean `value` and no spread.
    const auto k = static_cast<double>(n);
    sum_ += value * k;
    const double delta = value - mean_;
    mean_ += delta * k / static_cast<double>(count_);
    m2_ += delta * delta * static_cast<double>(before) * k / static_cast<double>(count_);
  }
  if (value >= min_indexable_) {
    positive_.add(key(value), n);
  } else if (value <= -min_indexable_) {
    negative_.add(key(-value), n);
  } else {
    zeros_ += n;
  }
}

void QuantileSketch::merge(const QuantileSketch& other) {
  if (other.alpha_ != alpha_ || other.max_buckets_ != max_buckets_) {
    throw std::invalid_argument("quantile sketch: cannot merge a sketch of relative error " +
                                std::to_string(other.alpha_) + " and bound " +
                                std::to_string(other.max_buckets_) + " into one of " +
                                std::to_string(alpha_) + " and " + std::to_string(max_buckets_));
  }
  if (&other == this) {
    // NOLINTNEXTLINE(performance-unnecessary-copy-initialization): merge writes what it reads
    const QuantileSketch copy = other;
    merge(copy);
    return;
  }
  refused_ += other.refused_;
  positive_.merge(other.positive_);
  negative_.merge(other.negative_);
  if (other.count_ == 0) return;
  if (count_ == 0) {
    min_ = other.min_;
    max_ = other.max_;
  } else {
    min_ = std::min(min_, other.min_);
    max_ = std::max(max_, other.max_);
  }
  // Chan, Golub and LeVeque's pairwise update of the mean and the sum of squared deviations.
  const auto na = static_cast<double>(count_);
  const auto nb = static_cast<double>(other.count_);
  const double n = na + nb;
  const double delta = other.mean_ - mean_;
  mean_ += delta * (nb / n);
  m2_ += other.m2_ + delta * delta * (na * nb / n);
  count_ += other.count_;
  zeros_ += other.zeros_;
  sum_ += other.sum_;
}

double QuantileSketch::value_at_rank(std::uint64_t rank) const {
  if (rank == 0) return min_;
  if (rank + 1 == count_) return max_;
  const std::uint64_t negatives = negative_.total();
  double v = 0.0;
  if (rank < negatives) {
    // The most negative value is the negative store's highest key.
    v = -representative(negative_.key_at_rank(negatives - 1 - rank));
  } else if (rank >= negatives + zeros_) {
    v = representative(positive_.key_at_rank(rank - negatives - zeros_));
  }
  return std::clamp(v, min_, max_);
}

double QuantileSketch::quantile(double p) const {
  if (!(p >= 0.0 && p <= 100.0)) {
    throw std::invalid_argument("percentile " + std::to_string(p) + " is outside [0, 100]");
  }
  if (count_ == 0) return kUndefined;
  // numpy "linear", as percentile_sorted: virtual index (n - 1) * p / 100.
  const double virtual_index = static_cast<double>(count_ - 1) * (p / 100.0);
  const double below = std::floor(virtual_index);
  const auto lo = static_cast<std::uint64_t>(below);
  const std::uint64_t hi = std::min(lo + 1, count_ - 1);
  const double a = value_at_rank(lo);
  const double b = hi == lo ? a : value_at_rank(hi);
  return std::clamp(lerp(a, b, virtual_index - below), min_, max_);
}

double QuantileSketch::mean() const {
  return count_ == 0 ? kUndefined : sum_ / static_cast<double>(count_);
}
double QuantileSketch::min() const { return count_ == 0 ? kUndefined : min_; }
double QuantileSketch::max() const { return count_ == 0 ? kUndefined : max_; }
double QuantileSketch::variance() const {
  return count_ == 0 ? kUndefined : m2_ / static_cast<double>(count_);
}
double QuantileSketch::sample_variance() const {
  return count_ < 2 ? kUndefined : m2_ / static_cast<double>(count_ - 1);
}
double QuantileSketch::stddev() const { return std::sqrt(variance()); }
double QuantileSketch::sample_stddev() const { return std::sqrt(sample_variance()); }

std::size_t QuantileSketch::memory_bytes() const {
  return sizeof(*this) + positive_.capacity_bytes() + negative_.capacity_bytes();
}

}  // namespace tokenbench::metrics
