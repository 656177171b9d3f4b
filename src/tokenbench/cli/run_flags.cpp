// The flags of one measurement, shared by `tokenbench run` and `tokenbench search`.

#include "tokenbench/cli/run_flags.h"

#include <fmt/core.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <thread>

#include "tokenbench/cli/commands.h"
#include "tokenbench/cli/memory_check.h"
#include "tokenbench/cli/run_flag_parts.h"
#include "tokenbench/core/clock.h"
#include "tokenbench/core/config_check.h"
#include "tokenbench/core/input_limits.h"
#include "tokenbench/core/secret_fields.h"
#include "tokenbench/core/text.h"
#include "tokenbench/distributed/mpi_comm.h"
#include "tokenbench/experiment/serve_configs.h"
#include "tokenbench/experiment/sweep.h"
#include "tokenbench/measure/cohort.h"
#include "tokenbench/records/recorder.h"

namespace tokenbench::cli {
namespace {

std::vector<std::string> g_command_line;

std::atomic<measure::Runner*> g_running{nullptr};
std::atomic<bool> g_interrupted{false};
std::atomic<bool> g_exit_now{false};
std::atomic<int> g_signal{0};   // the first signal that stopped the run
std::atomic<pid_t> g_group{0};  // a server's process group (SignalScope::guard_group)

extern "C" void on_interrupt(int signal_number) {
  // The first Ctrl-C (or SIGTERM) stops the run, which then reports what it measured; a second
  // one asks for an exit at once, after the records measured so far are written.
  if (g_interrupted.exchange(true)) {
    g_exit_now.store(true);
    return;
  }
  g_signal.store(signal_number);
  if (measure::Runner* r = g_running.load()) r->cancel(signal_number);
}

}  // namespace

void set_command_line(int argc, char** argv) {
  g_command_line.assign(argv, argv + argc);
  // EvalScope's --api-key KEY and --otlp-header NAME=VALUE: the value never reaches the
  // environment record.
  for (std::size_t i = 0; i < g_command_line.size(); ++i) {
    std::string& a = g_command_line[i];
    a = core::redact_command(a);  // a --serve-cmd's "--api-key K" inside one argument
    if (a == "--api-key" && i + 1 < g_command_line.size()) {
      g_command_line[i + 1] = "<redacted>";
    } else if (a.rfind("--api-key=", 0) == 0) {
      a = "--api-key=<redacted>";
    } else if (a == "--otlp-header" && i + 1 < g_command_line.size()) {
      // A collector's credentials: the header's name is kept, never its value.
      std::string& v = g_command_line[i + 1];
      v = v.substr(0, v.find('=')) + "=<redacted>";
    } else if (a.rfind("--otlp-header=", 0) == 0) {
      a = a.substr(0, a.find('=', 14)) + "=<redacted>";
    }
  }
}

const std::vector<std::string>& command_line() { return g_command_line; }

void say_resume_hint(const std::string& dir, const char* what) {
  std::fprintf(stderr,
               "tokenbench: interrupted; partial results kept. Re-run with --resume %s to finish "
               "the %s\n",
               dir.c_str(), what);
}

int print_unsaved(const std::string& why, const nlohmann::json& document) {
  std::fputs(document.dump(2, ' ', false, nlohmann::json::error_handler_t::replace).c_str(),
             stdout);
  std::fputs("\n", stdout);
  std::fflush(stdout);
  std::fprintf(stderr,
               "tokenbench: error: the requests were measured, but the summary was not saved: "
               "%s. It is printed on stdout above (its only copy); free space and keep it (exit "
               "%d)\n",
               core::one_line(why).c_str(), kExitNotSaved);
  return kExitNotSaved;
}

int client_bound_gate(bool enabled,
                      const std::vector<std::pair<std::string, nlohmann::json>>& summaries) {
  if (!enabled) return kExitOk;
  for (const auto& [name, summary] : summaries) {
    if (!experiment::client_bound(summary)) continue;
    const nlohmann::json& verdict = summary["tokenbench"]["verdict"];
    std::fprintf(stderr, "tokenbench: client-bound gate failed%s: %s\n",
                 name.empty() ? "" : (" (" + name + ")").c_str(),
                 core::one_line(verdict.value("line", "client-bound")).c_str());
    return kExitClientBound;
  }
  return kExitOk;
}

SignalScope::SignalScope(measure::Runner* runner) : watcher_([this] { watch(); }) {
  attach(runner);
  std::signal(SIGINT, on_interrupt);
  std::signal(SIGTERM, on_interrupt);
}

SignalScope::~SignalScope() {
  done_.store(true);
  watcher_.join();
  std::signal(SIGINT, SIG_DFL);
  std::signal(SIGTERM, SIG_DFL);
  g_running.store(nullptr);
  g_group.store(0);
}

void SignalScope::attach(measure::Runner* runner) {
  g_running.store(runner);
  // A signal that came while no runner listened (a server starting) stops this one at once.
  if (runner != nullptr && g_interrupted.load()) runner->cancel(g_signal.load());
}

void SignalScope::guard_group(pid_t group) { g_group.store(group); }

bool SignalScope::stopped() const { return g_interrupted.load(); }

int SignalScope::signal_number() const { return g_signal.load(); }

void SignalScope::watch() {
  while (!done_.load()) {
    if (g_exit_now.load()) {
      if (measure::Runner* r = g_running.load()) r->flush_records();
      // A server tokenbench started does not outlive it.
      if (const pid_t group = g_group.load(); group > 0) ::kill(-group, SIGKILL);
      std::fputs(
          "tokenbench: stopped at once; requests.jsonl holds every request measured "
          "so far (tokenbench report DIR rebuilds the summary)\n",
          stderr);
      std::_Exit(exit_stopped(g_signal.load()));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

namespace {

// A command that wrote nothing leaves no empty directory it claimed behind.
struct Unclaim {
  const std::string& dir;
  bool claimed;
  ~Unclaim() {
    std::error_code ec;
    if (claimed && std::filesystem::is_empty(dir, ec)) std::filesystem::remove(dir, ec);
  }
};

// The Runner, or null on a follower that could not make one: it stood by until the leader's
// finish (the leader goes on without it). A leader's RunError propagates.
std::unique_ptr<measure::Runner> make_runner(core::RunConfig& config,
                                             const measure::Runner::Options& options,
                                             measure::Cohort& cohort) {
  try {
    return std::make_unique<measure::Runner>(config, options);
  } catch (const measure::RunError& e) {
    if (cohort.leads()) throw;
    cohort.stand_by(e.what());
    return nullptr;
  }
}

// The exit code after `code` from the command's body: a signal's, or kExitPartial when a rank's
// share is missing.
int settled_exit_code(int code, const measure::Runner& runner, bool leads) {
  if (const int sig = g_signal.load(); sig != 0 && code != kExitUsage) {
    // A stopped run never passes for a finished one: a SIGTERM'd CI or Kubernetes job fails.
    std::fprintf(stderr,
                 "tokenbench: %s: the results are partial (summary.json's "
                 "tokenbench.stopped); exit %d\n",
                 runner.interruption().c_str(), exit_stopped(sig));
    return exit_stopped(sig);
  }
  if (leads && code == kExitOk && runner.partial()) {
    std::fprintf(stderr,
                 "tokenbench: error: the results are partial: a rank's share is missing (see "
                 "MISSING above, and summary.json's tokenbench.distributed)\n");
    return kExitPartial;
  }
  return code;
}

// The command with its Runner: the results directory, signals, then `body` (the leader, or
// alone) or the follower's loop.
int run_with(measure::Runner& runner, core::RunConfig& config, measure::Cohort& cohort,
             const std::string& dir_suffix, const std::function<int(measure::Runner&)>& body) {
  cohort.greet();
  // The default directory is claimed (created) by the leader alone: followers take the
  // directory the leader announces with each measurement.
  bool claimed = false;
  if (config.output_dir.empty()) {
    config.output_dir = default_output_dir(config) + dir_suffix;
    if (cohort.leads()) {
      config.output_dir = claim_output_dir(config.output_dir);
      claimed = true;
    }
  }
  const Unclaim unclaim{config.output_dir, claimed};
  const SignalScope signals(&runner);
  // A follower runs whatever measurements the leader announces; the leader runs the command.
  const int code = cohort.leads() ? body(runner) : cohort.follow(runner, config);
  return settled_exit_code(code, runner, cohort.leads());
}

}  // namespace

int with_runner(core::RunConfig& config, measure::Runner::Options options,
                const std::string& dir_suffix, const std::function<int(measure::Runner&)>& body) {
  config.started_at = core::wall_clock_iso8601();
  // Started by mpirun (or the MPI Operator): one rank of a distributed run (docs/DISTRIBUTED.md).
  std::unique_ptr<measure::Cohort> cohort;
  try {
    cohort = measure::join_cohort();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tokenbench: error: started by mpirun, but %s\n", e.what());
    return kExitUsage;
  }
  options.cohort = cohort.get();
  int code = kExitOk;
  try {
    if (const auto runner = make_runner(config, options, *cohort)) {
      code = run_with(*runner, config, *cohort, dir_suffix, body);
    }
  } catch (const measure::RunError& e) {
    std::fprintf(stderr, "tokenbench: error: %s%s\n", cohort->who().c_str(), e.what());
    code = e.unreachable() ? kExitNoMeasure : kExitUsage;
    // The leader says what the run lacks; its exit code is the run's.
    if (!cohort->leads()) code = kExitOk;
  }
  cohort->finish(code);
  return code;
}

std::string default_output_dir(const core::RunConfig& c) {
  std::string model = c.targets.empty() ? c.model : "compare";
  return "results/" + core::compact_timestamp(c.started_at) + "-" +
         core::file_name_part(std::move(model), "model");
}

std::string claim_output_dir(const std::string& name) {
  std::error_code ec;
  const std::filesystem::path path(name);
  if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path(), ec);
  for (int n = 1; n <= 1000; ++n) {
    const std::string candidate = n == 1 ? name : fmt::format("{}-{}", name, n);
    // create_directory is one mkdir: true only for the process that made it.
    if (std::filesystem::create_directory(candidate, ec)) return candidate;
    if (ec) break;  // not "it exists": the run says why it cannot write there
  }
  return name;
}

namespace {

// The values finalize_run_flags takes as given: --console-style, streaming, the byte sizes,
// --percentiles, --num-prompts' default, --progress-interval and --save-detailed.
void settle_values(RunFlags& f) {
  core::RunConfig& c = f.config;
  if (core::scores_inputs(c.api)) c.stream = false;  // embeddings, rerank and score never stream
  if (!(f.progress_interval_s == 0 ||
        (f.progress_interval_s >= 0.1 && f.progress_interval_s <= 86400))) {
    throw UsageError(
        "--progress-interval must be 0 (no progress lines) or 0.1 to 86400 seconds (e.g. 10)");
  }
  if (c.save_detailed) {
    if (distributed::launched_ranks() > 1) {
      throw UsageError("--save-detailed is not supported under mpirun: run it in one process");
    }
    std::fprintf(stderr,
                 "tokenbench: note: --save-detailed writes each request's prompt and generated "
                 "text into requests.jsonl (each cut at %zu KiB, none after %lld MiB of text): "
                 "expect a larger file\n",
                 core::kMaxDetailTextBytes >> 10,
                 static_cast<long long>(records::Recorder::kMaxDetailTotalBytes >> 20));
  }
  if (f.gpus.find('{') != std::string::npos) {
    if (!f.placeholders_allowed) {
      throw UsageError("--gpus '" + core::one_line(f.gpus) +
                       "': placeholders ({name}) need --serve-cmd or --serve-param; give a "
                       "number of GPUs");
    }
    f.gpus_expr = f.gpus;
  } else {
    try {
      c.gpus = experiment::evaluate_arithmetic(f.gpus, "--gpus");
    } catch (const std::invalid_argument& e) {
      throw UsageError(e.what());
    }
  }
  c.percentiles = parse_percentiles(f.percentiles);
  c.max_event_bytes = parse_byte_size(f.max_event_bytes, "--max-event-bytes");
  c.max_reply_bytes = parse_byte_size(f.max_reply_bytes, "--max-reply-bytes");
  c.max_line_bytes = parse_byte_size(f.max_line_bytes, "--max-line-bytes");
  // vLLM's default, when neither --num-prompts nor --duration bounds the run.
  if (!f.num_prompts_given && c.num_prompts == 0 && c.duration_s == 0) c.num_prompts = 1000;
}

}  // namespace

void finalize_run_flags(RunFlags& f) {
  core::RunConfig& c = f.config;
  apply_enum_flags(f);
  bool endpoint_from_url = false;  // a --base-url named the endpoint: it decides the API
  settle_base_urls(f, endpoint_from_url);
  check_transport_urls(f);
  settle_targets(f, endpoint_from_url);
  settle_models(f);
  if (c.endpoint.empty() || c.endpoint.front() != '/') c.endpoint = "/" + c.endpoint;
  c.api = settle_api(f.api, c.endpoint, f.endpoint_given, endpoint_from_url);
  if (c.api == core::ApiKind::kAnthropicMessages &&
      c.api_key_env == core::RunConfig{}.api_key_env) {
    c.api_key_env = "ANTHROPIC_API_KEY";
  }
  settle_load(f);
  settle_values(f);
  merge_sampling_flags(f.sampling, c);
  try {
    core::validate_run(c);
    core::RunConfig level = c;  // every level of a sweep
    for (const int conc : f.concurrencies) {
      level.max_concurrency = conc;
      for (const double rate : f.rates) {
        level.request_rate = rate;
        core::validate(level);
        if (!f.load_searched) core::validate_load(level);
      }
    }
  } catch (const core::ConfigError& e) {
    throw UsageError(e.what());
  }
  // Process-wide, like TLS: every file reader follows it (--input-dist's files are read next).
  core::set_max_line_bytes(c.max_line_bytes);
  check_files_and_syntax(c);
  check_workload_memory(c, f.max_workload_memory);
}

}  // namespace tokenbench::cli
