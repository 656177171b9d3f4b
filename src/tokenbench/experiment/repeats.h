#pragma once

// --repeats N: a measurement run N times with different seeds (seed, seed+1, ...), each a
// complete results directory (DIR/repeat-1, ...), and at DIR a summary of them: every figure's
// run-level mean with its Student's t 95% interval (docs/EXPERIMENTS.md, "Repeats").

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "tokenbench/core/run_config.h"
#include "tokenbench/experiment/runner.h"
#include "tokenbench/metrics/intervals.h"

namespace tokenbench::experiment {

/// The subdirectory of repeat `i` (1-based): "repeat-1".
std::string repeat_dir(int i);

/// Whether DIR is the root of repeated runs (DIR/repeat-1, ..., and no requests file of its own).
bool is_repeated_root(const std::string& dir);

/// The summary of repeated runs, as summary.json at their root holds it: each number at the top
/// level of every run's summary (request_throughput, p95_ttft_ms, ...) becomes the runs' mean;
/// the other keys are the first run's. tokenbench.repeats says what was aggregated: {"n",
/// "seeds", "dirs", "interval": the method, "figures": {KEY: {"mean", "lo", "hi",
/// "half_width", "stddev", "values"}}} (lo and hi null with fewer than two runs).
nlohmann::json summary_of_repeats(const std::vector<nlohmann::json>& summaries,
                                  const std::vector<std::string>& dirs,
                                  const std::vector<std::uint64_t>& seeds);

/// The interval of `key` in a summary of repeats, or nullopt (not repeated, or fewer than two
/// runs with the figure).
std::optional<metrics::Interval> repeat_interval(const nlohmann::json& summary,
                                                 const std::string& key);

/// "187.1 ± 2.3" (`format` applied to both) when `summary` is of repeats with an interval for
/// `key`; else the figure alone; "-" when it has none.
std::string with_interval(const nlohmann::json& summary, const std::string& key,
                          const char* format);

/// What run_repeats measured.
struct RepeatedRun {
  nlohmann::json summary;  ///< summary_of_repeats of the complete runs (written at the root)
  int completed = 0;       ///< runs that ran to their end
  RunOutcome last;         ///< the last run's outcome (a guard's stop, a cancel)
  std::string not_saved;   ///< a summary that could not be written, the first; "" when all were
};

/// Runs `config` `n` times with seeds config.seed + i - 1 into config.output_dir/repeat-i, then
/// writes config.output_dir/summary.json (summary_of_repeats) and a copy of repeat-1's
/// config.yaml (so that --resume recognises the level). Stops at a cancel or a guard's stop
/// (--fail-fast): the runs so far are summarised.
RepeatedRun run_repeats(Runner& runner, const core::RunConfig& config, int n);

/// The console's table of repeated runs: each headline figure's mean ± half-width, its lowest
/// and highest run, and what the interval is.
std::string render_repeats(const nlohmann::json& summary);

}  // namespace tokenbench::experiment
