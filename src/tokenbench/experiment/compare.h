#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tokenbench/core/request.h"
#include "tokenbench/core/run_config.h"
#include "tokenbench/metrics/percentile.h"
#include "tokenbench/metrics/summary.h"

namespace tokenbench::experiment {

// Run-to-run comparison (`tokenbench compare BASE NEW...`): the figures of two results
// directories side by side, the difference NEW - BASE of each with a confidence interval, a
// verdict per figure and regression gates; and the check that the two runs measured the same
// workload on the same target. Every function here is pure apart from load_run_sample, which
// reads files; none keeps state, so any thread may call them.

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
  kNotApplicable,  ///< no CI: a figure undefined in either run, or too few values for one
};

/// "no significant change", "worse", "better" or "n/a".
std::string_view to_string(Verdict v);

/// How a figure's confidence interval was made.
enum class IntervalMethod {
  kNone,             ///< no interval: the figure is undefined in a run, or has too few values
  kBlockBootstrap,   ///< moving-block bootstrap over requests in send order
  kOrderStatistics,  ///< each run's distribution-free percentile interval, combined
  kWindowBootstrap,  ///< moving-block bootstrap over time windows of the measure phase
  kRunLevelT,        ///< groups of runs: Welch's t over each run's own figure
};

/// "none", "block bootstrap", "order statistics", "window bootstrap" or "run-level t".
std::string_view to_string(IntervalMethod m);

/// One compared figure, named as its summary.json key (p95_ttft_ms, request_throughput, ...).
struct FigureSpec {
  std::string_view name;
  Direction direction;
  /// True for a statistic over requests; false for a run-level rate read from summary.json
  /// (request_throughput, output_throughput, total_token_throughput, request_goodput), whose
  /// interval comes from time windows of the measure phase.
  bool per_request;
};

/// Every compared figure, in table order.
std::span<const FigureSpec> compared_figures();

/// The names of the figures a regression gate may name (all of them), comma-separated.
std::string gateable_figure_names();

/// A percentile gets a bootstrap interval only when each run has at least this many values
/// beyond it (p95 needs 200 requests, p99 1000); with fewer, each run's order-statistic
/// interval (metrics::quantile_ci) is used where it exists.
inline constexpr double kMinTailValues = 10;

/// Run-level rates are resampled over this many equal time windows of the measure phase.
inline constexpr std::size_t kThroughputWindows = 30;

/// How many compared figures share the family-wise confidence level (all of them).
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

/// The measure-phase requests of one results directory, its run-level figures and its
/// configuration.
struct RunSample {
  std::string dir;
  /// Measure-phase records in send order (sent stamp, then scheduled stamp, then id): all of
  /// them, or past load_run_sample's max_records an even sample (every stride-th as they ended).
  std::vector<core::RequestRecord> records;
  /// Measure-phase records in the file, and how many each of `records` stands for (1: all kept).
  std::uint64_t measured = 0;
  std::uint64_t stride = 1;
  /// Of every measure-phase record read: requests (attempts replaced by a retry aside) and the
  /// failed among them, which the comparison shows when `records` is a sample.
  std::int64_t requests = 0;
  std::int64_t failed = 0;
  double request_throughput = metrics::kUndefined;      ///< req/s, from summary.json
  double output_throughput = metrics::kUndefined;       ///< tok/s, from summary.json
  double total_token_throughput = metrics::kUndefined;  ///< tok/s, from summary.json
  double request_goodput = metrics::kUndefined;  ///< req/s, from summary.json (needs --goodput)
  /// The run's --goodput objectives (config.yaml), in the records' time (divided by the
  /// simulator's time scale when the run reported model time, --sim-time); empty: none.
  metrics::SloSpec goodput;
  /// DIR/config.yaml; nullopt when the directory has none.
  std::optional<core::RunConfig> config;
  /// A note for the user (e.g. a final line of requests.jsonl cut short by a killed run); empty
  /// when there is none.
  std::string warning;
};

