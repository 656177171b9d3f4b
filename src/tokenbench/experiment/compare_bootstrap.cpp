// The resampling behind `tokenbench compare` (compare_bootstrap.h).

#include "tokenbench/experiment/compare_bootstrap.h"

#include <algorithm>
#include <cmath>
#include <thread>
#include <utility>

#include "tokenbench/metrics/request_metrics.h"
#include "tokenbench/metrics/summary.h"

namespace tokenbench::experiment::compare_internal {
namespace {

using metrics::is_defined;
using metrics::kUndefined;

void prepare_fields(const RunSample& run, Prepared& p) {
  std::array<std::vector<std::pair<double, std::uint32_t>>, kNumFields> pairs;
  for (Field& f : p.fields) f.per_request.assign(p.n, 0);
  const auto add = [&](Source s, std::uint32_t i, double v) {
    pairs[static_cast<std::size_t>(s)].emplace_back(v, i);
    ++p.fields[static_cast<std::size_t>(s)].per_request[i];
  };
  for (std::uint32_t i = 0; i < p.n; ++i) {
    const core::RequestRecord& r = run.records[i];
    // As metrics::summarize: an attempt replaced by a retry is not a measured request, and the
    // non-streamed sample counts in the rates but in no distribution.
    if (r.retried) continue;
    p.measured[i] = 1;
    ++p.measured_count;
    if (!r.ok()) {
      p.failed[i] = 1;
      ++p.failures;
      continue;
    }
    if (r.nonstream_sample) continue;
    const metrics::RequestMetrics m = metrics::derive_request_metrics(r);
    if (m.ttft_ms) add(Source::kTtft, i, *m.ttft_ms);
    if (m.tpot_ms) add(Source::kTpot, i, *m.tpot_ms);
    if (m.e2el_ms) add(Source::kE2el, i, *m.e2el_ms);
    if (m.decode_tps) add(Source::kOutputTps, i, *m.decode_tps);
    for (double gap : m.itl_ms) add(Source::kItl, i, gap);
  }
  for (std::size_t k = 0; k < kNumFields; ++k) {
    std::sort(pairs[k].begin(), pairs[k].end());
    for (const auto& [v, i] : pairs[k]) {
      p.fields[k].values.push_back(v);
      p.fields[k].owner.push_back(i);
    }
  }
}

// The measure phase as metrics::summarize bounds it (earliest scheduled or sent stamp to the
// latest end), cut into kThroughputWindows windows; each successful request adds to the window
// of its end what it adds to each rate.
void prepare_windows(const RunSample& run, Prepared& p) {
  core::Nanos start = core::kNever;
  core::Nanos end = core::kNever;
  for (const core::RequestRecord& r : run.records) {
    const core::Nanos s = r.scheduled != core::kNever ? r.scheduled : r.sent;
    const core::Nanos e = r.done != core::kNever ? r.done : r.last_token;
    if (s != core::kNever && (start == core::kNever || s < start)) start = s;
    if (e != core::kNever && (end == core::kNever || e > end)) end = e;
  }
  if (start == core::kNever || end == core::kNever || end <= start) return;
  const double span = static_cast<double>(end - start);
  p.windows.assign(kThroughputWindows, {});
  for (const core::RequestRecord& r : run.records) {
    if (r.retried || !r.ok()) continue;
    const core::Nanos e = r.done != core::kNever ? r.done : r.last_token;
    if (e == core::kNever) continue;
    const double at = static_cast<double>(e - start) / span * kThroughputWindows;
    const auto w = static_cast<std::size_t>(std::clamp(at, 0.0, kThroughputWindows - 1.0));
    std::array<double, kNumRates>& window = p.windows[w];
    // A sampled run's record stands for `stride` requests.
    const auto weight = static_cast<double>(run.stride);
    window[rate_index(Source::kRequestThroughput)] += weight;
    window[rate_index(Source::kOutputThroughput)] += weight * static_cast<double>(r.output_tokens);
    window[rate_index(Source::kTotalTokenThroughput)] +=
        weight * static_cast<double>(r.prompt_tokens + r.output_tokens);
    if (!r.nonstream_sample && !run.goodput.empty() && metrics::meets_slo(r, run.goodput)) {
      window[rate_index(Source::kRequestGoodput)] += weight;
    }
  }
  for (const auto& window : p.windows) {
    for (std::size_t j = 0; j < kNumRates; ++j) p.window_totals[j] += window[j];
  }
}

// numpy's linear interpolation, exactly as metrics::percentile_sorted computes it.
double numpy_lerp(double a, double b, double t) {
  const double diff = b - a;
  return t >= 0.5 ? b - diff * (1.0 - t) : a + diff * t;
}

// Mean and percentiles `ps` (ascending) of `field` over the multiset in which request r appears
// counts[r] times: exactly what pooling and sorting the resampled requests' values would give,
// in one pass over the pre-sorted values instead of a sort per resample.
void weighted_stats(const Field& field, const std::vector<std::uint32_t>& counts,
                    const std::vector<double>& ps, double& mean, std::vector<double>& out) {
  std::uint64_t total = 0;
  for (std::size_t r = 0; r < counts.size(); ++r) {
    total += static_cast<std::uint64_t>(counts[r]) * field.per_request[r];
  }
  out.assign(ps.size(), kUndefined);
  mean = kUndefined;
  if (total == 0) return;
  // Sorted positions whose values each percentile needs: (position, slot) with slot 2k the lower
  // and 2k + 1 the upper neighbour of percentile k.
  std::vector<std::pair<std::uint64_t, std::size_t>> wanted;
  std::vector<double> gamma(ps.size()), at(2 * ps.size());
  for (std::size_t k = 0; k < ps.size(); ++k) {
    const double virtual_index = static_cast<double>(total - 1) * (ps[k] / 100.0);
    const double below = std::floor(virtual_index);
    const auto lo = static_cast<std::uint64_t>(below);
    gamma[k] = virtual_index - below;
    wanted.emplace_back(lo, 2 * k);
    wanted.emplace_back(std::min(lo + 1, total - 1), 2 * k + 1);
  }
  std::sort(wanted.begin(), wanted.end());
  std::size_t next = 0;
  std::uint64_t seen = 0;
  double sum = 0.0;
  for (std::size_t i = 0; i < field.values.size(); ++i) {
    const std::uint32_t w = counts[field.owner[i]];
    if (w == 0) continue;
    const double v = field.values[i];
    sum += static_cast<double>(w) * v;
    seen += w;
    while (next < wanted.size() && wanted[next].first < seen) at[wanted[next++].second] = v;
  }
  mean = sum / static_cast<double>(total);
  for (std::size_t k = 0; k < ps.size(); ++k)
    out[k] = numpy_lerp(at[2 * k], at[2 * k + 1], gamma[k]);
}

// SplitMix64: small, fast and specified bit for bit, so a seed gives the same resamples on every
// platform (std::uniform_int_distribution does not promise that).
struct SplitMix64 {
  std::uint64_t state;
  std::uint64_t next() {
    std::uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }
  // Uniform in [0, n); the modulo bias is below n / 2^64.
  std::uint64_t below(std::uint64_t n) { return next() % n; }
};

// Moving-block bootstrap as multiplicities: blocks of `block` consecutive items (wrapping around
// at the end so that every item is drawn equally often) starting at uniform positions, until n
// items are drawn.
void block_resample(std::size_t n, std::size_t block, SplitMix64& rng,
                    std::vector<std::uint32_t>& counts) {
  counts.assign(n, 0);
  std::size_t drawn = 0;
  while (drawn < n) {
    const std::size_t start = rng.below(n);
    for (std::size_t j = 0; j < block && drawn < n; ++j, ++drawn) ++counts[(start + j) % n];
  }
}

// ceil(sqrt(n)), at least 1.
std::size_t sqrt_block(std::size_t n) {
  auto block = static_cast<std::size_t>(std::ceil(std::sqrt(static_cast<double>(n))));
  while (block * block < n) ++block;
  return std::max<std::size_t>(block, 1);
}

// The block length of a circular block bootstrap of the mean of `x` by Politis and White's rule
// (Econometric Reviews 23, 2004; corrected by Patton, Politis and White, 2009): the spectral
// estimates G and g(0) from the autocovariances up to twice the first lag after which kn
// autocorrelations in a row are insignificant, b = (2 G^2 / (4/3 g(0)^2))^(1/3) n^(1/3), capped at
// min(3 sqrt(n), n / 3). 0 when the series is too short or constant.
double politis_white_block(const std::vector<double>& x) {
  const std::size_t n = x.size();
  if (n < 8) return 0.0;
  const double nd = static_cast<double>(n);
  double mean = 0.0;
  for (double v : x) mean += v / nd;
  std::vector<double> e(n);
  for (std::size_t i = 0; i < n; ++i) e[i] = x[i] - mean;
  const auto kn = static_cast<std::size_t>(std::max(5.0, std::log10(nd)));
  const std::size_t m_max = std::min(sqrt_block(n) + kn, n - 1);
  const double critical = 2.0 * std::sqrt(std::log10(nd) / nd);
  std::vector<double> acv(m_max + 1, 0.0);
  std::size_t insignificant = 0;
  std::size_t m_found = 0;
  bool found = false;
  for (std::size_t k = 0; k <= m_max; ++k) {
    double cross = 0.0;
    for (std::size_t i = k; i < n; ++i) cross += e[i] * e[i - k];
    acv[k] = cross / nd;
    if (acv[0] <= 0.0) return 0.0;
    if (k == 0 || found) continue;
    insignificant = std::abs(acv[k] / acv[0]) < critical ? insignificant + 1 : 0;
    if (insignificant == kn) {
      m_found = k - kn + 1;
      found = true;
    }
  }
  const std::size_t m = found ? std::min(2 * std::max<std::size_t>(m_found, 1), m_max) : m_max;
  double g = 0.0;
  double long_run = acv[0];
  for (std::size_t k = 1; k <= m; ++k) {
    const double r = static_cast<double>(k) / static_cast<double>(m);
    const double weight = r <= 0.5 ? 1.0 : 2.0 * (1.0 - r);  // flat-top lag window
    g += 2.0 * weight * static_cast<double>(k) * acv[k];
    long_run += 2.0 * weight * acv[k];
  }
  if (long_run <= 0.0) return 0.0;
  const double d = 4.0 / 3.0 * long_run * long_run;
  const double b = std::cbrt(2.0 * g * g / d) * std::cbrt(nd);
  return std::min({b, 3.0 * std::sqrt(nd), nd / 3.0});
}

// Each figure's influence on one request, in send order (requests without a value left out): a
// mean's values; a percentile's indicator of values at or below it (for pooled ITL, the count of
// the request's gaps at or below it minus p times its gaps); the error rate's failure indicator.
std::vector<std::vector<double>> influence_series(const Prepared& p) {
  std::vector<std::vector<double>> out;
  for (const FigureDef& def : kFigures) {
    if (!def.spec.per_request) continue;
    std::vector<double> series;
    if (def.source == Source::kErrorRate) {
      for (std::size_t r = 0; r < p.n; ++r) {
        if (p.measured[r]) series.push_back(p.failed[r]);
      }
      out.push_back(std::move(series));
      continue;
    }
    const Field& field = p.fields[static_cast<std::size_t>(def.source)];
    if (field.values.empty()) continue;
    const double cut = def.p == kMean ? 0.0 : metrics::percentile_sorted(field.values, def.p);
    std::vector<double> per_request(p.n, 0.0);
    for (std::size_t i = 0; i < field.values.size(); ++i) {
      const double v = field.values[i];
      per_request[field.owner[i]] += def.p == kMean ? v : (v <= cut ? 1.0 : 0.0) - def.p / 100.0;
    }
    for (std::size_t r = 0; r < p.n; ++r) {
      if (field.per_request[r] == 0) continue;
      // A request's mean value: its sum over its count (one value but for pooled ITL).
      const bool pooled_mean = def.p == kMean && field.per_request[r] > 1;
      series.push_back(pooled_mean ? per_request[r] / field.per_request[r] : per_request[r]);
    }
    out.push_back(std::move(series));
  }
  return out;
}

// Figure values of one resample, indexed as kFigures.
class ResampleStats {
 public:
  ResampleStats() {
    for (std::size_t f = 0; f < kFigures.size(); ++f) {
      const FigureDef& def = kFigures[f];
      if (def.source == Source::kErrorRate) error_rate_figure_ = f;
      if (!def.spec.per_request || def.source == Source::kErrorRate) continue;
      auto& plan = plans_[static_cast<std::size_t>(def.source)];
      if (def.p == kMean) {
        plan.mean_figure = static_cast<int>(f);
      } else {
        plan.ps.push_back(def.p);
        plan.figures.push_back(f);
      }
    }
  }

