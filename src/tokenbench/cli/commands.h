#pragma once

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

namespace tokenbench::cli {

/// Exit codes of the tokenbench binary (DESIGN.md §4).
inline constexpr int kExitOk = 0;
inline constexpr int kExitUsage = 1;      ///< usage or configuration error
inline constexpr int kExitNoMeasure = 2;  ///< the run could not measure anything
inline constexpr int kExitGate = 3;       ///< an SLO or regression gate failed
/// A distributed run lost (part of) some rank's share: the results are partial
/// (summary.json's tokenbench.distributed.missing says what).
inline constexpr int kExitPartial = 4;
/// A gate (`compare --fail-on-regression`) could not be judged: too few requests to tell the
/// change from noise. `--unjudged pass` turns it into 0.
inline constexpr int kExitUnjudged = 5;
/// The run measured its requests, but its summary could not be saved (a full disk, a directory
/// that became unwritable): the summary was printed on stdout instead, with the reason.
inline constexpr int kExitNotSaved = 6;
/// --fail-on-client-bound: the verdict of the run (of some sweep level, repeat or target) was
/// client-bound: its figures may be the client's, not the server's (metrics/verdict.h).
inline constexpr int kExitClientBound = 7;
/// A run, sweep or search stopped by a signal exits 128 + the signal's number (130 for SIGINT,
/// 143 for SIGTERM), as a shell reports a process the signal killed; its results are kept.
constexpr int exit_stopped(int signal_number) { return 128 + signal_number; }

/// A summary that could not be saved (`why`: "cannot write DIR/summary.json: No space left on
/// device"): prints `document` whole on stdout, its only copy, says why on stderr, and returns
/// kExitNotSaved.
int print_unsaved(const std::string& why, const nlohmann::json& document);

/// --fail-on-client-bound (`enabled`): kExitClientBound when some measurement's verdict
/// (summary.json's tokenbench.verdict) was client-bound, naming the first on stderr; else
/// kExitOk. `summaries` are (name, summary.json): "" for a single run, "level c8", "repeat-2".
int client_bound_gate(bool enabled,
                      const std::vector<std::pair<std::string, nlohmann::json>>& summaries);

/// The process's command line, kept by main() for the environment record (which redacts it).
/// Set once before any command runs; read-only afterwards.
void set_command_line(int argc, char** argv);
const std::vector<std::string>& command_line();

/// Each subcommand registers its flags on `app` and, when chosen, runs and stores its exit code in
/// `exit_code`. One file per subcommand.
void add_run_command(CLI::App& app, int& exit_code);
void add_check_command(CLI::App& app, int& exit_code);
void add_search_command(CLI::App& app, int& exit_code);
void add_report_command(CLI::App& app, int& exit_code);
void add_compare_command(CLI::App& app, int& exit_code);
void add_serve_sim_command(CLI::App& app, int& exit_code);
void add_tokenize_command(CLI::App& app, int& exit_code);
void add_convert_command(CLI::App& app, int& exit_code);
void add_history_command(CLI::App& app, int& exit_code);
/// Hidden commands that print what is generated from the app's commands and flags (its other
/// commands must be registered first): `completion bash|zsh`, a shell completion script
/// (completion.cpp), and `man`, the manual page (man_page.cpp). The package installs both.
void add_completion_command(CLI::App& app, int& exit_code);
void add_man_command(CLI::App& app, int& exit_code);

}  // namespace tokenbench::cli
