#pragma once

// Internal to compare (compare.h is the public face): the runs reduced to what the resampling
// needs, and the bootstrap of the differences NEW - BASE. Pure functions; any thread may call
// them.

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "tokenbench/experiment/compare.h"

namespace tokenbench::experiment::compare_internal {

/// Where a figure's values come from. The first five are distributions over successful
/// requests; the last four are run-level rates.
enum class Source {
  kTtft,
  kTpot,
  kItl,
  kE2el,
  kOutputTps,
  kErrorRate,
  kRequestThroughput,
  kOutputThroughput,
  kTotalTokenThroughput,
  kRequestGoodput,
};
inline constexpr std::size_t kNumFields = 5;
inline constexpr std::size_t kNumRates = 4;

/// The index of a run-level rate among the kNumRates (Source::kRequestThroughput is 0).
constexpr std::size_t rate_index(Source s) {
  return static_cast<std::size_t>(s) - static_cast<std::size_t>(Source::kRequestThroughput);
}

inline constexpr double kMean = -1.0;  ///< FigureDef::p of a mean

/// One compared figure: what it is called, where its values come from, which statistic.
struct FigureDef {
  FigureSpec spec;
  Source source;
  double p;  ///< percentile, or kMean
};

inline constexpr Direction kLower = Direction::kLowerIsBetter;
inline constexpr Direction kHigher = Direction::kHigherIsBetter;

/// Every compared figure, in table order.
inline constexpr std::array<FigureDef, 20> kFigures{{
    {{"mean_ttft_ms", kLower, true}, Source::kTtft, kMean},
    {{"p50_ttft_ms", kLower, true}, Source::kTtft, 50},
    {{"p95_ttft_ms", kLower, true}, Source::kTtft, 95},
    {{"p99_ttft_ms", kLower, true}, Source::kTtft, 99},
    {{"mean_tpot_ms", kLower, true}, Source::kTpot, kMean},
    {{"p50_tpot_ms", kLower, true}, Source::kTpot, 50},
    {{"p95_tpot_ms", kLower, true}, Source::kTpot, 95},
    {{"mean_itl_ms", kLower, true}, Source::kItl, kMean},
    {{"p50_itl_ms", kLower, true}, Source::kItl, 50},
    {{"p95_itl_ms", kLower, true}, Source::kItl, 95},
    {{"mean_e2el_ms", kLower, true}, Source::kE2el, kMean},
    {{"p50_e2el_ms", kLower, true}, Source::kE2el, 50},
    {{"p95_e2el_ms", kLower, true}, Source::kE2el, 95},
    {{"p99_e2el_ms", kLower, true}, Source::kE2el, 99},
    {{"p50_decode_tps", kHigher, true}, Source::kOutputTps, 50},
    {{"error_rate", kLower, true}, Source::kErrorRate, 0},
    {{"request_throughput", kHigher, false}, Source::kRequestThroughput, 0},
    {{"output_throughput", kHigher, false}, Source::kOutputThroughput, 0},
    {{"total_token_throughput", kHigher, false}, Source::kTotalTokenThroughput, 0},
    {{"request_goodput", kHigher, false}, Source::kRequestGoodput, 0},
}};

/// Figure values indexed as kFigures.
using FigureValues = std::array<double, kFigures.size()>;

/// One distribution of a run: its values ascending, the request (index in send order) each came
/// from, and how many values each request contributed.
struct Field {
  std::vector<double> values;
  std::vector<std::uint32_t> owner;
  std::vector<std::uint32_t> per_request;
};

/// A run reduced to what the bootstrap needs.
struct Prepared {
  std::size_t n = 0;  ///< records, in send order
  std::array<Field, kNumFields> fields;
  std::vector<std::uint8_t> measured;  ///< 0 for an attempt that a retry replaced
  std::vector<std::uint8_t> failed;    ///< 1 for a measured request that failed
  std::int64_t measured_count = 0;
  std::int64_t failures = 0;
  std::size_t block = 1;  ///< moving-block length over requests (request_block_length)
  /// Run-level rates: the value of each (summary.json's), and what each of the
  /// kThroughputWindows equal time windows of the measure phase contributed to it (completions,
  /// output tokens, input + output tokens, good completions; a request counts in the window of
  /// its end). Empty when the measure phase has no duration.
  std::array<double, kNumRates> rates{};
  std::vector<std::array<double, kNumRates>> windows;
  std::array<double, kNumRates> window_totals{};
};

/// The records of `run` sorted into fields and windows.
Prepared prepare(const RunSample& run);

/// The figure on the whole run, computed as summary.json computes it (metrics::mean and
/// metrics::percentile_sorted over the ascending values); run-level rates are `p.rates`.
double point_value(const FigureDef& def, const Prepared& p);

/// `options.resamples` bootstrap replicates of NEW - BASE per figure (kFigures order), only those
/// where the figure is defined on both resamples. Per-request figures: each run's requests
/// resampled independently in moving blocks of consecutive requests (send order); run-level
/// rates: each run's time windows resampled in moving blocks. Deterministic for fixed inputs and
/// options, whatever the number of threads (up to 8 share the resamples).
std::array<std::vector<double>, kFigures.size()> bootstrap_deltas(const Prepared& base,
                                                                  const Prepared& next,
                                                                  const CompareOptions& options);

/// The moving-block length over the requests of `p` (its fields and flags filled): the longest
/// of ceil(sqrt(n)) and, for each per-request figure, Politis and White's automatic length for a
/// circular block bootstrap of the figure's influence series (a mean's values, a percentile's
/// indicator of values at or below it), itself capped at min(3 sqrt(n), n / 3). Correlation that
/// reaches further along the run (a busy stretch of the server or of the machine) lengthens the
/// blocks and widens the interval.
std::size_t request_block_length(const Prepared& p);

/// x as a percentage of |base|; 0 % for no change from a base of 0, undefined otherwise.
double relative_pct(double x, double base);

/// The verdict of a figure from its delta, its interval and the practical floor `min_effect`.
Verdict judge(const FigureComparison& f, double min_effect);

}  // namespace tokenbench::experiment::compare_internal
