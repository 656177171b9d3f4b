#include "tokenbench/metrics/streaming_distribution.h"

#include <algorithm>
#include <cmath>

#include "tokenbench/metrics/percentile.h"

namespace tokenbench::metrics {

StreamingDistribution::StreamingDistribution(std::size_t exact_limit, double relative_error)
    : exact_limit_(exact_limit), exact_(exact_limit > 0), sketch_(relative_error) {}

void StreamingDistribution::drop_values() {
  exact_ = false;
  sorted_ = true;
  std::vector<double>().swap(values_);  // gives the memory back
}

void StreamingDistribution::add(double value) {
  sketch_.add(value);
  if (!exact_ || !std::isfinite(value)) return;
  if (values_.size() >= exact_limit_) {
    drop_values();
    return;
  }
  values_.push_back(value);
  sorted_ = false;
}

void StreamingDistribution::merge(const StreamingDistribution& other) {
  if (&other == this) {
    // NOLINTNEXTLINE(performance-unnecessary-copy-initialization): merge writes what it reads
    const StreamingDistribution copy = other;
    merge(copy);
    return;
  }
  sketch_.merge(other.sketch_);  // throws first when the relative errors differ
  if (!exact_) return;
  if (!other.exact_ || values_.size() + other.values_.size() > exact_limit_) {
    drop_values();
    return;
  }
  values_.insert(values_.end(), other.values_.begin(), other.values_.end());
  sorted_ = sorted_ && other.values_.empty();
}

double StreamingDistribution::quantile(double p) const {
  if (!exact_) return sketch_.quantile(p);
  if (!sorted_) {
    std::sort(values_.begin(), values_.end());
    sorted_ = true;
  }
  return percentile_sorted(values_, p);
}

Distribution make_distribution(const StreamingDistribution& d,
                               std::span<const double> percentiles) {
  if (d.exact()) {
    return make_distribution(std::vector<double>(d.values().begin(), d.values().end()),
                             percentiles);
  }
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
