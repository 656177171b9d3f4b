#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tokenbench/core/run_config.h"
#include "tokenbench/experiment/figures.h"
#include "tokenbench/experiment/runner.h"
#include "tokenbench/experiment/slo_expr.h"

namespace tokenbench::experiment {

/// The file at the root of a multi-target run's results directory.
inline constexpr const char* kCompareJson = "compare.json";

/// The default ranking weights (an interactive chat product): TTFT 0.5, TPS 0.3, TPOT 0.2.
inline constexpr const char* kDefaultWeights = "ttft=0.5,tps=0.3,tpot=0.2";

/// One figure's share of a target's score.
struct Weight {
  std::string figure;  ///< full figure name (aliases expanded)
  double weight = 0;
};

/// Parses --weights "ttft=0.5,tps=0.3,tpot=0.2" (aliases of expand_figure_alias or full figure
/// names; weights > 0). Throws std::invalid_argument with a one-line message on a bad item.
std::vector<Weight> parse_weights(const std::string& text);

/// One target's row of the comparison.
struct TargetRow {
  std::string name;
  std::string dir;
  Figures figures;
  std::vector<SloVerdict> required;  ///< --require checks
  bool eliminated = false;
  std::string reason;  ///< every requirement broken, e.g. "p95_ttft_ms 2412 > 2000; ..."
  double score = 0;    ///< in [0, 1]; 0 for an eliminated target
  int rank = 0;        ///< 1 is best; 0 for an eliminated target
};

/// Checks every target against `required` (a target where no request succeeded is eliminated
/// too), then scores the rest: per weighted figure, a
/// target's value relative to the best surviving one (best/value when lower is better,
/// value/best when higher is, (1 - value)/(1 - best) for error_rate, so the best gets 1 and an
/// undefined value 0), summed with the weights and divided by their total. Ranks by score (ties:
/// table order).
std::vector<TargetRow> rank_targets(std::vector<TargetRow> rows,
                                    const std::vector<SloExpr>& required,
                                    const std::vector<Weight>& weights);

/// compare.json: the table, the eliminations, the weights, the scores and the ranks.
nlohmann::json ranking_to_json(const std::vector<TargetRow>& rows,
                               const std::vector<SloExpr>& required,
                               const std::vector<Weight>& weights);

/// The comparison table (one row per target) under a line naming how the targets shared the
/// load (`load`, e.g. "each target had its own max-concurrency 16"; none when empty), and the
/// ranking in words.
std::string render_ranking(const std::vector<TargetRow>& rows, const std::vector<Weight>& weights,
                           const std::string& load = "");

/// How the targets of `config` shared the load, for render_ranking: "each with its own load
/// (max-concurrency 16) (--target-load each)", or a shared schedule and what that means.
std::string target_load_line(const core::RunConfig& config);

/// A multi-target run, ranked.
struct TargetsResult {
  RunOutcome outcome;
  std::vector<TargetRow> rows;  ///< ranked (rank_targets)
  nlohmann::json ranking;       ///< compare.json's document (ranking_to_json)
  /// Why compare.json or a target's summary.json could not be written (a full disk), or "".
  std::string not_saved;
};

/// Measures the targets of `config` with `runner` (one interleaved measurement, a results
/// directory per target), ranks them by `required` and `weights`, and writes compare.json and
/// the root's report.html. Throws RunError as Runner::run does.
TargetsResult run_targets(Runner& runner, const core::RunConfig& config,
                          const std::vector<SloExpr>& required, const std::vector<Weight>& weights);

}  // namespace tokenbench::experiment
