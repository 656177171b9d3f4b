#pragma once

#include <sys/types.h>

#include <CLI/CLI.hpp>
#include <atomic>
#include <functional>
#include <map>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "tokenbench/cli/sampling_flags.h"
#include "tokenbench/core/run_config.h"
#include "tokenbench/measure/runner.h"

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
  bool quiet = false;
  bool overwrite = false;
  std::string history_path;  // --history FILE ("": the default); where results go, not compared
  bool no_history = false;   // --no-history
  std::string config_file;   // --config: expanded into flags before parsing (config_file.h)
  /// --gpus as typed: a number, or (placeholders_allowed) an expression of a server
  /// configuration's {placeholders}, kept in gpus_expr.
  std::string gpus = "1";
  bool placeholders_allowed = false;  ///< a server-configuration sweep (--serve-cmd)
  std::string gpus_expr;              ///< set by finalize_run_flags
  std::string max_event_bytes = "4MiB";
  std::string max_line_bytes = "16MiB";
  std::string max_reply_bytes = "0";
  /// The most memory the workload built up front may take: auto, 0 (no check) or a byte size.
  std::string max_workload_memory = "auto";
  SamplingFlags sampling;  // merged into config.extra_body
  /// The text of each enum option of the table (core/run_options.h), by flag; parsed into
  /// `config` by finalize_run_flags.
  std::map<std::string, std::string, std::less<>> enum_text;
  /// Seconds between plain progress lines when stderr is not a terminal; 0: none.
  double progress_interval_s = 10;
  /// `search`: each probe sets the rate or the concurrency, so the load given is not checked
  /// as one measurement's (core::validate_load).
  bool load_searched = false;

  // Set by finalize_run_flags.
  std::vector<int> concurrencies;
  std::vector<double> rates;
};

/// Registers every flag of one measurement on `cmd`: the option table's (core/run_options.h),
/// then the few that are not one RunConfig member each (lists, URLs, byte sizes, sampling).
void add_run_flags(CLI::App* cmd, RunFlags& flags);

/// Validates the flags and fills flags.config, flags.concurrencies and flags.rates. Throws
/// UsageError with a one-line message naming the flag.
void finalize_run_flags(RunFlags& flags);

/// Splits a base URL that carries an API path, as evalscope's --url and OpenAI clients' base URLs
/// do: ".../v1" is the root's API prefix, ".../v1/chat/completions" a whole endpoint (also
/// completions, embeddings, messages, responses). Returns the server root and the path found
/// ("" when the URL had none, "/v1" for the prefix alone).
std::pair<std::string, std::string> split_api_path(const std::string& url);

/// Checks a --base-url (http:// or https://, trailing slashes dropped) and splits off an API path
/// it carries (split_api_path): a whole endpoint becomes `endpoint` (and `*from_url` is set); an
/// --endpoint given that differs from it is refused, since the URL decides. Says in one line on
/// stderr what it changed. Throws UsageError.
std::string forgiving_url(const std::string& given, std::string& endpoint, bool endpoint_given,
                          bool* from_url = nullptr);

/// The API of --api API (empty: inferred from `endpoint`: a path containing "chat" is chat).
/// Throws UsageError for an unknown one.
core::ApiKind resolve_api(const std::string& api, const std::string& endpoint);

/// The API of --api and the endpoint it goes to, as `run`, `search` and `check` settle them:
/// resolve_api, then --api given alone (no --endpoint, and no endpoint named by the URL:
/// `endpoint_from_url`) moves the default endpoint to that API's path. An --api that does not
/// fit the endpoint the URL names is refused: the URL a user gives decides what is measured.
/// Throws UsageError.
core::ApiKind settle_api(const std::string& api, std::string& endpoint, bool endpoint_given,
                         bool endpoint_from_url);

/// core::check_headers, its ConfigError as a UsageError.
void check_headers(const std::vector<std::string>& headers);

/// Parses a byte size: "4194304", "4MiB", "512KiB", "1GiB", "1TiB" (K, M, G, T and KB, MB, GB,
/// TB are read as binary multiples too). Throws UsageError naming `flag`.
std::int64_t parse_byte_size(const std::string& text, const char* flag);

/// --max-line-bytes for the commands that read files without the run's flags (report, compare):
/// adds the option, storing its text in `value`.
void add_max_line_bytes_flag(CLI::App* cmd, std::string& value);
/// Parses and range-checks --max-line-bytes' text and makes it the process's limit
/// (core::set_max_line_bytes). Throws UsageError naming the flag and the range.
void apply_max_line_bytes(const std::string& value);

/// Parses "model=NAME,url=URL,key-env=VAR,name=LABEL" (model required). Throws UsageError.
core::TargetSpec parse_target(const std::string& item);

/// The default results directory's name: results/<timestamp>-<model>, the run's start to the
/// second (sortable; `claim_output_dir` makes it unique).
std::string default_output_dir(const core::RunConfig& config);

/// Creates the directory `name`, or, when it already exists (another run started in the same
/// second), `name`-2, -3, ... (the first that did not exist), each attempt one atomic mkdir, so
/// that runs started together never share one. Returns the directory created; `name` unchanged
/// when none could be created (the run then says why it cannot write there).
std::string claim_output_dir(const std::string& name);

/// Ctrl-C and SIGTERM while it lives: the first cancels the runner attached then (and any
/// attached later), which reports what it measured; a second flushes that runner's records,
/// kills the guarded process group, and exits at once (128 + the signal's number). For commands
/// that make their Runners one after another (a server-configuration sweep); with_runner makes
/// one for its own.
class SignalScope {
 public:
  explicit SignalScope(measure::Runner* runner = nullptr);
  ~SignalScope();
  SignalScope(const SignalScope&) = delete;
  SignalScope& operator=(const SignalScope&) = delete;

  /// The runner a signal cancels from now on (null: none). Detach before destroying it.
  void attach(measure::Runner* runner);
  /// A process group (a server tokenbench started) a second signal kills; 0: none.
  void guard_group(pid_t group);
  bool stopped() const;       ///< a signal arrived
  int signal_number() const;  ///< the first signal's number, or 0

 private:
  void watch();
  std::atomic<bool> done_{false};
  std::thread watcher_;
};

/// The hook that adds each saved run to the history (cli/history.cpp): --history's file or the
/// default; null under --no-history. Unless --quiet, a line names the run's id.
std::function<void(const measure::LevelResult&)> history_recorder(const RunFlags& flags);

/// "tokenbench: interrupted; partial results kept. Re-run with --resume DIR to finish the
/// WHAT" on stderr, after an interrupted sweep or search.
void say_resume_hint(const std::string& dir, const char* what);

/// Stamps the start, resolves the target(s) with an measure::Runner, fills in the default
/// results directory (with `dir_suffix`) when none was given, and calls `body` with Ctrl-C and
/// SIGTERM cancelling the runner (a second signal ends the process at once). A RunError becomes
/// one line on stderr and exit 1 (configuration) or 2 (unreachable); else `body`'s exit code.
int with_runner(core::RunConfig& config, measure::Runner::Options options,
                const std::string& dir_suffix, const std::function<int(measure::Runner&)>& body);

}  // namespace tokenbench::cli
