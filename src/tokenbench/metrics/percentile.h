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

/// The 1-based ranks of a distribution-free confidence interval of a quantile.
struct QuantileRanks {
  std::size_t lower = 0;  ///< 0: no lower bound (-inf)
  std::size_t upper = 0;  ///< n + 1: no upper bound (+inf)
};

/// The binomial ranks of an equal-tailed confidence interval of the p-th percentile (p in
/// (0, 100)) of n independent values of one distribution. With B ~ Binomial(n, p / 100), the
/// number of values below the true percentile xi, `lower` is the largest rank with
/// P(B < lower) <= alpha / 2 and `upper` the smallest with P(B >= upper) <= alpha / 2, so the
/// order statistics x_(lower) <= xi <= x_(upper) hold together with probability at least
/// 1 - alpha, whatever the distribution (exactly P(lower <= B < upper) for a continuous one), and
/// each side misses with probability at most alpha / 2. A side that no rank reaches (too few
/// values for that alpha: p99 of 300 values has no upper rank at alpha 0.01) is unbounded.
/// Throws std::invalid_argument when p is outside (0, 100) or alpha outside (0, 1).
QuantileRanks quantile_ci_ranks(std::size_t n, double p, double alpha);

/// The interval of quantile_ci_ranks as values of ascending-sorted `sorted`: {x_(lower),
/// x_(upper)}, -inf or +inf for an unbounded side; {kUndefined, kUndefined} when empty.
std::pair<double, double> quantile_ci(std::span<const double> sorted, double p, double alpha);

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
  /// 0: the percentiles are exact; else the relative error bound of each (a QuantileSketch's:
  /// metrics/streaming_distribution.h). count, mean, std, min and max are exact either way.
  double relative_error = 0;

  /// The value at percentile p if p was requested, else kUndefined.
  double at(double p) const;
};

/// Builds the distribution of `values` (any order) at the given percentiles (any order;
/// duplicates are dropped). Throws std::invalid_argument for a percentile outside [0, 100].
Distribution make_distribution(std::vector<double> values, std::span<const double> percentiles);

/// The same for `values` already sorted ascending.
Distribution make_distribution_sorted(std::span<const double> values,
                                      std::span<const double> percentiles);

}  // namespace tokenbench::metrics
