#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tokenbench::experiment {

/// Every figure of one run by name (NaN: defined by name, undefined in this run). The names are
/// summary.json's top-level keys (completed, request_throughput, p95_ttft_ms, ...), plus
/// `error_rate` (failed / measured), `max_concurrency_observed`, and for each distribution X of
/// the nested `tokenbench.distributions` section (ttft_ms, decode_tps, queue_time_ms, ...):
/// mean_X, median_X, std_X, min_X, max_X and pNN_X (e.g. p50_decode_tps, p99_queue_time_ms).
using Figures = std::map<std::string, double, std::less<>>;

/// Flattens a summary.json document into its figures.
Figures figures_from_summary(const nlohmann::json& summary);

/// The figure `name` of `f`, NaN when it has none.
double figure(const Figures& f, std::string_view name);

/// "class: message" of the first error example of a summary.json ("" without any).
std::string first_error(const nlohmann::json& summary);

/// The names every run defines (from an empty run's summary), sorted.
const std::vector<std::string>& known_figure_names();

/// A percentile figure split into its percentile and distribution: "p95_ttft_ms" -> (95,
/// "ttft_ms"), "p99.9_e2el_ms" -> (99.9, "e2el_ms"), "median_tpot_ms" -> (50, "tpot_ms");
/// nullopt for a name of any other shape (the distribution is not checked).
std::optional<std::pair<double, std::string>> percentile_figure(std::string_view name);

/// True when `name` is a figure of some run: one of known_figure_names(), or pNN_X for any
/// percentile NN in (0, 100) (a --percentiles value, e.g. p99.9_ttft_ms) of a distribution X.
bool is_figure_name(std::string_view name);

/// True when a larger value of the figure is better: throughputs, goodput, per-request token
/// rates (`_tps`) and completed counts, but not their spread (`std_`); false for latencies,
/// errors and everything else.
bool higher_is_better(std::string_view name);

/// Short names accepted where a figure is named for ranking: ttft, tpot, itl, e2el (their
/// medians), tps (the median per-request output rate), throughput (output tokens/s), error_rate.
/// Any other text is returned as it is (a full figure name).
std::string expand_figure_alias(std::string_view name);

}  // namespace tokenbench::experiment
