#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "tokenbench/metrics/percentile.h"
#include "tokenbench/metrics/quantile_sketch.h"

namespace tokenbench::metrics {

/// One figure's distribution, exact while small and a QuantileSketch beyond: every value is kept
/// (a vector of doubles, 8 bytes each) up to `exact_limit` values, with its running sum, min and
/// max. The value that takes the count past `exact_limit` moves the kept values into the sketch
/// and frees them; from then on quantile() answers from the sketch, within relative_error(). The
/// sketch costs nothing while the figure is exact (no log per value). count, sum, mean, stddev,
/// min and max are exact at all times. NaN and +-inf are refused (counted in refused()).
///
/// Memory: at most exact_limit * 8 bytes of values plus the sketch (QuantileSketch's bound).
/// Not thread-safe, not even the const members: quantile() sorts the kept values in place the
/// first time it is called after an add or a merge.
class StreamingDistribution {
 public:
  /// Empty, exact until more than `exact_limit` values (0: a sketch from the start). Throws
  /// std::invalid_argument for a relative error the sketch refuses.
  explicit StreamingDistribution(std::size_t exact_limit,
                                 double relative_error = kDefaultRelativeError);

  /// Counts `value`; NaN and +-inf are refused. Amortized O(1); allocates while exact (the
  /// vector grows) and, once a sketch, only as QuantileSketch::add does.
  void add(double value);
  /// Counts `value` `n` times, as n calls of add(value) would; once a sketch, in one step.
  void add(double value, std::uint64_t n);

  /// Makes room for `n` values in all (at most exact_limit), so that adding them does not grow
  /// the kept values step by step. No effect once a sketch.
  void reserve(std::size_t n);

  /// Adds every value `other` counted. The result stays exact when both are exact and their
  /// union fits this one's exact_limit (the kept values are this one's followed by other's);
  /// otherwise it is a sketch. Throws std::invalid_argument when the relative errors differ.
  void merge(const StreamingDistribution& other);

  /// The p-th percentile (p in [0, 100]): while exact, bit for bit percentile(values, p) of
  /// percentile.h (numpy "linear"); after, QuantileSketch::quantile. kUndefined when empty.
  /// Throws std::invalid_argument when p is outside [0, 100] or NaN.
  double quantile(double p) const;

  /// True while every value is kept and quantile() is exact.
  bool exact() const { return exact_; }
  /// 0 while exact; the sketch's relative error (alpha) after.
  double relative_error() const { return exact_ ? 0.0 : sketch_.relative_error(); }
  /// The most values kept exactly.
  std::size_t exact_limit() const { return exact_limit_; }

  /// The number of values counted.
  std::uint64_t count() const { return exact_ ? values_.size() : sketch_.count(); }
  /// The number of values refused (NaN, +-inf).
  std::uint64_t refused() const { return sketch_.refused(); }
  /// The sum of the values, in the order added (merges add the other's sum); 0 when empty.
  double sum() const { return exact_ ? sum_ : sketch_.sum(); }
  /// sum() / count(); kUndefined when empty.
  double mean() const;
  /// The population standard deviation (ddof = 0: two passes over the kept values while exact,
  /// Welford's after); kUndefined when empty.
  double stddev() const;
  /// The smallest value; kUndefined when empty.
  double min() const;
  /// The largest value; kUndefined when empty.
  double max() const;
  /// The values kept, sorted ascending (in place, as quantile() does); empty once a sketch.
  std::span<const double> sorted_values() const;
  /// A sketch of every value, exact or not (for encoding and merging across ranks): built from
  /// the kept values while exact.
  QuantileSketch sketch() const;

 private:
  void to_sketch();

  std::size_t exact_limit_;
  bool exact_ = true;
  mutable bool sorted_ = true;
  mutable std::vector<double> values_;
  double sum_ = 0.0;  // while exact: the running sum, min and max of values_
  double min_ = 0.0;
  double max_ = 0.0;
  QuantileSketch sketch_;  // while exact: only the refused values
};

/// The Distribution of `d` at `percentiles` (any order; duplicates dropped): while `d` is exact,
/// make_distribution of its values (the same figures, bit for bit); after, the sketch's
/// percentiles, with Distribution::relative_error saying their bound. Throws
/// std::invalid_argument for a percentile outside [0, 100].
Distribution make_distribution(const StreamingDistribution& d, std::span<const double> percentiles);

}  // namespace tokenbench::metrics
