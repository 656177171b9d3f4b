#include "tokenbench/history/change_points.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <vector>

namespace tokenbench::history {
namespace {

struct Segment {
  std::size_t begin = 0;
  std::size_t end = 0;  // one past
};

// The best split over every segment: (segment index, split), statistic 0 when none can split.
std::pair<std::size_t, Split> best_over(std::span<const double> x,
                                        const std::vector<Segment>& segments,
                                        std::size_t min_segment) {
  std::pair<std::size_t, Split> best{0, {}};
  for (std::size_t s = 0; s < segments.size(); ++s) {
    const Segment& seg = segments[s];
    const Split split = best_split(x.subspan(seg.begin, seg.end - seg.begin), min_segment);
    if (split.index != 0 && split.statistic > best.second.statistic) best = {s, split};
  }
  return best;
}

}  // namespace

Split best_split(std::span<const double> x, std::size_t min_segment) {
  const std::size_t n = x.size();
  min_segment = std::max<std::size_t>(min_segment, 2);
  if (n < 2 * min_segment) return {};
  // to[k][i]: the sum of |x_k - x_j| over j < i, so that every sum over a block of pairs is a
  // difference of two entries, and Q(tau, kappa) costs O(1) after O(n^2).
  std::vector<double> to((n + 1) * n);
  const auto at = [&](std::size_t k, std::size_t i) -> double& { return to[k * (n + 1) + i]; };
  for (std::size_t k = 0; k < n; ++k) {
    for (std::size_t i = 0; i < n; ++i) at(k, i + 1) = at(k, i) + std::abs(x[k] - x[i]);
  }
  Split best;
  double within_left = 0;  // sum over pairs in [0, tau)
  for (std::size_t tau = 0; tau + min_segment <= n; ++tau) {
    if (tau >= min_segment) {
      // Y = [tau, kappa), grown one point at a time: its pairs and its pairs with X.
      const double left = static_cast<double>(tau);
      double within_right = 0;
      double between = 0;
      for (std::size_t kappa = tau; kappa < n; ++kappa) {
        within_right += at(kappa, kappa) - at(kappa, tau);
        between += at(kappa, tau);
        const std::size_t m = kappa + 1 - tau;
        if (m < min_segment) continue;
        const double right = static_cast<double>(m);
        const double e = 2.0 / (left * right) * between - within_left / (left * (left - 1) / 2) -
                         within_right / (right * (right - 1) / 2);
        const double q = left * right / (left + right) * e;
        if (best.index == 0 || q > best.statistic) best = {tau, q};
      }
    }
    within_left += at(tau, tau);  // point tau joins X
  }
  return best;
}

std::vector<ChangePoint> e_divisive(std::span<const double> series,
                                    const ChangePointOptions& options) {
  const std::size_t n = series.size();
  std::vector<Segment> segments{{0, n}};
  std::vector<ChangePoint> found;
  std::mt19937_64 rng(options.seed);
  std::vector<double> shuffled;
  while (true) {
    const auto [s, split] = best_over(series, segments, options.min_segment);
    if (split.index == 0) break;
    // The permutation test: how often does the best split of a series with each segment's
    // values shuffled (no change inside any segment) reach the observed statistic?
    int as_large = 0;
    shuffled.assign(series.begin(), series.end());
    for (int r = 0; r < options.permutations; ++r) {
      for (const Segment& seg : segments) {
        std::shuffle(shuffled.begin() + static_cast<std::ptrdiff_t>(seg.begin),
                     shuffled.begin() + static_cast<std::ptrdiff_t>(seg.end), rng);
      }
      if (best_over(shuffled, segments, options.min_segment).second.statistic >= split.statistic) {
        ++as_large;
      }
    }
    const double p = (as_large + 1.0) / (options.permutations + 1.0);
    if (p > options.significance) break;
    const Segment seg = segments[s];
    const std::size_t at = seg.begin + split.index;
    segments[s] = {seg.begin, at};
    segments.insert(segments.begin() + static_cast<std::ptrdiff_t>(s) + 1, {at, seg.end});
    found.push_back({at, split.statistic, p, 0, 0});
  }
  std::sort(found.begin(), found.end(),
            [](const ChangePoint& a, const ChangePoint& b) { return a.index < b.index; });
  // The means on either side, between neighbouring change points.
  const auto mean = [&](std::size_t b, std::size_t e) {
    return std::accumulate(series.begin() + static_cast<std::ptrdiff_t>(b),
                           series.begin() + static_cast<std::ptrdiff_t>(e), 0.0) /
           static_cast<double>(e - b);
  };
  for (std::size_t i = 0; i < found.size(); ++i) {
    const std::size_t b = i == 0 ? 0 : found[i - 1].index;
    const std::size_t e = i + 1 == found.size() ? n : found[i + 1].index;
    found[i].mean_before = mean(b, found[i].index);
    found[i].mean_after = mean(found[i].index, e);
  }
  return found;
}

}  // namespace tokenbench::history