/// The most records a RunSample keeps by default: the bootstrap works from at most this many
/// requests a run (about 1 KB each with their chunk stamps), an even sample of a longer run.
inline constexpr std::size_t kMaxCompareRecords = std::size_t{1} << 16;

/// Reads DIR/requests.jsonl or requests.jsonl.zst a record at a time (measure phase only), keeping
/// at most `max_records` of them (RunSample::stride), and DIR/summary.json and DIR/config.yaml.
/// When summary.json is absent, the run-level figures are recomputed from every record by
/// metrics::SummaryBuilder, the code that wrote summary.json. Throws std::runtime_error with a
/// one-line message when DIR is not a results directory, a file is unreadable or malformed, or
/// DIR has no measure-phase request.
RunSample load_run_sample(const std::string& dir, std::size_t max_records = kMaxCompareRecords);

/// A setting of config.yaml on which two runs differ.
struct ConfigDifference {
  std::string field;  ///< config.yaml's path of it: "load.max_concurrency", "target.model", ...
  std::string base;   ///< its value in BASE ("(absent)" when BASE's file has no such key)
  std::string next;   ///< its value in NEW
  /// True when the difference keeps the runs comparable: only load.seed (a repeat of the same
  /// workload with other random draws). Any other difference makes compare refuse the pair
  /// unless --allow-different is given.
  bool tolerated = false;
};

/// The settings on which `base` and `next` differ, in config.yaml's order. Settings that do not
/// change what is measured are left out: where results go (output_dir, result_filename, exports,
/// records_compress), when (started_at), labels, how figures are reported (metrics.percentiles,
/// metrics.slo, metrics.console_style, metrics.buckets, metrics.steady_state), telemetry
/// (load.server_metrics, load.metrics_interval_s, load.gpu_metrics), the safety stops
/// (load.fail_fast, load.stop_on_saturation, load.max_error_rate) and target.api_key_env (a
/// variable's name; the key is never recorded).
std::vector<ConfigDifference> config_differences(const core::RunConfig& base,
                                                 const core::RunConfig& next);

/// The settings config_differences compares, as (dotted config.yaml path, value) in
/// config.yaml's order (a list as its flow-style YAML): what identifies a workload and its
/// target. load.seed is among them (compare tolerates a change of it; the history's workload
/// identity leaves it out).
std::vector<std::pair<std::string, std::string>> workload_values(const core::RunConfig& config);

/// "field (A -> B), field (A -> B)" for the differences that are not tolerated.
std::string describe_refused(const std::vector<ConfigDifference>& differences);

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
  IntervalMethod interval = IntervalMethod::kNone;
  Verdict verdict = Verdict::kNotApplicable;
};

/// A regression gate: fail when `figure` got significantly worse by more than `margin`.
struct RegressionGate {
  std::string figure;  ///< a compared figure's name
  double margin = 0;   ///< relative margin as a fraction (0.05 for 5%)
};

/// Parses gate items FIGURE:MARGIN with MARGIN a percentage, with or without '%'
/// ("p95_ttft_ms:5%", "p95_ttft_ms:5"); an item may hold several separated by commas. Throws
/// std::invalid_argument with a one-line message naming the bad item on an unknown figure
/// (listing the valid names), a malformed, negative or non-finite margin, or a figure given
/// twice.
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
  /// False when the gate could not fail whatever NEW measured: the figure has no confidence
  /// interval (undefined in a run, too few values), or the end of it that decides the gate (the
  /// lower end of a latency's, the upper end of a rate's) is unbounded (p99 of 300 requests has
  /// no distribution-free upper bound in BASE). `tokenbench compare` exits 5 then, unless
  /// `--unjudged pass`.
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
  /// How the two configurations differ (config_differences), shown above the table; set by the
  /// caller.
  std::vector<ConfigDifference> differences;
  /// Groups of runs (compare_groups): how many runs each side has; 0 for two single runs.
  std::size_t base_runs = 0;
  std::size_t new_runs = 0;

  /// The figure named `name`, or nullptr.
  const FigureComparison* find(std::string_view name) const;
  /// True when a gate failed.
  bool regressed() const;
  /// True when a gate could not be judged.
  bool unjudged() const;
};

