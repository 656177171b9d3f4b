#pragma once

#include <cstddef>
#include <limits>
#include <span>
#include <utility>
#include <vector>

namespace tokenbench::metrics {

/// The value reported for a figure that is undefined (no samples): NaN here, null in JSON, "-" on
/// the console.
inline constexpr double kUndefined = std::numeric_limits<double>::quiet_NaN();

/// True when `v` holds a value (is not the kUndefined NaN).
inline bool is_defined(double v) { return v == v; }

/// The p-th percentile (p in [0, 100]) of ascending-sorted `sorted`, interpolated linearly exactly
/// as numpy's default `np.percentile(a, p)` (method "linear", the one vLLM reports). kUndefined
/// for an empty input. Throws std::invalid_argument when p is outside [0, 100] or NaN.
double percentile_sorted(std::span<const double> sorted, double p);

/// As percentile_sorted, for values in any order (they are copied and sorted).
double percentile(std::vector<double> values, double p);

/// Arithmetic mean; kUndefined for an empty input.
double mean(std::span<const double> values);

/// Population standard deviation (ddof = 0, as `np.std`); kUndefined for an empty input.
double population_std(std::span<const double> values);

/// Summary statistics of one figure over a sample. Plain data.
struct Distribution {
  std::size_t count = 0;
  double mean = kUndefined;
  double std = kUndefined;  ///< population standard deviation (ddof = 0)
  double min = kUndefined;
  double max = kUndefined;
  double median = kUndefined;
  /// (p, value) pairs, ascending and unique in p. Values are kUndefined when count is 0.
  std::vector<std::pair<double, double>> percentiles;

  /// The value at percentile p if p was requested, else kUndefined.
  double at(double p) const;
};

/// Builds the distribution of `values` (any order) at the given percentiles (any order;
/// duplicates are dropped). Throws std::invalid_argument for a percentile outside [0, 100].
Distribution make_distribution(std::vector<double> values, std::span<const double> percentiles);

}  // namespace tokenbench::metrics
