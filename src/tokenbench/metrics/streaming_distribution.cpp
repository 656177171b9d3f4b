#include "tokenbench/metrics/streaming_distribution.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "tokenbench/metrics/percentile.h"

namespace tokenbench::metrics {

StreamingDistribution::StreamingDistribution(std::size_t exact_limit, double relative_error)
    : exact_limit_(exact_limit), exact_(exact_limit > 0), sketch_(relative_error) {}

void StreamingDistribution::to_sketch() {
  for (double v : values_) sketch_.add(v);
  exact_ = false;
  sorted_ = true;
  std::vector<double>().swap(values_);  // gives the memory back
}

void StreamingDistribution::add(double value) {
  if (!exact_ || !std::isfinite(value)) {
    sketch_.add(value);  // counts a refused value, or a value past the limit
    return;
  }
  if (values_.size() >= exact_limit_) {
    to_sketch();
    sketch_.add(value);
    return;
  }
  if (values_.empty() || value < min_) min_ = value;
  if (values_.empty() || value > max_) max_ = value;
  sum_ += value;
  values_.push_back(value);
  sorted_ = false;
}

void StreamingDistribution::add(double value, std::uint64_t n) {
  // While exact, each copy is kept (the exact answer needs them); a sketch counts them at once.
  while (n > 0 && exact_ && std::isfinite(value)) {
    add(value);
    --n;
  }
  if (n > 0) sketch_.add(value, n);
}

void StreamingDistribution::reserve(std::size_t n) {
  if (exact_) values_.reserve(std::min(n, exact_limit_));
}

void StreamingDistribution::merge(const StreamingDistribution& other) {
  if (&other == this) {
    // NOLINTNEXTLINE(performance-unnecessary-copy-initialization): merge writes what it reads
    const StreamingDistribution copy = other;
    merge(copy);
    return;
  }
  if (other.sketch_.relative_error() != sketch_.relative_error() ||
      other.sketch_.max_buckets() != sketch_.max_buckets()) {
    throw std::invalid_argument("StreamingDistribution::merge: the relative errors differ");
  }
  if (exact_ && other.exact_ && values_.size() + other.values_.size() <= exact_limit_) {
    sketch_.merge(other.sketch_);  // the refused counts (throws when the relative errors differ)
    for (double v : other.values_) {
      if (values_.empty() || v < min_) min_ = v;
      if (values_.empty() || v > max_) max_ = v;
      values_.push_back(v);
    }
    sum_ += other.sum_;
    sorted_ = sorted_ && other.values_.empty();
    return;
  }
  if (exact_) to_sketch();
  sketch_.merge(other.sketch_);  // other's refused values, and its values once a sketch
  for (double v : other.values_) sketch_.add(v);
}

double StreamingDistribution::mean() const {
  if (!exact_) return sketch_.mean();
  return values_.empty() ? kUndefined : sum_ / static_cast<double>(values_.size());
}

double StreamingDistribution::stddev() const {
  return exact_ ? population_std(values_) : sketch_.stddev();
}

double StreamingDistribution::min() const {
  if (!exact_) return sketch_.min();
  return values_.empty() ? kUndefined : min_;
}

double StreamingDistribution::max() const {
  if (!exact_) return sketch_.max();
  return values_.empty() ? kUndefined : max_;
}

QuantileSketch StreamingDistribution::sketch() const {
  QuantileSketch out = sketch_;
  for (double v : values_) out.add(v);
  return out;
}

std::span<const double> StreamingDistribution::sorted_values() const {
  if (!sorted_) {
    std::sort(values_.begin(), values_.end());
    sorted_ = true;
  }
  return values_;
}

double StreamingDistribution::quantile(double p) const {
  if (!exact_) return sketch_.quantile(p);
  return percentile_sorted(sorted_values(), p);
}

Distribution make_distribution(const StreamingDistribution& d,
                               std::span<const double> percentiles) {
  if (d.exact()) return make_distribution_sorted(d.sorted_values(), percentiles);
  std::vector<double> ps(percentiles.begin(), percentiles.end());
  std::sort(ps.begin(), ps.end());
  ps.erase(std::unique(ps.begin(), ps.end()), ps.end());
  Distribution out;
  out.count = static_cast<std::size_t>(d.count());
  out.relative_error = d.relative_error();
  if (out.count > 0) {
    out.mean = d.mean();
    out.std = d.stddev();
    out.min = d.min();
    out.max = d.max();
    out.median = d.quantile(50.0);
  }
  out.percentiles.reserve(ps.size());
  for (double p : ps) out.percentiles.emplace_back(p, d.quantile(p));
  return out;
}

}  // namespace tokenbench::metrics
