#pragma once

// A server-configuration sweep (`run --serve-cmd`, docs/EXPERIMENTS.md): for each server
// configuration, start the server under test (or run --before-config for one tokenbench does not
// start), wait until it is ready, sweep the client's load against it, stop it; then compare the
// configurations: every (configuration, level) in one sweep.json, the Pareto front across them,
// and the best configuration under the SLOs.

#include <sys/types.h>

#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "tokenbench/core/run_config.h"
#include "tokenbench/experiment/runner.h"
#include "tokenbench/experiment/serve_configs.h"
#include "tokenbench/experiment/sweep.h"

namespace tokenbench::experiment {

/// How the server configurations are made and run.
struct ServeSweepOptions {
  std::string serve_cmd;  ///< --serve-cmd ("" : an external server, set by the hooks)
  std::vector<ServeParam> params;
  std::vector<std::string> links;
  std::string before_config;  ///< --before-config, run before the server starts
  std::string after_config;   ///< --after-config, run after it stopped
  double ready_timeout_s = 600;
  double stop_grace_s = 30;
  std::string gpus_expr;  ///< --gpus with placeholders ("{tp}*{dp}"); "" : SweepOptions::gpus
  bool resume = false;
  /// The server's root URL with {placeholders} (from --base-url; "" : http://127.0.0.1:{port}),
  /// where readiness is asked.
  std::string base_url;
  /// Polled while the sweep waits (for a server, between configurations): a signal arrived.
  std::function<bool()> stop_requested;
  /// Told the process group of each server started (0 once it stopped), so that an exit at once
  /// can kill it.
  std::function<void(pid_t)> on_server;
};

/// Makes the Runner of one configuration, once its server is ready: `config` is the base
/// configuration, its base URL to be filled from `values` (the placeholders, {port} among them).
/// The Runner lives until the next call (or the factory's owner ends). Throws RunError (its
/// preflight failed).
using RunnerFactory = std::function<Runner&(core::RunConfig& config,
                                            const std::map<std::string, std::string>& values)>;

/// What became of one server configuration.
struct ConfigOutcome {
  ServeConfig config;
  int port = 0;
  double gpus = 1;
  /// complete | failed (did not start, or a hook failed) | not_ready | crashed (exited during
  /// a level) | interrupted
  std::string status;
  std::string error;     ///< what went wrong, one line ("" when complete)
  std::string log_tail;  ///< the last lines of server.log when it went wrong
  double ready_s = -1;   ///< seconds until it was ready (-1: never)
  bool resumed = false;  ///< complete in an earlier run (--resume), kept
  SweepResult sweep;     ///< its levels (none when it never became ready)
};

/// A whole server-configuration sweep.
struct ServeSweepResult {
  std::vector<ConfigOutcome> configs;
  /// Per configuration, per level: on the Pareto front across every configuration's levels.
  std::vector<std::vector<bool>> pareto;
  /// The best (configuration, level) among the complete levels meeting every SLO: the most
  /// request goodput with --goodput, else the most request throughput.
  std::optional<std::pair<std::size_t, std::size_t>> best;
  bool canceled = false;
  std::string interrupted;
  std::string not_saved;  ///< why sweep.json could not be written, or ""
};

/// Runs the sweep into base.output_dir: a directory per configuration (its server.log, hooks.log
/// and a sweep of `levels`, as run_sweep writes it), rewriting the root's sweep.json and
/// sweep.csv after each configuration. `on_config` is called when one ends (to print it).
ServeSweepResult run_serve_sweep(const core::RunConfig& base, const std::vector<SweepLevel>& levels,
                                 const SweepOptions& sweep, const ServeSweepOptions& serve,
                                 const RunnerFactory& make_runner,
                                 const std::function<void(const ConfigOutcome&)>& on_config);

/// The root's sweep.json: {"kind": "serve_sweep", "configurations": [...], "levels": [every
/// level of every configuration, with "config" and "params"], "best", "slo", ...}.
nlohmann::json serve_sweep_to_json(const ServeSweepResult& result, const SweepOptions& sweep,
                                   const ServeSweepOptions& serve);

/// The root's sweep.csv: one row per (configuration, level), the parameters as columns.
std::string serve_sweep_to_csv(const ServeSweepResult& result);

/// The console's comparison: a row per configuration (its best level), the Pareto front, and
/// the best configuration in one sentence.
std::string render_serve_sweep(const ServeSweepResult& result, const SweepOptions& sweep);

}  // namespace tokenbench::experiment
