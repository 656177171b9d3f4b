// `tokenbench run`: one measurement, a sweep over load levels (lists of --max-concurrency or
// --request-rate), or several targets compared in one interleaved run. All three go through
// measure::Runner, the one code path of a measurement.

#include <fmt/core.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <memory>

#include "tokenbench/cli/commands.h"
#include "tokenbench/cli/run_flags.h"
#include "tokenbench/cli/serve_sweep.h"
#include "tokenbench/core/text.h"
#include "tokenbench/experiment/repeats.h"
#include "tokenbench/experiment/slo_expr.h"
#include "tokenbench/experiment/sweep.h"
#include "tokenbench/experiment/targets.h"
#include "tokenbench/measure/runner.h"
#include "tokenbench/metrics/summary.h"
#include "tokenbench/records/results_dir.h"
#include "tokenbench/report/live_view.h"

namespace tokenbench::cli {
namespace {

struct ExperimentFlags {
  bool fail_on_slo = false;
  bool fail_on_client_bound = false;
  // Sweeps
  double knee_threshold = 1.0;
  double stop_on_error_rate = -1;  // < 0: never
  bool stop_on_slo_breach = false;
  std::string resume;
  // Targets
  std::vector<std::string> require;
  std::string weights = experiment::kDefaultWeights;
  // Server configurations and the hooks around levels
  ServeFlags serve;
  int repeats = 1;     // runs of each measurement, with seeds seed, seed+1, ...
  int rate_sweep = 0;  // --rate-sweep N: GuideLLM's sweep of N levels; 0: none
  std::string peer;    // --peer NAME: read by main() before parsing (peer_verbs.h, peer_on_run)
  // --level-prompts N,N,...: each level's request count, paired in order with the list of
  // --max-concurrency (or of --request-rate) given
  std::vector<std::int64_t> level_prompts;
};

// What a sweep (of levels, or of server configurations) checks, stops on and runs around each
// level; the hooks' output goes to hooks.log in `root`.
experiment::SweepOptions sweep_options(const core::RunConfig& c, const ExperimentFlags& x,
                                       const std::string& root) {
  experiment::SweepOptions options;
  options.slos = experiment::parse_slo_exprs(c.slo);
  options.by_goodput = !c.goodput.empty();
  options.knee_threshold = x.knee_threshold;
  if (x.stop_on_error_rate >= 0) options.stop_on_error_rate = x.stop_on_error_rate;
  options.stop_on_slo_breach = x.stop_on_slo_breach;
  options.resume = !x.resume.empty();
  options.gpus = c.gpus;
  options.before_level = x.serve.before_level;
  options.after_level = x.serve.after_level;
  options.hook_log = root + "/hooks.log";
  options.repeats = x.repeats;
  return options;
}

std::string verdict_lines(const std::vector<experiment::SloVerdict>& verdicts) {
  std::string out;
  for (const auto& v : verdicts) {
    out += fmt::format("SLO {}: {} (actual {})\n", v.expr.text(), v.met ? "met" : "BROKEN",
                       std::isnan(v.actual) ? "undefined" : fmt::format("{:.4g}", v.actual));
  }
  return out;
}

// The share of measured requests that failed (canceled ones are not measured); 0 without any.
double error_rate(const metrics::Summary& s) {
  return s.measured > 0 ? static_cast<double>(s.failed) / static_cast<double>(s.measured) : 0;
}

// "168 of 200 measured requests failed (84.0%): connect 168 (Connection refused), ..." in one
// line, the most frequent class first.
std::string error_summary(const metrics::Summary& s) {
  std::vector<std::pair<std::string, std::int64_t>> classes(s.errors.begin(), s.errors.end());
  std::stable_sort(classes.begin(), classes.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  std::string out = fmt::format("{} of {} measured requests failed ({:.1f}%)", s.failed, s.measured,
                                100 * error_rate(s));
  for (std::size_t i = 0; i < classes.size(); ++i) {
    const auto example = s.error_examples.find(classes[i].first);
    out += fmt::format("{} {} {}", i == 0 ? ":" : ",", classes[i].first, classes[i].second);
    if (example != s.error_examples.end()) {
      out += " (" + std::string(core::utf8_prefix(core::one_line(example->second), 120)) + ")";
    }
  }
  return out;
}

// --fail-on-slo's verdict on a run's SLOs: exit 3 when one is broken, else 0.
int slo_gate(const ExperimentFlags& x, const std::vector<experiment::SloVerdict>& verdicts) {
  if (x.fail_on_slo && !experiment::all_met(verdicts)) {
    std::fprintf(stderr, "tokenbench: SLO gate failed: %s\n",
                 experiment::first_breach(verdicts).c_str());
    return kExitGate;
  }
  return kExitOk;
}

// The summaries of run --repeats N's runs (repeat-1 ... repeat-N), for the client-bound gate.
std::vector<std::pair<std::string, nlohmann::json>> repeat_summaries(const core::RunConfig& c,
                                                                     int completed) {
  std::vector<std::pair<std::string, nlohmann::json>> out;
  for (int i = 1; i <= completed; ++i) {
    const std::string dir = c.output_dir + "/" + experiment::repeat_dir(i);
    try {
      out.emplace_back(experiment::repeat_dir(i),
                       records::read_json_file(dir + "/" + records::kSummaryFile));
    } catch (const std::exception&) {
      // A repeat whose summary cannot be read has no verdict to gate on.
    }
  }
  return out;
}

// run --repeats N: the runs' table of means with their intervals, the SLOs judged on the means.
int repeated_run(measure::Runner& runner, const core::RunConfig& c, const ExperimentFlags& x,
                 const experiment::SweepOptions& hooks, const experiment::SweepLevel& level) {
  const experiment::RepeatedRun run = experiment::run_repeats(runner, c, x.repeats);
  experiment::run_after_level_hook(hooks, level, c.output_dir);
  std::fputs(experiment::render_repeats(run.summary).c_str(), stdout);
  const auto verdicts = experiment::check_slos(experiment::parse_slo_exprs(c.slo),
                                               experiment::figures_from_summary(run.summary));
  std::fputs(verdict_lines(verdicts).c_str(), stdout);
  std::printf("Results: %s (summary.json: the runs' means; repeat-1 ... repeat-%d: each run)\n",
              c.output_dir.c_str(), x.repeats);
  std::fflush(stdout);
  if (run.last.canceled) std::fprintf(stderr, "tokenbench: interrupted; partial results kept\n");
  if (!run.not_saved.empty()) return print_unsaved(run.not_saved, run.summary);
  if (!run.last.failed_fast.empty() || !run.last.error_rate_stop.empty()) {
    std::fprintf(stderr, "tokenbench: error: run %d stopped early: %s\n", run.completed,
                 core::one_line(run.last.failed_fast.empty() ? run.last.error_rate_stop
                                                             : run.last.failed_fast)
                     .c_str());
    return kExitNoMeasure;
  }
  if (run.summary.value("completed", 0.0) <= 0) {
    std::fprintf(stderr, "tokenbench: error: no request succeeded%s\n",
                 experiment::first_error(run.summary).empty()
                     ? ""
                     : (": " + core::one_line(experiment::first_error(run.summary))).c_str());
    return kExitNoMeasure;
  }
  if (const int gate =
          client_bound_gate(x.fail_on_client_bound, repeat_summaries(c, run.completed));
      gate != kExitOk) {
    return gate;
  }
  return slo_gate(x, verdicts);
}

int single_run(measure::Runner& runner, const core::RunConfig& c, const ExperimentFlags& x) {
  // --before-level and --after-level go around a single run too: it is a sweep of one level.
  const experiment::SweepOptions hooks = sweep_options(c, x, c.output_dir);
  const experiment::SweepLevel level{c.max_concurrency, c.request_rate, "run"};
  if (!hooks.before_level.empty()) std::filesystem::create_directories(c.output_dir);
  if (const std::string why = experiment::run_level_hook(hooks.before_level, "--before-level",
                                                         hooks, level, c.output_dir);
      !why.empty()) {
    std::fprintf(stderr, "tokenbench: error: %s (see %s); nothing was measured\n",
                 core::one_line(why).c_str(), hooks.hook_log.c_str());
    return kExitUsage;
  }
  if (x.repeats > 1) return repeated_run(runner, c, x, hooks, level);
  const measure::RunOutcome outcome = runner.run(c);
  experiment::run_after_level_hook(hooks, level, c.output_dir);
  const measure::LevelResult& part = outcome.parts.front();
  // A run that measured mostly errors says so first: its figures describe the few successes.
  const bool too_many_errors =
      part.summary.completed > 0 && error_rate(part.summary) > c.max_error_rate;
  if (too_many_errors) {
    std::fprintf(stderr,
                 "tokenbench: error: %s, over --max-error-rate %g%%; the figures below "
                 "cover only the successful requests\n",
                 error_summary(part.summary).c_str(), 100 * c.max_error_rate);
    std::fflush(stderr);
  }
  std::fputs(part.console.c_str(), stdout);
  const auto verdicts = experiment::check_slos(experiment::parse_slo_exprs(c.slo),
                                               experiment::figures_from_summary(part.summary_json));
  std::fputs(verdict_lines(verdicts).c_str(), stdout);
  std::printf("Results: %s\n", c.output_dir.c_str());
  std::fflush(stdout);  // the verdict below comes after the tables, also in a file
  if (outcome.canceled) std::fprintf(stderr, "tokenbench: interrupted; partial results kept\n");
  if (!part.not_saved.empty()) return print_unsaved(part.not_saved, part.summary_json);
  if (!outcome.failed_fast.empty()) {
    std::fprintf(stderr,
                 "tokenbench: error: stopped early (--fail-fast %d): %s. Check --endpoint, "
                 "--model and the prompt length; --fail-fast 0 sends every request anyway\n",
                 c.fail_fast, core::one_line(outcome.failed_fast).c_str());
    return kExitNoMeasure;
  }
  if (!outcome.error_rate_stop.empty()) {
    std::fprintf(stderr,
                 "tokenbench: error: stopped early (--abort-on-error-rate %g): %s. The figures "
                 "above cover the requests until then\n",
                 c.abort_on_error_rate, core::one_line(outcome.error_rate_stop).c_str());
    return kExitNoMeasure;
  }
  // --stop-on-saturation's stop is a finding: the tables' warnings say it; the exit stays 0.
  if (part.summary.completed == 0) {
    std::string why;
    if (!part.summary.error_examples.empty()) {
      why = ": " + part.summary.error_examples.begin()->first + ": " +
            part.summary.error_examples.begin()->second;
    }
    std::fprintf(stderr, "tokenbench: error: no request succeeded%s\n",
                 core::one_line(why).c_str());
    return kExitNoMeasure;
  }
  if (too_many_errors) {
    std::fprintf(stderr,
                 "tokenbench: error: the run failed: %.1f%% of its measured requests failed "
                 "(--max-error-rate %g%%; 1 never fails a run)\n",
                 100 * error_rate(part.summary), 100 * c.max_error_rate);
    return kExitNoMeasure;
  }
  if (const int gate = client_bound_gate(x.fail_on_client_bound, {{"", part.summary_json}});
      gate != kExitOk) {
    return gate;
  }
  return slo_gate(x, verdicts);
}

int sweep_run(measure::Runner& runner, const core::RunConfig& c, const RunFlags& f,
              const ExperimentFlags& x) {
  experiment::SweepOptions options = sweep_options(c, x, c.output_dir);
  auto levels = experiment::sweep_levels(f.concurrencies, f.rates);
  if (!x.level_prompts.empty()) {
    // Paired by value with the list that varies, as given (the levels run in load order).
    const bool by_rate = f.rates.size() > 1;
    for (auto& level : levels) {
      for (std::size_t i = 0; i < x.level_prompts.size(); ++i) {
        const bool same = by_rate ? f.rates[i] == level.request_rate
                                  : f.concurrencies[i] == level.max_concurrency;
        if (same) level.num_prompts = x.level_prompts[i];
      }
    }
  }
  if (x.rate_sweep > 0) {
    // GuideLLM's sweep: the two extremes, then the rates between their throughputs.
    const int cap = c.max_concurrency;
    levels = experiment::rate_sweep_levels(cap);
    options.more_levels = [n = x.rate_sweep, cap](const experiment::SweepResult& measured) {
      return experiment::rate_sweep_between(measured, n, cap);
    };
  }
  const auto result = experiment::run_sweep(runner, c, levels, options);
  std::fputs(experiment::render_sweep(result, options).c_str(), stdout);
  if (isatty(STDOUT_FILENO) && result.points.size() > 1) {
    // At a terminal: the throughput-latency curve at a glance, one digit per level.
    std::vector<std::pair<double, double>> points;
    for (const auto& p : result.points) {
      points.emplace_back(experiment::figure(p.figures, "request_throughput"),
                          experiment::figure(p.figures, "p95_ttft_ms"));
    }
    std::fputs(("\n" + report::text_plot(points, "request throughput (req/s); 1 = first level",
                                         "TTFT p95 (ms)"))
                   .c_str(),
               stdout);
  }
  std::printf("Results: %s (%s, %s)\n", c.output_dir.c_str(), experiment::kSweepJson,
              experiment::kSweepCsv);
  if (result.canceled) say_resume_hint(c.output_dir, "sweep");
  if (!result.not_saved.empty()) {
    return print_unsaved(result.not_saved, experiment::sweep_to_json(result, options));
  }
  bool any = false;
  std::string why;
  for (const auto& p : result.points) {
    const auto it = p.figures.find("completed");
    any = any || (it != p.figures.end() && it->second > 0);
    if (why.empty()) why = experiment::first_error(p.summary);
  }
  if (!any) {
    std::fprintf(stderr, "tokenbench: error: no request succeeded at any level%s\n",
                 why.empty() ? "" : (": " + core::one_line(why)).c_str());
    return kExitNoMeasure;
  }
  // A sweep looks for where the server breaks: one level over --max-error-rate is a finding,
  // every level over it a broken run.
  const bool all_over =
      std::all_of(result.points.begin(), result.points.end(), [&c](const auto& p) {
        const auto it = p.figures.find("error_rate");
        return it != p.figures.end() && it->second > c.max_error_rate;
      });
  if (all_over) {
    std::fprintf(stderr,
                 "tokenbench: error: every level's error rate exceeds --max-error-rate %g%%%s\n",
                 100 * c.max_error_rate, why.empty() ? "" : (": " + core::one_line(why)).c_str());
    return kExitNoMeasure;
  }
  std::vector<std::pair<std::string, nlohmann::json>> levels_seen;
  for (const auto& p : result.points) levels_seen.emplace_back("level " + p.level.dir, p.summary);
  if (const int gate = client_bound_gate(x.fail_on_client_bound, levels_seen); gate != kExitOk)
    return gate;
  if (x.fail_on_slo && !options.slos.empty() && !result.best) {
    std::fprintf(stderr, "tokenbench: SLO gate failed: no level meets the SLOs\n");
    return kExitGate;
  }
  return kExitOk;
}

int targets_run(measure::Runner& runner, const core::RunConfig& c, const ExperimentFlags& x) {
  const auto required = experiment::parse_slo_exprs(x.require);
  const auto weights = experiment::parse_weights(x.weights);
  const experiment::TargetsResult result = experiment::run_targets(runner, c, required, weights);
  const measure::RunOutcome& outcome = result.outcome;
  const std::string& not_saved = result.not_saved;
  std::fputs(
      experiment::render_ranking(result.rows, weights, experiment::target_load_line(c)).c_str(),
      stdout);
  std::printf("Results: %s (%s, a subdirectory per target)\n", c.output_dir.c_str(),
              experiment::kCompareJson);
  if (outcome.canceled) std::fprintf(stderr, "tokenbench: interrupted; partial results kept\n");
  if (!not_saved.empty()) {
    nlohmann::json document = result.ranking;
    for (const auto& part : outcome.parts) document["summaries"][part.name] = part.summary_json;
    return print_unsaved(not_saved, document);
  }
  bool any = false;
  std::string why;
  for (const auto& part : outcome.parts) {
    any = any || part.summary.completed > 0;
    if (why.empty()) why = experiment::first_error(part.summary_json);
  }
  if (!any) {
    std::fprintf(stderr, "tokenbench: error: no request succeeded for any target%s\n",
                 why.empty() ? "" : (": " + core::one_line(why)).c_str());
    return kExitNoMeasure;
  }
  // A broken target is eliminated from the ranking and said so; every target broken is a
  // broken run.
  std::size_t over = 0;
  for (const auto& part : outcome.parts) {
    if (error_rate(part.summary) > c.max_error_rate) {
      std::fprintf(stderr, "tokenbench: %s: target %s: %s, over --max-error-rate %g%%\n",
                   outcome.parts.size() == ++over ? "error" : "warning", part.name.c_str(),
                   error_summary(part.summary).c_str(), 100 * c.max_error_rate);
    }
  }
  if (over == outcome.parts.size()) return kExitNoMeasure;
  std::vector<std::pair<std::string, nlohmann::json>> targets_seen;
  for (const auto& part : outcome.parts) {
    targets_seen.emplace_back("target " + part.name, part.summary_json);
  }
  return client_bound_gate(x.fail_on_client_bound, targets_seen);
}

int run_command(RunFlags& f, ExperimentFlags& x) {
  core::RunConfig& c = f.config;
  try {
    prepare_serve_flags(f, x.serve);
    finalize_run_flags(f);
    experiment::parse_slo_exprs(x.require);
    experiment::parse_weights(x.weights);
    if (!x.resume.empty()) {
      if (f.concurrencies.size() < 2 && f.rates.size() < 2 && !x.serve.configurations()) {
        throw UsageError("--resume continues a sweep: give the sweep's lists again");
      }
      c.output_dir = x.resume;
    }
    if (x.fail_on_slo && c.slo.empty()) {
      throw UsageError("--fail-on-slo needs at least one --slo, e.g. --slo 'p95_ttft_ms<=500'");
    }
    if (c.stop_on_saturation &&
        std::all_of(f.rates.begin(), f.rates.end(), [](double r) { return std::isinf(r); })) {
      throw UsageError(
          "--stop-on-saturation needs --request-rate R (an open-loop load): a closed loop at "
          "--max-concurrency N cannot over-saturate");
    }
    if (x.repeats < 1 || x.repeats > 100) {
      throw UsageError("--repeats must be 1 to 100 (runs of each measurement)");
    }
    if (x.repeats > 1 && !c.targets.empty()) {
      throw UsageError(
          "--repeats is for one target: repeat a multi-target run by running it again");
    }
    if (x.rate_sweep != 0 &&
        (x.rate_sweep < 2 || x.rate_sweep > 100 || f.concurrencies.size() > 1 ||
         f.rates.size() > 1 || !std::isinf(c.request_rate) || !c.targets.empty())) {
      throw UsageError(
          "--rate-sweep N takes 2 to 100 levels and makes them itself (one request at a time, "
          "every request at once, N - 2 rates between): leave out --request-rate and lists of "
          "--max-concurrency, and --target");
    }
    if (!x.level_prompts.empty()) {
      const std::size_t levels = std::max(f.concurrencies.size(), f.rates.size());
      const bool one_list = f.concurrencies.size() <= 1 || f.rates.size() <= 1;
      if (levels < 2 || !one_list || x.level_prompts.size() != levels || x.rate_sweep != 0 ||
          c.duration_s > 0 ||
          std::any_of(x.level_prompts.begin(), x.level_prompts.end(),
                      [](std::int64_t n) { return n < 1; })) {
        throw UsageError(
            "--level-prompts gives each level of one list (--max-concurrency or --request-rate) "
            "its own request count: as many counts of 1 or more as that list has levels, "
            "without --duration or --rate-sweep");
      }
    }
    if (x.stop_on_slo_breach && c.slo.empty()) {
      throw UsageError("--stop-on-slo-breach needs at least one --slo");
    }
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "tokenbench: error: %s\n", e.what());
    return kExitUsage;
  } catch (const UsageError& e) {
    std::fprintf(stderr, "tokenbench: error: %s\n", e.what());
    return kExitUsage;
  }
  if (x.serve.configurations()) {
    // A Runner per configuration, made once its server is ready.
    return serve_sweep_run(f, x.serve, sweep_options(c, x, ""),
                           {x.fail_on_slo, x.fail_on_client_bound}, x.resume);
  }
  // A resumed sweep runs its unfinished levels again, in their directories.
  return with_runner(c,
                     {f.quiet, f.overwrite || !x.resume.empty(), command_line(), nullptr,
                      f.progress_interval_s, history_recorder(f)},
                     "", [&](measure::Runner& runner) {
                       if (!c.targets.empty()) return targets_run(runner, c, x);
                       if (f.concurrencies.size() > 1 || f.rates.size() > 1 || x.rate_sweep > 0)
                         return sweep_run(runner, c, f, x);
                       return single_run(runner, c, x);
                     });
}

}  // namespace

void add_run_command(CLI::App& app, int& exit_code) {
  auto flags = std::make_shared<RunFlags>();
  auto x = std::make_shared<ExperimentFlags>();
  CLI::App* cmd = app.add_subcommand(
      "run",
      "Benchmark an OpenAI-compatible server (one level, a sweep, or several targets; under "
      "mpirun, one run shared by the ranks: docs/DISTRIBUTED.md)");
  add_run_flags(cmd, *flags);
  cmd->add_flag("--fail-on-slo", x->fail_on_slo,
                "Exit 3 when the run breaks an --slo (a sweep: when no level meets them)");
  cmd->add_flag("--fail-on-client-bound", x->fail_on_client_bound,
                "Exit 7 when the verdict is client-bound (of the run, or of any sweep level, "
                "repeat or target): the figures may be the client's, not the server's");
  // Sweeps
  cmd->add_option("--knee-threshold", x->knee_threshold,
                  "Sweep knee: a level is worth it while its throughput gain is at least this "
                  "many times its p95 E2E latency rise")
      ->capture_default_str();
  cmd->add_option("--stop-on-error-rate", x->stop_on_error_rate,
                  "End a sweep after a level whose error rate exceeds this fraction (e.g. 0.05)");
  cmd->add_flag("--stop-on-slo-breach", x->stop_on_slo_breach,
                "End a sweep after the first level that breaks an --slo");
  cmd->add_option("--repeats", x->repeats,
                  "Run each measurement (the run, each sweep level) N times with seeds SEED, "
                  "SEED+1, ...: figures become the runs' means with 95% t-intervals")
      ->capture_default_str();
  cmd->add_option("--rate-sweep", x->rate_sweep,
                  "A sweep of N levels as GuideLLM's: one request at a time, every request at "
                  "once (at most --max-concurrency), then N-2 constant rates evenly between "
                  "their request throughputs");
  cmd->add_option("--level-prompts", x->level_prompts,
                  "Each sweep level's own request count, in the order of the --max-concurrency "
                  "(or --request-rate) list given: EvalScope's --number with a count per "
                  "--parallel level")
      ->delimiter(',');
  cmd->add_option("--peer", x->peer,
                  "Read the command line as this peer's: vllm (vllm bench serve), evalscope "
                  "(evalscope perf), sglang (python -m sglang.bench_serving) or llmperf "
                  "(token_benchmark_ray.py); needed only where their flags are the same, as "
                  "--backend sglang (bench serve and perf add theirs)")
      ->check(CLI::IsMember({"vllm", "evalscope", "sglang", "llmperf"}));
  cmd->add_option("--resume", x->resume,
                  "Continue an interrupted sweep in DIR, skipping its complete levels");
  // Targets
  cmd->add_option("--require", x->require,
                  "Eliminate a target breaking this, e.g. 'p95_ttft_ms<2000' (repeatable)");
  cmd->add_option("--weights", x->weights,
                  "Ranking weights of the surviving targets (ttft, tpot, itl, e2el, tps, "
                  "throughput, error_rate or any summary figure)")
      ->capture_default_str();
  add_serve_flags(cmd, x->serve);
  cmd->callback([flags, x, &exit_code] { exit_code = run_command(*flags, *x); });
}

}  // namespace tokenbench::cli
