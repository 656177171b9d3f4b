#pragma once

#include <string>
#include <vector>

#include "tokenbench/core/run_config.h"
#include "tokenbench/metrics/summary.h"

namespace tokenbench::report {

/// How a column of render_grid_table aligns its cells.
enum class Align { kLeft, kRight };

/// An aligned ASCII grid table in the style of evalscope perf (tabulate's "grid"): a header row
/// under a '=' rule, every row boxed. `align` gives each column's alignment; when it is empty
/// the first column is left-aligned and the others right-aligned. Missing cells are blank.
std::string render_grid_table(const std::vector<std::string>& header,
                              const std::vector<std::vector<std::string>>& rows,
                              const std::vector<Align>& align = {});

/// The console report of a run, as evalscope perf prints it: "Benchmarking summary" (Key /
/// Value, times in seconds; plus goodput when SLOs were given), the warnings, "Percentile
/// results" with rows 10% .. 99% (metrics::kConsolePercentiles, independent of --percentiles) and
/// columns TTFT (s), ITL (s), TPOT (s), Latency (s), Input tokens, Output tokens, Output (tok/s),
/// Total (tok/s), and, when requests failed, the error breakdown. Undefined values show as "-".
std::string render_console_report(const metrics::Summary& summary, const core::RunConfig& config);

}  // namespace tokenbench::report
