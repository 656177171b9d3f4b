#pragma once

// Change points of a noisy series of benchmark results: E-Divisive means (Matteson and James,
// "A Nonparametric Approach for Multiple Change Point Analysis of Multivariate Data", JASA
// 2014), the method MongoDB's performance CI and Hunter/Otava use (docs/HISTORY.md, "Change
// points", for the parameters and failure modes).
//
// Hierarchical: the best split tau of each segment maximises, over tau and the end kappa of the
// part after it (X = x[0, tau), Y = x[tau, kappa), m = kappa - tau), the divergence statistic
//   Q(tau, kappa) = tau m / (tau + m) * (2/(tau m) sum|x_i - y_j|
//                                        - 1/C(tau,2) sum|x_i - x_k| - 1/C(m,2) sum|y_j - y_k|)
// (alpha = 1; letting kappa end before the segment does finds a short excursion, a regression
// and its recovery, that a split against the whole rest would blur); the best split over all
// segments is kept when a permutation test (the values shuffled within each segment) gives it a
// p-value at most `significance`; repeat until none is.

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace tokenbench::history {

struct ChangePointOptions {
  /// The permutation test's level: the chance that a series without any change gets a change
  /// point (the first split's false-positive rate).
  double significance = 0.01;
  int permutations = 199;       ///< so that p-values are multiples of 1/200
  std::size_t min_segment = 3;  ///< no segment shorter than this (points)
  std::uint64_t seed = 1;       ///< the permutations' seed: the answer is deterministic
};

struct ChangePoint {
  std::size_t index = 0;  ///< the first point after the change
  double statistic = 0;   ///< Q at the split
  double p_value = 1;
  double mean_before = 0;  ///< the means of the segments on either side (final segmentation)
  double mean_after = 0;
};

/// The change points of `series`, in order of index. Fewer than 2 * min_segment points: none.
std::vector<ChangePoint> e_divisive(std::span<const double> series,
                                    const ChangePointOptions& options = {});

/// The best split of `x` (index of the first point of its second part) and its Q; index 0
/// when `x` is shorter than 2 * min_segment. Exposed for tests.
struct Split {
  std::size_t index = 0;
  double statistic = 0;
};
Split best_split(std::span<const double> x, std::size_t min_segment);

}  // namespace tokenbench::history