/// Compares `next` against `base`, every figure's interval at the family-wise level
/// (CompareOptions::confidence, Bonferroni over figures_with_interval()). Per-request figures
/// get a moving-block bootstrap CI of the difference (each run's requests resampled
/// independently, in send order, in blocks of consecutive requests, wrapping around; pooled ITL
/// resamples requests, then pools their gaps). A percentile with fewer than kMinTailValues values
/// beyond it in a run gets instead the difference of the two runs' order-statistic intervals
/// (each at half the figure's error rate), possibly unbounded on one side; pooled ITL gets none
/// then. Run-level rates get a moving-block bootstrap over kThroughputWindows time windows.
/// Deterministic for fixed inputs and options, whatever the number of threads. Throws
/// std::invalid_argument on options out of range (resamples < 1, confidence outside (0, 1),
/// negative min_effect).
Comparison compare_runs(const RunSample& base, const RunSample& next,
                        const CompareOptions& options);

/// Several runs of one configuration (repeats, or runs made apart), compared as a group: each
/// run's summary.json, in `dirs` order.
struct RunGroup {
  std::vector<std::string> dirs;
  std::vector<nlohmann::json> summaries;
  std::optional<core::RunConfig> config;  ///< the first run's config.yaml
  /// "3 runs: a/repeat-1, a/repeat-2, a/repeat-3"
  std::string label() const;
};

/// Loads a group: each directory a run, or a repeated run's root (its repeat-N in order).
/// Throws std::runtime_error with one line when a run has no summary.json.
RunGroup load_run_group(const std::vector<std::string>& dirs);

/// NEW's runs against BASE's, figure by figure: the difference of the runs' means, with Welch's
/// t interval over the runs' own figures (each run one value: the spread between runs, not
/// within one) at the family-wise level of compare_runs (Bonferroni over the figures). A figure
/// with fewer than two runs on a side has no interval. Throws std::invalid_argument on options
/// out of range.
Comparison compare_groups(const RunGroup& base, const RunGroup& next,
                          const CompareOptions& options);

/// Evaluates `gates` on `comparison` and stores the results in comparison.gates.
void apply_gates(Comparison& comparison, const std::vector<RegressionGate>& gates);

/// The one-line verdict: "NEW vs BASE: worse in p95_ttft_ms (+15.2%, CI +12.1%..+18.0%), ...;
/// better in ..." or "NEW vs BASE: no significant change".
std::string overall_verdict_line(const Comparison& comparison);

/// The console text of one comparison: which runs, the configuration differences, a table
/// (figure | BASE | NEW | delta | delta % | CI of delta % | verdict), the overall verdict line and
/// the gate outcomes.
std::string render_comparison(const Comparison& comparison, const CompareOptions& options);

/// The JSON document of `tokenbench compare --json`: {"base", "resamples", "seed",
/// "confidence", "min_effect", "comparisons": [{"new", "base_measured", "base_failed",
/// "new_measured", "new_failed", "config_differences": [{"field", "base", "new", "tolerated"}],
/// "figures": [{"name", "direction", "base", "new", "delta", "delta_pct", "ci_low", "ci_high",
/// "ci_low_pct", "ci_high_pct", "interval", "verdict"}], "verdict" (worse, better, mixed or no
/// significant change), "summary" (overall_verdict_line), "gates": [{"figure", "margin",
/// "bound_pct", "failed", "judged"}], "regressions" (the failed gates), "unjudged" (the gates not
/// judged)}]}. Undefined values are null; an infinite bound is the string "inf" or "-inf".
nlohmann::json comparison_to_json(const std::vector<Comparison>& comparisons,
                                  const CompareOptions& options);

}  // namespace tokenbench::experiment
