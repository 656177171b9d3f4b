#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "tokenbench/core/request.h"
#include "tokenbench/metrics/percentile.h"

namespace tokenbench::experiment {

// Run-to-run comparison (`tokenbench compare BASE NEW...`): the figures of two results
// directories side by side, the difference NEW - BASE of each with a bootstrap confidence
// interval, a verdict per figure and regression gates. Every function here is pure apart from
// load_run_sample, which reads files; none keeps state, so any thread may call them.

/// Which way a figure improves.
enum class Direction {
  kLowerIsBetter,   ///< latencies, error rate
  kHigherIsBetter,  ///< rates
};

/// "lower_is_better" or "higher_is_better".
std::string_view to_string(Direction d);

/// The judgement on one figure.
enum class Verdict {
  kNoChange,       ///< no significant change: the CI holds zero, or the change is below min_effect
  kWorse,          ///< the CI lies on the worse side of zero and the change reaches min_effect
  kBetter,         ///< the CI lies on the better side of zero and the change reaches min_effect
  kNotApplicable,  ///< no CI: a run-level figure, or a figure undefined in either run
};

/// "no significant change", "worse", "better" or "n/a".
std::string_view to_string(Verdict v);

/// One compared figure, named as its summary.json key (p95_ttft_ms, request_throughput, ...).
struct FigureSpec {
  std::string_view name;
  Direction direction;
  /// True for a statistic over requests (it gets a bootstrap CI); false for a run-level figure
  /// read from summary.json (request_throughput, output_throughput: one value per run, no CI).
  bool per_request;
};

/// Every compared figure, in table order.
std::span<const FigureSpec> compared_figures();

/// The names of the per-request figures (those a regression gate may name), comma-separated.
std::string gateable_figure_names();

/// A percentile gets a confidence interval only when each run has at least this many values
/// beyond it (p95 needs 200 requests, p99 1000); with fewer its verdict is n/a.
inline constexpr double kMinTailValues = 10;

/// How many compared figures get a confidence interval (the per-request ones).
int figures_with_interval();

/// How compare_runs estimates and judges. Plain data.
struct CompareOptions {
  int resamples = 2000;    ///< bootstrap resamples (each run resampled independently)
  std::uint64_t seed = 0;  ///< bootstrap seed: equal inputs and seed give equal output
  /// Two-sided family-wise level, in (0, 1): every figure's interval has level
  /// 1 - (1 - confidence) / figures_with_interval() (Bonferroni), so that all of them hold
  /// together with at least this probability.
  double confidence = 0.95;
  double min_effect = 0.02;  ///< practical-significance floor: |delta| / |base| below it is "~"
};

/// The measure-phase requests of one results directory and its run-level figures.
struct RunSample {
  std::string dir;
  /// Measure-phase records in send order (sent stamp, then scheduled stamp, then id).
  std::vector<core::RequestRecord> records;
  double request_throughput = metrics::kUndefined;  ///< req/s, from summary.json
  double output_throughput = metrics::kUndefined;   ///< tok/s, from summary.json
  /// A note for the user (e.g. a final line of requests.jsonl cut short by a killed run); empty
  /// when there is none.
  std::string warning;
};

/// Reads DIR/requests.jsonl or requests.jsonl.zst (measure phase only) and DIR/summary.json. When
/// summary.json is absent, the run-level figures are recomputed from the records by
/// metrics::summarize, the code that wrote summary.json. Throws std::runtime_error with a one-line
/// message when DIR is not a results directory, a file is unreadable or malformed, or DIR has no
/// measure-phase request.
RunSample load_run_sample(const std::string& dir);

/// One figure of a comparison. Undefined values are metrics::kUndefined.
struct FigureComparison {
  std::string name;
  Direction direction = Direction::kLowerIsBetter;
  double base = metrics::kUndefined;
  double next = metrics::kUndefined;       ///< NEW's value
  double delta = metrics::kUndefined;      ///< next - base
  double delta_pct = metrics::kUndefined;  ///< 100 * delta / |base|; undefined when base is 0
  double ci_low = metrics::kUndefined;     ///< confidence interval of delta
  double ci_high = metrics::kUndefined;
  double ci_low_pct = metrics::kUndefined;  ///< the CI bounds as percentages of |base|
  double ci_high_pct = metrics::kUndefined;
  Verdict verdict = Verdict::kNotApplicable;
};

/// A regression gate: fail when `figure` got significantly worse by more than `margin`.
struct RegressionGate {
  std::string figure;  ///< a per-request figure name
  double margin = 0;   ///< relative margin as a fraction (0.05 for 5%)
};

/// Parses gate items FIGURE:MARGIN with MARGIN a percentage, with or without '%'
/// ("p95_ttft_ms:5%", "p95_ttft_ms:5"); an item may hold several separated by commas. Throws
/// std::invalid_argument with a one-line message naming the bad item on an unknown or run-level
/// figure (listing the valid names), a malformed, negative or non-finite margin, or a figure
/// given twice.
std::vector<RegressionGate> parse_regression_gates(const std::vector<std::string>& items);

/// Parses a percentage ("2", "2%", "0.5") into a fraction (0.02, 0.02, 0.005). Throws
/// std::invalid_argument naming `what` when it is not a finite number >= 0.
double parse_percentage(std::string_view text, std::string_view what);

/// The outcome of one gate on one comparison.
struct GateResult {
  RegressionGate gate;
  /// The conservative end of the figure's CI of the relative change (the bound nearest zero), in
  /// percent, signed so that positive is worse; undefined when the figure is not "worse". A
  /// worse figure whose base is 0 counts as infinitely worse.
  double bound_pct = metrics::kUndefined;
  bool failed = false;  ///< the figure is "worse" and bound_pct exceeds 100 * margin
  /// False when the figure got no confidence interval (too few requests for its percentile, or
  /// undefined in a run): the gate could not be judged, and says so.
  bool judged = true;
};

/// NEW against BASE, figure by figure, in compared_figures() order.
struct Comparison {
  std::string base_dir;
  std::string new_dir;
  std::int64_t base_measured = 0;  ///< measure-phase requests of BASE
  std::int64_t base_failed = 0;
  std::int64_t new_measured = 0;
  std::int64_t new_failed = 0;
  std::vector<FigureComparison> figures;
  std::vector<GateResult> gates;  ///< filled by apply_gates

