#pragma once

// One run as the history keeps it (docs/HISTORY.md): when, which workload on which target (its
// identity), the labels and environment it ran in, every figure of its summary.json, and where
// its results directory is. Built from a results directory, so a run is recorded the same way
// when it ends and when `history import` finds it later.

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "tokenbench/core/run_config.h"

namespace tokenbench::history {

struct RunEntry {
  std::int64_t id = 0;      ///< the history's id; 0 until stored
  std::string started_at;   ///< the run's start, ISO-8601 UTC ("2026-12-03T12:40:33Z")
  std::string recorded_at;  ///< when the history took it, ISO-8601 UTC
  /// The workload identity: 16 hex digits of the SHA-256 of `workload` (workload_identity).
  std::string identity;
  /// The settings that identify the workload and its target (experiment::workload_values, less
  /// load.seed: a repeat with another seed is the same workload).
  std::vector<std::pair<std::string, std::string>> workload;
  std::string model;
  std::string base_url;
  std::string dir;        ///< the results directory, absolute
  std::string repeat_of;  ///< the root of the repeated runs (--repeats) this is one of, or ""
  std::map<std::string, std::string> labels;       ///< --label KEY=VALUE
  std::map<std::string, std::string> environment;  ///< environment.json, flattened (env_key)
  std::map<std::string, double> figures;  ///< experiment::figures_from_summary, defined ones
  std::string summary;                    ///< summary.json's text ("" when not loaded)
};

/// The settings of `config` that identify its workload and target, and their identity hash.
std::vector<std::pair<std::string, std::string>> identity_values(const core::RunConfig& config);
std::string workload_identity(const std::vector<std::pair<std::string, std::string>>& values);

/// Reads DIR's summary.json, config.yaml and environment.json (the last optional) into an entry.
/// Throws std::runtime_error naming the file when DIR is not a complete results directory.
RunEntry entry_from_results(const std::string& dir);

/// environment.json flattened to "server.software", "gpus.0.name", "os.release", ...: the
/// command line and start time are left out (they differ every run and are not the
/// environment).
std::map<std::string, std::string> flatten_environment(const std::string& environment_json);

/// True when DIR holds a run's results (summary.json and config.yaml), not only an
/// experiment's root.
bool is_run_results(const std::string& dir);

}  // namespace tokenbench::history
