#pragma once

// `tokenbench history trend FIGURE`: one figure of one workload's runs over time, the change
// points in it (change_points.h), what changed in the environment between consecutive runs, and
// whether the latest run lies in a segment worse than the one before (docs/HISTORY.md).

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "tokenbench/history/change_points.h"
#include "tokenbench/history/run_entry.h"
#include "tokenbench/metrics/intervals.h"

namespace tokenbench::history {

/// An environment field or label that differs from the previous point's run.
struct EnvChange {
  std::string key;  ///< "server.software", "label.engine"
  std::string before;
  std::string after;
};

/// One point of a trend: a run, or the repeated runs of one --repeats root (their mean and its
/// 95% t-interval).
struct TrendPoint {
  std::vector<std::int64_t> ids;  ///< the runs it stands for (history ids)
  std::string started_at;         ///< the first run's start
  std::string dir;                ///< the run's results directory, or the repeats' root
  double value = 0;
  std::optional<metrics::Interval> interval;  ///< with two or more repeats
  std::vector<EnvChange> changed;             ///< against the previous point
};

/// A change point, as the trend names it.
struct TrendChange {
  ChangePoint point;
  bool worse = false;              ///< the mean moved the figure's wrong way
  std::vector<EnvChange> changed;  ///< the environment's changes at its first point
};

struct Trend {
  std::string figure;
  std::string identity;
  std::string model;
  std::string base_url;
  bool higher_is_better = false;
  std::vector<TrendPoint> points;
  std::vector<TrendChange> changes;
  ChangePointOptions options;
  /// The latest point lies after a change to worse, with no change since.
  bool latest_worse = false;
  std::size_t skipped = 0;  ///< runs without the figure
};

/// The trend of `figure` over `runs` (one identity, oldest first). Runs without the figure are
/// skipped (counted); repeats of one root become one point.
Trend build_trend(const std::vector<RunEntry>& runs, const std::string& figure,
                  const ChangePointOptions& options);

/// The console's table: each point's id, start, value (± interval), the environment's changes,
/// then the change points and the latest segment's verdict.
std::string render_trend(const Trend& trend);

/// The trend as JSON (`--json`, and the data of `--html`'s page: kind "trend").
nlohmann::json trend_json(const Trend& trend);

/// The environment fields and labels that differ between two runs, in key order.
std::vector<EnvChange> environment_changes(const RunEntry& before, const RunEntry& after);

}  // namespace tokenbench::history
