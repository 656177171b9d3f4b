#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "tokenbench/core/request.h"
#include "tokenbench/metrics/summary_builder.h"
#include "tokenbench/records/run_notes.h"
#include "tokenbench/report/run_page.h"

namespace tokenbench::report {

/// File name of the HTML report inside a results directory.
inline constexpr const char* kHtmlReportFile = "report.html";

/// Most requests the per-request timeline shows; more are sampled evenly (and the chart says so).
inline constexpr std::size_t kMaxTimelineRequests = 20000;
/// Most points of a time series or a CDF in the report.
inline constexpr std::size_t kMaxSeriesPoints = 2000;

/// Makes JSON text safe inside an HTML `<script type="application/json">` element: `<`, `>`, `&`
/// and U+2028/U+2029 become \u003c, \u003e, \u0026, \u2028 and \u2029. Only valid inside JSON
/// strings, where those characters alone can appear (nlohmann's dump leaves them raw).
std::string escape_json_for_html(std::string_view json);

/// `text` with the credentials of every URL in it (scheme://user:password@host) replaced by
/// `<redacted>`: the page never shows them.
std::string redact_urls(const std::string& text);

/// The factor --sim-time put the figures of a run in the simulator's model time by, as its
/// summary.json states it (tokenbench.config: sim_time_scale under sim_time); 1 otherwise.
double model_time_factor_of(const nlohmann::json& summary_json);

/// Indices of at most `max` of `n` items, spread evenly, first and last kept, in order.
std::vector<std::size_t> even_sample(std::size_t n, std::size_t max);

/// A histogram of values: `edges` has one more entry than `counts`. Log-spaced bins when `log`
/// (values <= 0 land in the first bin). Empty when there are no values.
struct Histogram {
  std::vector<double> edges;
  std::vector<double> counts;
};
Histogram make_histogram(std::vector<double> values, std::size_t bins, bool log);

/// The empirical CDF of `values` at most `max_points` points: (value, fraction <= value).
struct Cdf {
  std::vector<double> x;
  std::vector<double> y;
};
Cdf make_cdf(std::vector<double> values, std::size_t max_points);

/// TTFT, TPOT, ITL (every gap) and E2EL in ms of the measured, completed requests that count
/// (not replaced by a retry, not --nonstream-sample): the values the report's charts draw.
struct FigureValues {
  std::vector<double> ttft, tpot, itl, e2el;
};
FigureValues figure_values(const std::vector<core::RequestRecord>& records);

/// The CDFs of figure_values, each at most `max_points` points, to overlay several runs:
/// {"TTFT": {"n": N, "x": [...], "y": [...]}, "TPOT": ..., "ITL": ..., "E2EL": ...}.
nlohmann::json figure_cdfs(const std::vector<core::RequestRecord>& records, std::size_t max_points);

/// What the report shows, as one JSON object (the data blob the page's script reads): the
/// configuration text, the console tables, key figures, distributions, the timeline, the series
/// over time, errors, checks and telemetry, and which clock they are on ("time": model time under
/// --sim-time). `page` and `figures` were fed the records in the figures' time (under --sim-time,
/// metrics::in_model_time's): the distributions are `figures`' TTFT, TPOT, ITL and E2EL (from
/// their sketch, within its relative error, past their exact limit); telemetry's stamps are in
/// real time. `summary_json` is summary.json's content and `console`
/// report.txt's; `config_yaml` is config.yaml's text (secrets already redacted).
nlohmann::json html_report_data(const RunPageBuilder& page, const metrics::SummaryBuilder& figures,
                                const nlohmann::json& summary_json, const std::string& console,
                                const std::string& config_yaml, const records::RunNotes& notes);
/// The same, from the records at once (the run's distributions at default options).
nlohmann::json html_report_data(const std::vector<core::RequestRecord>& records,
                                const nlohmann::json& summary_json, const std::string& console,
                                const std::string& config_yaml, const records::RunNotes& notes);

/// The whole self-contained page for `data` (html_report_data): the template with the chart
/// library, the page's CSS and JS and the escaped data embedded.
std::string render_html_report(const nlohmann::json& data);

}  // namespace tokenbench::report
