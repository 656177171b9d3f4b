#pragma once

// `run --serve-cmd`: the flags of a server-configuration sweep, and the command that runs it
// (experiment/serve_sweep.h) with a Runner per configuration.

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "tokenbench/cli/run_flags.h"
#include "tokenbench/experiment/sweep.h"

namespace tokenbench::cli {

/// The flags of server configurations and of the hooks around configurations and levels.
struct ServeFlags {
  std::string serve_cmd;
  std::vector<std::string> params;  ///< --serve-param NAME=V1,V2 (repeatable)
  std::vector<std::string> links;   ///< --link A,B (repeatable)
  double ready_timeout_s = 600;
  double stop_timeout_s = 30;
  std::string before_config;
  std::string after_config;
  std::string before_level;
  std::string after_level;
  bool base_url_given = false;  ///< --base-url was on the command line
  std::string url_template;     ///< set by prepare_serve_flags: the server's URL, {port} in it

  /// A server-configuration sweep was asked for (--serve-cmd, --serve-param or a config hook).
  bool configurations() const {
    return !serve_cmd.empty() || !params.empty() || !before_config.empty() || !after_config.empty();
  }
};

/// Registers the flags on `run`.
void add_serve_flags(CLI::App* cmd, ServeFlags& flags);

/// Before finalize_run_flags: with server configurations, --base-url is a template (its
/// {placeholders} filled per configuration; default http://127.0.0.1:{port}) and --gpus may be
/// one. Throws UsageError for flags that do not go together.
void prepare_serve_flags(RunFlags& run, ServeFlags& flags);

/// The sweep over server configurations: prints each configuration's levels as it ends, then
/// the comparison and the best configuration; returns the exit code. `options` are the sweep's
/// (SLOs, stops); `resume` continues one in that directory.
/// The gates a sweep of server configurations applies: --fail-on-slo, --fail-on-client-bound.
struct ServeGates {
  bool slo = false;
  bool client_bound = false;
};

int serve_sweep_run(RunFlags& run, const ServeFlags& flags, experiment::SweepOptions options,
                    ServeGates gates, const std::string& resume);

}  // namespace tokenbench::cli