  /// The figure named `name`, or nullptr.
  const FigureComparison* find(std::string_view name) const;
  /// True when a gate failed.
  bool regressed() const;
};

/// Compares `next` against `base`. Per-request figures get a moving-block bootstrap CI of the
/// difference (each run's requests resampled independently, in send order, in blocks of
/// ceil(sqrt(n)) consecutive requests, wrapping around); run-level figures get only the delta.
/// Deterministic for fixed inputs and options, whatever the number of threads (the resamples are
/// shared out among up to 8 threads, each resample drawn from a generator of its own). Throws
/// std::invalid_argument on options out of range (resamples < 1, confidence outside (0, 1),
/// negative min_effect).
Comparison compare_runs(const RunSample& base, const RunSample& next,
                        const CompareOptions& options);

/// Evaluates `gates` on `comparison` and stores the results in comparison.gates.
void apply_gates(Comparison& comparison, const std::vector<RegressionGate>& gates);

/// The one-line verdict: "NEW vs BASE: worse in p95_ttft_ms (+15.2%, CI +12.1%..+18.0%), ...;
/// better in ..." or "NEW vs BASE: no significant change".
std::string overall_verdict_line(const Comparison& comparison);

/// The console text of one comparison: which runs, a table (figure | BASE | NEW | delta |
/// delta % | CI of delta % | verdict), the overall verdict line and the gate outcomes.
std::string render_comparison(const Comparison& comparison, const CompareOptions& options);

/// The JSON document of `tokenbench compare --json`: {"base", "resamples", "seed",
/// "confidence", "min_effect", "comparisons": [{"new", "base_measured", "base_failed",
/// "new_measured", "new_failed", "figures": [{"name", "direction", "base", "new", "delta",
/// "delta_pct", "ci_low", "ci_high", "ci_low_pct", "ci_high_pct", "verdict"}], "verdict" (worse,
/// better, mixed or no significant change), "summary" (overall_verdict_line), "gates": [{"figure",
/// "margin", "bound_pct", "failed"}], "regressions" (the failed gates)}]}. Undefined values are
/// null; an infinite bound_pct is the string "inf".
nlohmann::json comparison_to_json(const std::vector<Comparison>& comparisons,
                                  const CompareOptions& options);

}  // namespace tokenbench::experiment
