#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tokenbench/core/run_config.h"
#include "tokenbench/metrics/summary.h"

namespace tokenbench::report {

/// How a column of render_grid_table aligns its cells.
enum class Align { kLeft, kRight };

/// An aligned ASCII grid table in the style of evalscope perf (tabulate's "grid"): a header row
/// under a '=' rule, every row boxed (with `compact`, no rule between rows). `align` gives each
/// column's alignment; when it is empty the first column is left-aligned and the others
/// right-aligned. Missing cells are blank.
/// A table cell of `v` in `format` ("{:.1f}"), or "-" when undefined.
std::string defined_cell(double v, const char* format);

std::string render_grid_table(const std::vector<std::string>& header,
                              const std::vector<std::vector<std::string>>& rows,
                              const std::vector<Align>& align = {}, bool compact = false);

/// How the console shows a run (--console-style; core/run_config.h).
using core::ConsoleStyle;

/// Parses "ms", "compact" or "evalscope-s" (core::kConsoleStyleNames).
inline std::optional<ConsoleStyle> console_style_from_string(std::string_view name) {
  return core::kConsoleStyleNames.parse(name);
}

/// A latency in milliseconds with at least two decimals and three significant digits, so that
/// a non-zero value never prints as zero (784.50, 5.80, 0.300, 0.00160); "-" when undefined.
std::string significant_cell(double ms);

/// The console report of a run, in evalscope perf's layout: a line naming the model, the target
/// and the run's start; "Benchmarking summary" (Key / Value; plus goodput when SLOs were given);
/// where the token counts came from; the warnings; "Percentile results" with rows 10% .. 99%
/// (metrics::kConsolePercentiles) and every --percentiles value, and columns TTFT, ITL, TPOT,
/// Latency, Input tokens, Output tokens, Output (tok/s) and Total (tok/s) as evalscope defines
/// them (tokens / E2EL), and Decode (tok/s); and, when requests failed, the error breakdown.
/// Latencies are in milliseconds, or seconds with config.console_style "evalscope-s". A run
/// without a successful request shows only the failures. Undefined values show as "-".
std::string render_console_report(const metrics::Summary& summary, const core::RunConfig& config);

}  // namespace tokenbench::report
