// `run --serve-cmd ... --serve-param NAME=V1,V2`: a sweep over server configurations, each
// started, made ready, swept and stopped in turn (experiment/serve_sweep.h, docs/EXPERIMENTS.md).

#include "tokenbench/cli/serve_sweep.h"

#include <fmt/core.h>

#include <cstdio>
#include <filesystem>
#include <memory>

#include "tokenbench/cli/commands.h"
#include "tokenbench/core/clock.h"
#include "tokenbench/core/text.h"
#include "tokenbench/distributed/mpi_comm.h"
#include "tokenbench/experiment/serve_sweep.h"

namespace tokenbench::cli {
namespace {

constexpr const char* kDefaultServerUrl = "http://127.0.0.1:{port}";

// Every placeholder a configuration fills, with the first configuration's values: a command
// naming one no configuration has is refused before any server starts.
std::map<std::string, std::string> sample_values(const ServeFlags& s) {
  std::vector<experiment::ServeParam> params;
  for (const auto& p : s.params) params.push_back(experiment::parse_serve_param(p));
  const auto configs = experiment::serve_configs(params, s.links);
  auto values = configs.front().params;
  values.emplace("port", "1");
  values["config"] = configs.front().dir;
  values["output_dir"] = "DIR";
  return values;
}

// The server's root URL for a configuration: the --base-url template filled, its API path cut.
std::string server_root(const std::string& url) {
  std::string root = split_api_path(url).first;
  while (!root.empty() && root.back() == '/') root.pop_back();
  return root;
}

// One configuration's levels, printed as it ends (a long sweep shows its progress).
void print_config(const experiment::ConfigOutcome& c, const experiment::SweepOptions& options) {
  std::printf("\nConfiguration %s: %s", c.config.label().c_str(), c.status.c_str());
  if (c.ready_s >= 0) std::printf(" (port %d, ready after %.1f s)", c.port, c.ready_s);
  std::printf("\n");
  if (!c.error.empty()) std::printf("  %s\n", c.error.c_str());
  if (!c.log_tail.empty()) {
    std::printf("  the end of its log:\n");
    std::size_t start = 0;
    while (start < c.log_tail.size()) {
      const auto nl = c.log_tail.find('\n', start);
      std::printf("    | %s\n", c.log_tail.substr(start, nl - start).c_str());
      if (nl == std::string::npos) break;
      start = nl + 1;
    }
  }
  if (!c.sweep.points.empty()) {
    experiment::SweepOptions own = options;
    own.gpus = c.gpus;
    std::fputs(experiment::render_sweep(c.sweep, own).c_str(), stdout);
  }
  std::fflush(stdout);
}

int exit_code(const experiment::ServeSweepResult& result, const experiment::SweepOptions& options,
              ServeGates gates, const SignalScope& signals) {
  if (const int sig = signals.signal_number(); sig != 0) {
    std::fprintf(stderr, "tokenbench: %s: the results are partial; exit %d\n",
                 result.interrupted.empty() ? "stopped" : result.interrupted.c_str(),
                 exit_stopped(sig));
    return exit_stopped(sig);
  }
  bool any = false;
  std::string why;
  for (const auto& c : result.configs) {
    for (const auto& p : c.sweep.points) {
      const auto it = p.figures.find("completed");
      any = any || (it != p.figures.end() && it->second > 0);
    }
    if (why.empty() && !c.error.empty()) why = c.config.label() + ": " + c.error;
  }
  if (!any) {
    std::fprintf(stderr, "tokenbench: error: no request succeeded in any server configuration%s\n",
                 why.empty() ? "" : (" (" + core::one_line(why) + ")").c_str());
    return kExitNoMeasure;
  }
  std::vector<std::pair<std::string, nlohmann::json>> levels;
  for (const auto& c : result.configs) {
    for (const auto& p : c.sweep.points) {
      levels.emplace_back(c.config.label() + " level " + p.level.dir, p.summary);
    }
  }
  if (const int gate = client_bound_gate(gates.client_bound, levels); gate != kExitOk) return gate;
  if (gates.slo && !options.slos.empty() && !result.best) {
    std::fprintf(stderr, "tokenbench: SLO gate failed: no configuration meets the SLOs\n");
    return kExitGate;
  }
  return kExitOk;
}

}  // namespace

void add_serve_flags(CLI::App* cmd, ServeFlags& f) {
  cmd->add_option("--serve-cmd", f.serve_cmd,
                  "Start the server under test for each server configuration: a shell command "
                  "with {placeholders} ({port}: a free port unless --serve-param port=...), run "
                  "in its own process group, its output kept as server.log");
  cmd->add_option("--serve-param", f.params,
                  "A server parameter's values, NAME=V1,V2,...: the configurations are the "
                  "product of them (repeatable); {NAME} in --serve-cmd, the hooks and --gpus");
  cmd->add_option("--link", f.links,
                  "Parameters taken together, A,B: their i-th values form one configuration "
                  "(repeatable)");
  cmd->add_option("--serve-ready-timeout", f.ready_timeout_s,
                  "Seconds a started server has to answer /health and then /v1/models")
      ->capture_default_str()
      ->check(CLI::Range(1.0, 86400.0));
  cmd->add_option("--serve-stop-timeout", f.stop_timeout_s,
                  "Seconds a server has to exit after SIGTERM before SIGKILL")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 3600.0));
  cmd->add_option("--before-config", f.before_config,
                  "Shell command run before each server configuration (an external server's "
                  "rollout), with its {placeholders}; then readiness is awaited");
  cmd->add_option("--after-config", f.after_config,
                  "Shell command run after each server configuration, with its {placeholders}");
  cmd->add_option("--before-level", f.before_level,
                  "Shell command run before each level (and a single run), with {level}, "
                  "{max_concurrency}, {request_rate}, {output_dir} and the configuration's "
                  "{placeholders}; failing, it ends the sweep");
  cmd->add_option("--after-level", f.after_level,
                  "Shell command run after each level (and a single run), as --before-level");
  cmd->get_option("--base-url")->each([&f](const std::string&) { f.base_url_given = true; });
}