  // The per-request figures of the resample in which request r appears counts[r] times.
  void requests(const Prepared& p, const std::vector<std::uint32_t>& counts, FigureValues& out) {
    for (std::size_t k = 0; k < kNumFields; ++k) {
      const Plan& plan = plans_[k];
      double mean = kUndefined;
      weighted_stats(p.fields[k], counts, plan.ps, mean, scratch_);
      if (plan.mean_figure >= 0) out[static_cast<std::size_t>(plan.mean_figure)] = mean;
      for (std::size_t j = 0; j < plan.figures.size(); ++j) out[plan.figures[j]] = scratch_[j];
    }
    std::uint64_t failures = 0;
    std::uint64_t measured = 0;
    for (std::size_t r = 0; r < p.n; ++r) {
      failures += p.failed[r] ? counts[r] : 0;
      measured += p.measured[r] ? counts[r] : 0;
    }
    out[error_rate_figure_] =
        measured == 0 ? kUndefined : static_cast<double>(failures) / static_cast<double>(measured);
  }

  // The run-level rates of the resample in which window w appears counts[w] times: the run's
  // rate scaled by the resample's share of the amount (the duration is the run's).
  static void windows(const Prepared& p, const std::vector<std::uint32_t>& counts,
                      FigureValues& out) {
    for (std::size_t f = 0; f < kFigures.size(); ++f) {
      if (kFigures[f].spec.per_request) continue;
      const std::size_t j = rate_index(kFigures[f].source);
      if (p.windows.empty() || !is_defined(p.rates[j])) continue;
      if (p.window_totals[j] == 0.0) {
        out[f] = p.rates[j];
        continue;
      }
      double amount = 0.0;
      for (std::size_t w = 0; w < p.windows.size(); ++w) amount += counts[w] * p.windows[w][j];
      out[f] = p.rates[j] * amount / p.window_totals[j];
    }
  }

