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

}  // namespace

std::optional<Interval> quantile_interval(std::vector<double> values, double q) {
  if (values.empty() || !(q > 0 && q < 1)) return std::nullopt;
  std::sort(values.begin(), values.end());
  const auto [lo, hi] = quantile_ci(values, 100 * q, 1 - kConfidence);
  return Interval{percentile_sorted(values, 100 * q), lo, hi};
}

MeanSd mean_and_sd(const std::vector<double>& samples) {
  constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
  if (samples.empty()) return {kNaN, kNaN};
  const double n = static_cast<double>(samples.size());
  const double mean = std::accumulate(samples.begin(), samples.end(), 0.0) / n;
  if (samples.size() < 2) return {mean, kNaN};
  double ss = 0;
  for (const double x : samples) ss += (x - mean) * (x - mean);
  return {mean, std::sqrt(ss / (n - 1))};
}

std::optional<Interval> mean_interval(const std::vector<double>& samples) {
  if (samples.size() < 2) return std::nullopt;
  const MeanSd m = mean_and_sd(samples);
  const double half =
      t_quantile(samples.size() - 1) * m.sd / std::sqrt(static_cast<double>(samples.size()));
  return Interval{m.mean, m.mean - half, m.mean + half};
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
    if (r.phase != core::Phase::kMeasure || r.retried || !r.ok() || r.done == core::kNever)
      continue;
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