// The level hooks name only placeholders a level (and its configuration: `values`) fills.
void check_level_hooks(const ServeFlags& s, std::map<std::string, std::string> values) {
  for (const char* name : {"level", "max_concurrency", "request_rate", "output_dir"}) {
    values[name] = "1";
  }
  try {
    experiment::fill_placeholders(s.before_level, values, "--before-level");
    experiment::fill_placeholders(s.after_level, values, "--after-level");
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
}

void prepare_serve_flags(RunFlags& run, ServeFlags& s) {
  if (!s.configurations()) {
    if (!s.links.empty()) throw UsageError("--link needs --serve-param");
    check_level_hooks(s, {});
    return;
  }
  if (s.serve_cmd.empty() && s.before_config.empty()) {
    throw UsageError(
        "server configurations need --serve-cmd (tokenbench starts each server) or "
        "--before-config (a command that sets up an external one)");
  }
  if (distributed::launched_ranks() > 1) {
    throw UsageError("--serve-cmd is not supported under mpirun: run it in one process");
  }
  if (!run.target_items.empty()) {
    throw UsageError("--serve-cmd measures one server at a time: drop --target");
  }
  if (run.base_urls.size() > 1) {
    throw UsageError("--serve-cmd measures one server: give one --base-url (a template)");
  }
  run.placeholders_allowed = true;
  s.url_template = s.base_url_given ? run.base_urls.front() : kDefaultServerUrl;
  std::map<std::string, std::string> values;
  try {
    values = sample_values(s);
    // Each command and the URL name only placeholders a configuration fills.
    experiment::fill_placeholders(s.serve_cmd, values, "--serve-cmd");
    experiment::fill_placeholders(s.before_config, values, "--before-config");
    experiment::fill_placeholders(s.after_config, values, "--after-config");
    run.base_urls.front() = experiment::fill_placeholders(s.url_template, values, "--base-url");
    if (run.gpus.find('{') != std::string::npos) {
      experiment::evaluate_arithmetic(experiment::fill_placeholders(run.gpus, values, "--gpus"),
                                      "--gpus");
    }
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  check_level_hooks(s, values);
}

int serve_sweep_run(RunFlags& f, const ServeFlags& s, experiment::SweepOptions options,
                    ServeGates gates, const std::string& resume) {
  core::RunConfig& c = f.config;
  c.started_at = core::wall_clock_iso8601();
  if (!resume.empty()) {
    c.output_dir = resume;
  } else if (c.output_dir.empty()) {
    c.output_dir = claim_output_dir(default_output_dir(c) + "-serve");
  }
  std::error_code ec;
  std::filesystem::create_directories(c.output_dir, ec);
  experiment::ServeSweepOptions serve;
  serve.serve_cmd = s.serve_cmd;
  for (const auto& p : s.params) serve.params.push_back(experiment::parse_serve_param(p));
  serve.links = s.links;
  serve.before_config = s.before_config;
  serve.after_config = s.after_config;
  serve.ready_timeout_s = s.ready_timeout_s;
  serve.stop_grace_s = s.stop_timeout_s;
  serve.gpus_expr = f.gpus_expr;
  serve.resume = !resume.empty();
  serve.base_url = server_root(s.url_template);
  SignalScope signals;
  serve.stop_requested = [&signals] { return signals.stopped(); };
  serve.on_server = [&signals](pid_t group) { signals.guard_group(group); };
  const measure::Runner::Options runner_options{
      f.quiet, f.overwrite || !resume.empty(), command_line(),
      nullptr, f.progress_interval_s,          history_recorder(f)};
  std::unique_ptr<measure::Runner> current;
  const experiment::RunnerFactory make_runner =
      [&](core::RunConfig& config,
          const std::map<std::string, std::string>& values) -> measure::Runner& {
    config.base_url =
        server_root(experiment::fill_placeholders(s.url_template, values, "--base-url"));
    signals.attach(nullptr);  // no signal reaches a Runner being destroyed
    current.reset();
    current = std::make_unique<measure::Runner>(config, runner_options);
    signals.attach(current.get());
    return *current;
  };
  const auto levels = experiment::sweep_levels(f.concurrencies, f.rates);
  const auto result = experiment::run_serve_sweep(
      c, levels, options, serve, make_runner,
      [&options](const experiment::ConfigOutcome& out) { print_config(out, options); });
  signals.attach(nullptr);
  std::fputs(experiment::render_serve_sweep(result, options).c_str(), stdout);
  std::printf("Results: %s (%s, %s, report.html; a directory per configuration)\n",
              c.output_dir.c_str(), experiment::kSweepJson, experiment::kSweepCsv);
  std::fflush(stdout);
  if (result.canceled) say_resume_hint(c.output_dir, "sweep");
  if (!result.not_saved.empty()) {
    return print_unsaved(result.not_saved, experiment::serve_sweep_to_json(result, options, serve));
  }
  return exit_code(result, options, gates, signals);
}

}  // namespace tokenbench::cli
