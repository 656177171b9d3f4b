#include "tokenbench/metrics/intervals.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "tokenbench/metrics/percentile.h"
#include "tokenbench/metrics/request_metrics.h"

namespace tokenbench::metrics {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kTail = (1 - kConfidence) / 2;

// Student's t quantile for a two-sided 95% interval, by degrees of freedom (1 to 30); the normal
// quantile beyond, which it approaches within 1.5% at 30.
double t_quantile(std::size_t df) {
  static constexpr double kT[] = {12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306,
                                  2.262,  2.228, 2.201, 2.179, 2.160, 2.145, 2.131, 2.120,
                                  2.110,  2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064,
                                  2.060,  2.056, 2.052, 2.048, 2.045, 2.042};
  if (df == 0) return kInf;
  return df <= std::size(kT) ? kT[df - 1] : 1.960;
}

// The 1-based ranks (l, u) of the order-statistic interval of the q-quantile of n values; 0 for
// a side that n cannot bound, n + 1 likewise above.
std::pair<std::size_t, std::size_t> quantile_ranks(std::size_t n, double q) {
  if (n > 100000) {
    // The binomial's normal approximation, exact enough at this size.
    const double mean = static_cast<double>(n) * q;
    const double half = 1.960 * std::sqrt(mean * (1 - q));
    const double l = std::floor(mean - half);
    const double u = std::ceil(mean + half) + 1;
    return {l < 1 ? 0 : static_cast<std::size_t>(l),
            u > static_cast<double>(n) ? n + 1 : static_cast<std::size_t>(u)};
  }
  // cdf[k] = P(B <= k), B ~ Binomial(n, q), from log pmfs (no overflow at any n here).
  std::vector<double> cdf(n + 1);
  const double lq = std::log(q);
  const double l1q = std::log1p(-q);
  const double lgn = std::lgamma(static_cast<double>(n) + 1);
  double sum = 0;
  for (std::size_t k = 0; k <= n; ++k) {
    const double kd = static_cast<double>(k);
    const double nk = static_cast<double>(n - k);
    sum += std::exp(lgn - std::lgamma(kd + 1) - std::lgamma(nk + 1) + kd * lq + nk * l1q);
    cdf[k] = sum;
  }
  std::size_t l = 0;  // largest l >= 1 with P(B <= l - 1) <= tail
  while (l + 1 <= n && cdf[l] <= kTail) ++l;
  std::size_t u = n + 1;  // smallest u <= n with P(B >= u) = 1 - P(B <= u - 1) <= tail
  for (std::size_t k = 1; k <= n; ++k) {
    if (1 - cdf[k - 1] <= kTail) {
      u = k;
      break;
    }
  }
  return {l, u};
}

}  // namespace

std::optional<Interval> quantile_interval(std::vector<double> values, double q) {
  if (values.empty() || !(q > 0 && q < 1)) return std::nullopt;
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  const auto [l, u] = quantile_ranks(n, q);
  Interval out;
  out.estimate = percentile_sorted(values, 100 * q);
  out.lo = l == 0 ? -kInf : values[l - 1];
  out.hi = u > n ? kInf : values[u - 1];
  return out;
}

std::optional<Interval> mean_interval(const std::vector<double>& samples) {
  if (samples.size() < 2) return std::nullopt;
  const double n = static_cast<double>(samples.size());
  const double mean = std::accumulate(samples.begin(), samples.end(), 0.0) / n;
  double ss = 0;
  for (const double x : samples) ss += (x - mean) * (x - mean);
  const double half = t_quantile(samples.size() - 1) * std::sqrt(ss / (n - 1) / n);
  return Interval{mean, mean - half, mean + half};
}

std::optional<Interval> throughput_interval(const std::vector<core::RequestRecord>& records,
                                            int batches) {
  core::Nanos start = core::kNever;
  core::Nanos end = core::kNever;
  for (const auto& r : records) {
    if (r.phase != core::Phase::kMeasure || r.retried) continue;
    const core::Nanos s = r.scheduled != core::kNever ? r.scheduled : r.sent;
    if (s != core::kNever && (start == core::kNever || s < start)) start = s;
    if (r.done != core::kNever && (end == core::kNever || r.done > end)) end = r.done;
  }
  if (start == core::kNever || end == core::kNever || end <= start) return std::nullopt;
  const double duration = core::to_seconds(end - start);
  const int k = std::min(batches, static_cast<int>(std::floor(duration / 0.5)));
  if (k < 2) return std::nullopt;
  std::vector<double> counts(static_cast<std::size_t>(k), 0.0);
  double completed = 0;
  for (const auto& r : records) {
    if (r.phase != core::Phase::kMeasure || r.retried || !r.ok() || r.done == core::kNever) continue;
    const double at = core::to_seconds(r.done - start) / duration;
    const auto i = std::min<std::size_t>(static_cast<std::size_t>(at * k), counts.size() - 1);
    counts[i] += 1;
    completed += 1;
  }
  if (completed == 0) return std::nullopt;
  const double width = duration / k;
  for (double& c : counts) c /= width;
  auto out = mean_interval(counts);
  if (!out) return std::nullopt;
  const double shift = completed / duration - out->estimate;  // the same up to rounding
  return Interval{completed / duration, std::max(0.0, out->lo + shift), out->hi + shift};
}

std::vector<double> per_request_samples(const std::vector<core::RequestRecord>& records,
                                        const std::string& distribution) {
  std::optional<double> (*of)(const core::RequestRecord&) = nullptr;
  if (distribution == "ttft_ms") of = ttft_ms;
  if (distribution == "tpot_ms") of = tpot_ms;
  if (distribution == "e2el_ms") of = e2el_ms;
  std::vector<double> out;
  if (of == nullptr) return out;
  for (const auto& r : records) {
    if (r.phase != core::Phase::kMeasure || r.retried || !r.ok() || r.nonstream_sample) continue;
    if (const auto v = of(r)) out.push_back(*v);
  }
  return out;
}

}  // namespace tokenbench::metrics
