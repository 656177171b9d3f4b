#pragma once

#include <optional>
#include <string>
#include <vector>

#include "tokenbench/core/request.h"

namespace tokenbench::metrics {

/// Every interval here is a two-sided 95% confidence interval.
inline constexpr double kConfidence = 0.95;

/// A two-sided confidence interval around an estimate. `lo` may be -inf and `hi` +inf when the
/// sample is too small to bound that side at the confidence asked for.
struct Interval {
  double estimate = 0;
  double lo = 0;
  double hi = 0;

  /// True when the two intervals share a point (neither lies wholly above the other).
  bool overlaps(const Interval& other) const { return lo <= other.hi && other.lo <= hi; }
  /// True when `x` lies inside [lo, hi].
  bool contains(double x) const { return lo <= x && x <= hi; }
};

/// The distribution-free confidence interval of the q-quantile (q in (0, 1)) of `values` (any
/// order), from order statistics (percentile.h's quantile_ci at 1 - kConfidence); `estimate` is
/// the numpy-linear quantile. Nullopt for an empty sample.
std::optional<Interval> quantile_interval(std::vector<double> values, double q);

/// The mean of `samples` and their sample standard deviation (divided by n - 1): the mean NaN
/// without any, the deviation NaN with fewer than two.
struct MeanSd {
  double mean;
  double sd;
};
MeanSd mean_and_sd(const std::vector<double>& samples);

/// The confidence interval of a mean from `samples` (at least two): mean +- t(n-1) * sd / sqrt(n),
/// Student's t. For run-level figures over repeats of a probe, and batch means.
std::optional<Interval> mean_interval(const std::vector<double>& samples);

/// The confidence interval of the measure phase's request throughput (successful requests per
/// second) by batch means: the phase (first scheduled to last done) is cut into `batches` equal
/// windows (fewer when the phase is short: at least 0.5 s each), each window's completions per
/// second is one sample, and the interval is mean_interval of those rates around completed /
/// duration (its bottom at least 0). Nullopt when fewer than two windows fit or nothing completed.
std::optional<Interval> throughput_interval(const std::vector<core::RequestRecord>& records,
                                            int batches = 20);

/// The per-request samples of a summary figure named as figures.h names them ("ttft_ms",
/// "tpot_ms", "e2el_ms"), over the successful measure-phase requests; empty for any other name.
std::vector<double> per_request_samples(const std::vector<core::RequestRecord>& records,
                                        const std::string& distribution);

}  // namespace tokenbench::metrics
