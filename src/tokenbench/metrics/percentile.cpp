#include "tokenbench/metrics/percentile.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace tokenbench::metrics {
namespace {

void check_percentile(double p) {
  if (!(p >= 0.0 && p <= 100.0)) {
    throw std::invalid_argument("percentile " + std::to_string(p) + " is outside [0, 100]");
  }
}

// numpy's _lerp: a + (b - a) * t, computed from the far end when t >= 0.5 so that the result is
// exact at both ends and matches numpy bit for bit.
double lerp(double a, double b, double t) {
  const double diff = b - a;
  if (t >= 0.5) return b - diff * (1.0 - t);
  return a + diff * t;
}

}  // namespace

double percentile_sorted(std::span<const double> sorted, double p) {
  check_percentile(p);
  if (sorted.empty()) return kUndefined;
  const std::size_t n = sorted.size();
  // numpy "linear": virtual index (n - 1) * q with q = p / 100.
  const double q = p / 100.0;
  const double virtual_index = static_cast<double>(n - 1) * q;
  const double below = std::floor(virtual_index);
  const auto lo = static_cast<std::size_t>(below);
  const std::size_t hi = std::min(lo + 1, n - 1);
  const double gamma = virtual_index - below;
  return lerp(sorted[lo], sorted[hi], gamma);
}

double percentile(std::vector<double> values, double p) {
  std::sort(values.begin(), values.end());
  return percentile_sorted(values, p);
}

namespace {

// log P(B = k) for B ~ Binomial(n, q), 0 < q < 1.
double log_binomial_pmf(std::size_t n, std::size_t k, double q) {
  const auto nd = static_cast<double>(n);
  const auto kd = static_cast<double>(k);
  return std::lgamma(nd + 1.0) - std::lgamma(kd + 1.0) - std::lgamma(nd - kd + 1.0) +
         kd * std::log(q) + (nd - kd) * std::log1p(-q);
}

}  // namespace

QuantileRanks quantile_ci_ranks(std::size_t n, double p, double alpha) {
  if (!(p > 0.0 && p < 100.0)) {
    throw std::invalid_argument("percentile " + std::to_string(p) + " is outside (0, 100)");
  }
  if (!(alpha > 0.0 && alpha < 1.0)) {
    throw std::invalid_argument("alpha " + std::to_string(alpha) + " is outside (0, 1)");
  }
  const double q = p / 100.0;
  const double tail = alpha / 2.0;
  QuantileRanks ranks{0, n + 1};
  // Each tail summed from its own end, so that small probabilities keep their precision.
  double below = 0.0;  // P(B <= k)
  for (std::size_t k = 0; k < n; ++k) {
    below += std::exp(log_binomial_pmf(n, k, q));
    if (below > tail) break;
    ranks.lower = k + 1;  // P(B < k + 1) <= tail
  }
  double above = 0.0;  // P(B >= k)
  for (std::size_t k = n; k >= 1; --k) {
    above += std::exp(log_binomial_pmf(n, k, q));
    if (above > tail) break;
    ranks.upper = k;  // P(B >= k) <= tail
  }
  return ranks;
}

std::pair<double, double> quantile_ci(std::span<const double> sorted, double p, double alpha) {
  const QuantileRanks r = quantile_ci_ranks(sorted.size(), p, alpha);
  if (sorted.empty()) return {kUndefined, kUndefined};
  constexpr double kInf = std::numeric_limits<double>::infinity();
  return {r.lower == 0 ? -kInf : sorted[r.lower - 1],
          r.upper > sorted.size() ? kInf : sorted[r.upper - 1]};
}

double mean(std::span<const double> values) {
  if (values.empty()) return kUndefined;
  double sum = 0.0;
  for (double v : values) sum += v;
  return sum / static_cast<double>(values.size());
}

double population_std(std::span<const double> values) {
  if (values.empty()) return kUndefined;
  const double m = mean(values);
  double sum_sq = 0.0;
  for (double v : values) sum_sq += (v - m) * (v - m);
  return std::sqrt(sum_sq / static_cast<double>(values.size()));
}

double Distribution::at(double p) const {
  for (const auto& [q, value] : percentiles) {
    if (q == p) return value;
  }
  return kUndefined;
}

Distribution make_distribution(std::vector<double> values, std::span<const double> percentiles) {
  std::sort(values.begin(), values.end());
  return make_distribution_sorted(values, percentiles);
}

Distribution make_distribution_sorted(std::span<const double> values,
                                      std::span<const double> percentiles) {
  std::vector<double> ps(percentiles.begin(), percentiles.end());
  for (double p : ps) check_percentile(p);
  std::sort(ps.begin(), ps.end());
  ps.erase(std::unique(ps.begin(), ps.end()), ps.end());

  Distribution d;
  d.count = values.size();
  if (!values.empty()) {
    d.mean = mean(values);
    d.std = population_std(values);
    d.min = values.front();
    d.max = values.back();
    d.median = percentile_sorted(values, 50.0);
  }
  d.percentiles.reserve(ps.size());
  for (double p : ps) d.percentiles.emplace_back(p, percentile_sorted(values, p));
  return d;
}

}  // namespace tokenbench::metrics
