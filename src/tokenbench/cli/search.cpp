// `tokenbench search`: the largest load meeting every SLO, by bracketing and bisection, each probe
// a complete `tokenbench run` in its own subdirectory.

#include "tokenbench/experiment/search.h"

#include <fmt/core.h>

#include <cmath>
#include <cstdio>
#include <memory>

#include "tokenbench/cli/commands.h"
#include "tokenbench/cli/option_values.h"
#include "tokenbench/cli/run_flags.h"
#include "tokenbench/core/text.h"
#include "tokenbench/measure/runner.h"

namespace tokenbench::cli {
namespace {

struct SearchFlags {
  std::string vary = "request-rate";
  double min = 1;
  double max = 64;
  double precision = 0.05;
  int repeats = 1;
  std::string resume;
  std::string objective = "throughput";
};

experiment::SearchOptions search_options(const RunFlags& f, const SearchFlags& s) {
  experiment::SearchOptions o;
  if (s.vary == "request-rate") {
    o.vary = experiment::SearchOptions::Vary::kRequestRate;
  } else if (s.vary == "max-concurrency") {
    o.vary = experiment::SearchOptions::Vary::kMaxConcurrency;
  } else {
    throw UsageError("--vary '" + s.vary + "' is not known: use request-rate or max-concurrency");
  }
  try {
    o.slos = experiment::parse_slo_exprs(f.config.slo);
  } catch (const std::invalid_argument& e) {
    throw UsageError(std::string("--slo: ") + e.what());
  }
  if (o.slos.empty()) throw UsageError("search needs at least one --slo, e.g. 'p95_ttft_ms<=500'");
  if (!(s.min > 0) || !(s.max > s.min) || std::isinf(s.max)) {
    throw UsageError("--min and --max must be finite with 0 < min < max");
  }
  const bool integral = o.vary == experiment::SearchOptions::Vary::kMaxConcurrency;
  if (integral && (s.min != std::floor(s.min) || s.max != std::floor(s.max))) {
    throw UsageError("--vary max-concurrency needs whole --min and --max");
  }
  if (!(s.precision > 0 && s.precision < 1)) {
    throw UsageError("--precision is a fraction in (0, 1), e.g. 0.05 for 5%");
  }
  if (s.repeats < 1) throw UsageError("--repeats must be >= 1");
  if (f.concurrencies.size() > 1 || f.rates.size() > 1) {
    throw UsageError(
        "search varies one load itself: give single --max-concurrency and "
        "--request-rate values");
  }
  if (!f.config.targets.empty()) throw UsageError("search measures one target: drop --target");
  if (!integral && f.config.ramp_up != core::RampKind::kNone) {
    throw UsageError("--ramp-up climbs to a fixed rate; it cannot be used while the rate varies");
  }
  o.min = s.min;
  o.max = s.max;
  o.precision = s.precision;
  o.repeats = s.repeats;
  o.resume = !s.resume.empty();
  if (s.objective == "cost") {
    if (!(f.config.gpu_hour_price > 0)) {
      throw UsageError("--objective cost needs --gpu-hour-price USD (and --gpus N)");
    }
    o.objective = experiment::SearchOptions::Objective::kCost;
  } else if (s.objective != "throughput") {
    throw UsageError("--objective " + s.objective + ": it is throughput or cost");
  }
  return o;
}

int search_command(RunFlags& f, const SearchFlags& s) {
  core::RunConfig& c = f.config;
  experiment::SearchOptions options;
  try {
    f.load_searched = true;
    finalize_run_flags(f);
    options = search_options(f, s);
    if (!s.resume.empty()) c.output_dir = s.resume;
  } catch (const UsageError& e) {
    std::fprintf(stderr, "tokenbench: error: %s\n", e.what());
    return kExitUsage;
  }
  return with_runner(
      c,
      {f.quiet, f.overwrite || !s.resume.empty(), command_line(), nullptr, f.progress_interval_s,
       history_recorder(f)},
      "-search", [&](measure::Runner& runner) {
        const auto result = experiment::run_search(runner, c, options);
        if (!result.no_success.empty() && !result.lo) {
          // Not an SLO answer: the server failed every request even at the lowest load.
          std::fprintf(stderr, "tokenbench: error: no request succeeded at probe %s\n",
                       core::one_line(result.no_success).c_str());
          return kExitNoMeasure;
        }
        if (!result.no_success.empty()) {
          std::fprintf(stderr, "tokenbench: warning: no request succeeded at probe %s\n",
                       core::one_line(result.no_success).c_str());
        }
        std::fputs(experiment::render_search(result, options).c_str(), stdout);
        std::printf("Results: %s (%s)\n", c.output_dir.c_str(), experiment::kSearchJson);
        if (!result.not_saved.empty()) {
          return print_unsaved(result.not_saved, experiment::search_to_json(result, options));
        }
        if (result.canceled) {
          say_resume_hint(c.output_dir, "search");
          return kExitNoMeasure;
        }
        return kExitOk;
      });
}

}  // namespace

void add_search_command(CLI::App& app, int& exit_code) {
  auto flags = std::make_shared<RunFlags>();
  auto s = std::make_shared<SearchFlags>();
  CLI::App* cmd = app.add_subcommand(
      "search", "Find the largest load (request rate or concurrency) meeting every --slo");
  add_run_flags(cmd, *flags);
  cmd->add_option("--vary", s->vary, "request-rate | max-concurrency")->capture_default_str();
  cmd->add_option("--min", s->min, "Lowest load to probe")->capture_default_str();
  cmd->add_option("--max", s->max, "Highest load to probe")->capture_default_str();
  cmd->add_option("--precision", s->precision,
                  "Stop when the bracket [pass, fail) is this narrow, relative to its bottom")
      ->capture_default_str();
  cmd->add_option("--repeats", s->repeats, "Runs per probed level; the majority decides")
      ->capture_default_str();
  cmd->add_option("--objective", s->objective,
                  "Which passing level is the answer: throughput (the most req/s) or cost (the "
                  "fewest USD per 1M output tokens; needs --gpu-hour-price)")
      ->capture_default_str();
  offer_values(cmd->get_option("--vary"), {"request-rate", "max-concurrency"});
  offer_values(cmd->get_option("--objective"), {"throughput", "cost"});
  cmd->add_option("--resume", s->resume,
                  "Continue an interrupted search in DIR, reusing its complete probes");
  cmd->callback([flags, s, &exit_code] { exit_code = search_command(*flags, *s); });
}

}  // namespace tokenbench::cli
