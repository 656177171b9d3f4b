#pragma once

#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "tokenbench/core/run_config.h"
#include "tokenbench/experiment/figures.h"
#include "tokenbench/experiment/runner.h"
#include "tokenbench/experiment/slo_expr.h"

namespace tokenbench::experiment {

/// File names at the root of a sweep's results directory.
inline constexpr const char* kSweepJson = "sweep.json";
inline constexpr const char* kSweepCsv = "sweep.csv";

/// One load level of a sweep and the subdirectory its results go to ("c8", "r4", "c8-r4").
struct SweepLevel {
  int max_concurrency = 0;  ///< 0: unlimited
  double request_rate = 0;  ///< inf: every request at once
  std::string dir;
  /// > 0: this level's own request count instead of --num-prompts (--level-prompts: EvalScope's
  /// --number with a count per --parallel level).
  std::int64_t num_prompts = 0;
};

/// Every combination of the given concurrencies and rates, ascending in load (rate-major; 0
/// concurrency and an infinite rate count as the highest), duplicates dropped. A directory name
/// names what varies: c<N>, r<R>, or c<N>-r<R> when both do.
std::vector<SweepLevel> sweep_levels(std::vector<int> concurrencies, std::vector<double> rates);

struct SweepResult;

/// What a sweep checks and when it stops.
struct SweepOptions {
  std::vector<SloExpr> slos;    ///< --slo: a level meets them all or not
  bool by_goodput = false;      ///< --goodput given: the best level has the most goodput
  double knee_threshold = 1.0;  ///< --knee-threshold (see find_knee)
  std::optional<double> stop_on_error_rate;  ///< end after a level above this error rate
  bool stop_on_slo_breach = false;           ///< end after a level that breaks an --slo
  bool resume = false;                       ///< reuse levels sweep.json marks complete
  double gpus = 1;                           ///< --gpus: the Pareto front's output tok/s per GPU
  /// --before-level and --after-level: shell commands run before and after each level measured
  /// (not one kept by --resume), their {placeholders} filled from `placeholders` and the
  /// level's {level} (its directory's name), {max_concurrency}, {request_rate} and
  /// {output_dir}; their output appended to `hook_log`. A failing --before-level ends the sweep
  /// there (the level is not measured); a failing --after-level is a warning.
  std::string before_level;
  std::string after_level;
  std::map<std::string, std::string> placeholders;
  std::string hook_log;
  double hook_timeout_s = 600;
  /// Asked after each level: why the levels after it cannot be measured (the server under test
  /// exited), or "". Unset: never.
  std::function<std::string()> gone;
  std::string progress_prefix;  ///< before "level i/n (dir)" in the live view
  /// --repeats: each level measured this many times (experiment/repeats.h), its summary the
  /// runs' means with their intervals.
  int repeats = 1;
  /// Asked once the given levels are measured, unless the sweep stopped: more levels to measure
  /// after them (run --rate-sweep: constant rates between the first two levels' throughputs).
  /// The points are then ordered by their request throughput, lowest first.
  std::function<std::vector<SweepLevel>(const SweepResult&)> more_levels;
};

/// One level's outcome.
struct SweepPoint {
  SweepLevel level;
  nlohmann::json summary;  ///< the level's summary.json
  Figures figures;
  std::vector<SloVerdict> slo;
  bool meets_slo = true;  ///< every --slo met (vacuously without any)
  bool complete = false;  ///< ran to its end (not interrupted)
  bool resumed = false;   ///< taken from an earlier, interrupted sweep
};

/// A whole sweep.
struct SweepResult {
  std::vector<SweepPoint> points;  ///< in the order run; the last may be incomplete
  std::optional<std::size_t> knee;
  std::optional<std::size_t> best;
  /// Per point: on the Pareto front of output tok/s per GPU against the median decode rate (a
  /// user's tok/s): no other complete level is better in both.
  std::vector<bool> pareto;
  std::string stopped;  ///< why the sweep ended before its last level ("" when it did not)
  std::string gone;     ///< what SweepOptions::gone said (the server exited), or ""
  bool canceled = false;
  std::string interrupted;  ///< what stopped the sweep midway (Runner::interruption()), or ""
  /// Why a level's summary.json or sweep.json could not be written (a full disk), the first;
  /// "" when all were. The CLI then prints sweep.json's document and exits 6.
  std::string not_saved;
};

/// The knee of a curve of levels ascending in load. The step from level i-1 to i is worth its
/// cost when throughput rose, by a relative gain at least `threshold` times the relative rise
/// of the p95 E2E latency: X_i/X_{i-1} - 1 >= threshold * (L_i/L_{i-1} - 1), X the request
/// throughput, L p95_e2el_ms. With threshold 1 that is "throughput over latency still grows"
/// (Kleinrock's power). The knee is the last level reached from the first through worthwhile
/// steps only. nullopt with fewer than two levels or an undefined first level.
std::optional<std::size_t> find_knee(const std::vector<Figures>& levels, double threshold);

/// A level's place in the Pareto chart: its output tok/s per GPU (output_throughput / gpus) and a
/// user's median decode rate; NaN for an incomplete level.
std::pair<double, double> pareto_point(const SweepPoint& p, double gpus);

/// What a level is judged by for the best: its request goodput (`by_goodput`) or request
/// throughput when it is complete and meets every SLO; NaN when it cannot be the best.
double best_value(const SweepPoint& p, bool by_goodput);

/// The best level among the complete ones meeting every SLO: the most request goodput when
/// `by_goodput`, else the most request throughput. nullopt when none qualifies.
std::optional<std::size_t> find_best(const std::vector<SweepPoint>& points, bool by_goodput);

/// run --rate-sweep N (GuideLLM's sweep): one request at a time (c1), then every request at once
/// (at most `concurrency` in flight; 0: no limit), then, once both are measured, N - 2 constant
/// rates evenly between their request throughputs (more_levels). Directories c1-rinf,
/// cN-rinf and cN-rR.
std::vector<SweepLevel> rate_sweep_levels(int concurrency);
std::vector<SweepLevel> rate_sweep_between(const SweepResult& measured, int n, int concurrency);

/// The verdict of a measurement's summary.json (tokenbench.verdict) was client-bound; false for
/// a summary without one.
bool client_bound(const nlohmann::json& summary);
/// The level's verdict was client-bound.
bool client_bound(const SweepPoint& p);

/// Runs every level with `runner` (each a complete `tokenbench run` into base.output_dir/DIR,
/// with the base configuration's seed, warmup and workload), rewriting sweep.json and
/// sweep.csv after each, and stops early as `options` says or when the runner is canceled.
SweepResult run_sweep(Runner& runner, const core::RunConfig& base,
                      const std::vector<SweepLevel>& levels, const SweepOptions& options);

/// The value of each level placeholder of --before-level and --after-level for `level` run into
/// `output_dir`, on top of `base`.
std::map<std::string, std::string> level_placeholders(std::map<std::string, std::string> base,
                                                      const SweepLevel& level,
                                                      const std::string& output_dir);

/// Runs a level hook (--before-level as `flag`: options.before_level, or --after-level) for
/// `level` measured into `output_dir`, its output appended to options.hook_log. "" when it
/// succeeded or none is given; else "--before-level exited with status 1".
std::string run_level_hook(const std::string& command, const char* flag,
                           const SweepOptions& options, const SweepLevel& level,
                           const std::string& output_dir);

/// --after-level for `level` (options.after_level): run_level_hook, a failure said as a warning
/// on stderr naming options.hook_log; the level stays measured.
void run_after_level_hook(const SweepOptions& options, const SweepLevel& level,
                          const std::string& output_dir);

/// sweep.json: {"levels": [{max_concurrency, request_rate, dir, complete, meets_slo, slo,
/// ...every key of the level's summary.json}], "knee", "best", "knee_threshold", "slo",
/// "stopped"}.
nlohmann::json sweep_to_json(const SweepResult& result, const SweepOptions& options);

/// sweep.csv: one row per level with the headline figures.
std::string sweep_to_csv(const SweepResult& result);

/// The console table (one row per level, the knee and the best level marked) and the readings
/// in words.
std::string render_sweep(const SweepResult& result, const SweepOptions& options);

}  // namespace tokenbench::experiment
