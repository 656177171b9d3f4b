#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "tokenbench/core/run_config.h"
#include "tokenbench/experiment/runner.h"

namespace tokenbench::cli {

/// A bad flag or value: one line, exit 1.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// The flags of one measurement, shared by `run` and `search`, as typed; finalize_run_flags turns
/// them into `config`.
struct RunFlags {
  core::RunConfig config;
  std::string api;  // empty: inferred from the endpoint
  std::string arrival = "gamma";
  std::string percentiles = "50,90,95,99";
  std::string concurrency = "0";  // one value, or a list for a sweep
  std::string rate = "inf";       // one value, or a list for a sweep
  std::vector<std::string> base_urls{"http://127.0.0.1:8000"};
  std::string models;  // one name, or a comma-separated list of targets
  std::vector<std::string> target_items;
  std::string ramp = "none";
  std::string balance = "round-robin";
  bool endpoint_given = false;     // --endpoint was on the command line
  bool num_prompts_given = false;  // --num-prompts was on the command line
  bool no_stream = false;
  bool no_ignore_eos = false;
  bool quiet = false;
  bool overwrite = false;

  // Set by finalize_run_flags.
  std::vector<int> concurrencies;
  std::vector<double> rates;
};

/// Registers every flag of one measurement on `cmd`.
void add_run_flags(CLI::App* cmd, RunFlags& flags);

/// Validates the flags and fills flags.config, flags.concurrencies and flags.rates. Throws
/// UsageError with a one-line message naming the flag.
void finalize_run_flags(RunFlags& flags);

/// Parses "model=NAME,url=URL,key-env=VAR,name=LABEL" (model required). Throws UsageError.
core::TargetSpec parse_target(const std::string& item);

/// The default results directory: results/<timestamp>-<model>.
std::string default_output_dir(const core::RunConfig& config);

/// Stamps the start, resolves the target(s) with an experiment::Runner, fills in the default
/// results directory (with `dir_suffix`) when none was given, and calls `body` with Ctrl-C and
/// SIGTERM cancelling the runner (a second signal ends the process at once). A RunError becomes
/// one line on stderr and exit 1 (configuration) or 2 (unreachable); else `body`'s exit code.
int with_runner(core::RunConfig& config, experiment::Runner::Options options,
                const std::string& dir_suffix, const std::function<int(experiment::Runner&)>& body);

}  // namespace tokenbench::cli