 private:
  // The statistics wanted from one distribution (percentiles ascending, as kFigures lists them).
  struct Plan {
    int mean_figure = -1;
    std::vector<double> ps;
    std::vector<std::size_t> figures;
  };
  std::array<Plan, kNumFields> plans_;
  std::size_t error_rate_figure_ = 0;
  std::vector<double> scratch_;
};

// The generator of one resample of one stream (0, 1: the requests of BASE, NEW; 2, 3: their
// windows): its start is a hash of (seed, resample, stream), so every resample can be drawn on
// any thread and the output stays a pure function of the inputs.
SplitMix64 resample_stream(std::uint64_t seed, std::size_t resample, int stream) {
  SplitMix64 index{static_cast<std::uint64_t>(resample) * 4 + static_cast<std::uint64_t>(stream)};
  SplitMix64 start{seed ^ index.next()};
  return SplitMix64{start.next()};
}

// The figures of resample `b` of one run (`which` 0 for BASE, 1 for NEW).
void resample_run(const Prepared& p, std::uint64_t seed, std::size_t b, int which,
                  ResampleStats& stats, std::vector<std::uint32_t>& counts, FigureValues& out) {
  out.fill(kUndefined);
  SplitMix64 rng = resample_stream(seed, b, which);
  block_resample(p.n, p.block, rng, counts);
  stats.requests(p, counts, out);
  if (!p.windows.empty()) {
    SplitMix64 wrng = resample_stream(seed, b, which + 2);
    block_resample(p.windows.size(), sqrt_block(p.windows.size()), wrng, counts);
    ResampleStats::windows(p, counts, out);
  }
}

}  // namespace

Prepared prepare(const RunSample& run) {
  Prepared p;
  p.n = run.records.size();
  p.measured.assign(p.n, 0);
  p.failed.assign(p.n, 0);
  prepare_fields(run, p);
  p.rates = {run.request_throughput, run.output_throughput, run.total_token_throughput,
             run.request_goodput};
  prepare_windows(run, p);
  p.block = request_block_length(p);
  return p;
}

double point_value(const FigureDef& def, const Prepared& p) {
  if (!def.spec.per_request) return p.rates[rate_index(def.source)];
  if (def.source == Source::kErrorRate) {
    return p.measured_count == 0
               ? kUndefined
               : static_cast<double>(p.failures) / static_cast<double>(p.measured_count);
  }
  const std::vector<double>& v = p.fields[static_cast<std::size_t>(def.source)].values;
  return def.p == kMean ? metrics::mean(v) : metrics::percentile_sorted(v, def.p);
}

std::size_t request_block_length(const Prepared& p) {
  std::size_t block = sqrt_block(p.n);
  for (const std::vector<double>& series : influence_series(p)) {
    // The rule's length counts requests with a value; scaled to all requests.
    const double b = politis_white_block(series);
    const double scaled =
        series.empty() ? 0.0 : b * static_cast<double>(p.n) / static_cast<double>(series.size());
    block = std::max(block, static_cast<std::size_t>(std::ceil(scaled)));
  }
  return std::min(block, std::max<std::size_t>(p.n, 1));
}

std::array<std::vector<double>, kFigures.size()> bootstrap_deltas(const Prepared& pb,
                                                                  const Prepared& pn,
                                                                  const CompareOptions& options) {
  const auto resamples = static_cast<std::size_t>(options.resamples);
  std::vector<FigureValues> replicate(resamples);
  const auto work = [&](std::size_t first, std::size_t step) {
    ResampleStats stats;
    std::vector<std::uint32_t> counts;
    FigureValues sb{}, sn{};
    for (std::size_t b = first; b < resamples; b += step) {
      resample_run(pb, options.seed, b, 0, stats, counts, sb);
      resample_run(pn, options.seed, b, 1, stats, counts, sn);
      for (std::size_t f = 0; f < kFigures.size(); ++f) replicate[b][f] = sn[f] - sb[f];
    }
  };
  const std::size_t threads = std::clamp<std::size_t>(std::thread::hardware_concurrency(), 1,
                                                      std::min<std::size_t>(8, resamples));
  std::vector<std::thread> pool;
  for (std::size_t t = 1; t < threads; ++t) pool.emplace_back(work, t, threads);
  work(0, threads);
  for (std::thread& t : pool) t.join();

  std::array<std::vector<double>, kFigures.size()> deltas;
  for (const auto& r : replicate) {
    for (std::size_t f = 0; f < kFigures.size(); ++f) {
      if (is_defined(r[f])) deltas[f].push_back(r[f]);
    }
  }
  return deltas;
}

}  // namespace tokenbench::experiment::compare_internal
