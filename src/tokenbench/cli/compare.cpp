// `tokenbench compare BASE NEW [NEW...]`: run-to-run comparison and regression gate.

#include "tokenbench/experiment/compare.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "tokenbench/cli/commands.h"
#include "tokenbench/cli/option_values.h"
#include "tokenbench/cli/run_flags.h"
#include "tokenbench/experiment/repeats.h"
#include "tokenbench/history/baseline.h"
#include "tokenbench/records/results_dir.h"

namespace tokenbench::cli {
namespace {

struct CompareFlags {
  std::vector<std::string> dirs;  // BASE NEW..., or BASE... -- NEW... (groups of runs)
  std::string base;
  std::vector<std::string> next;
  int resamples = 2000;
  std::uint64_t seed = 0;
  std::string min_effect = "2%";
  std::vector<std::string> gates;
  std::string json_path;
  std::string unjudged = "fail";
  bool allow_different = false;
  std::string max_line_bytes = "16MiB";
  std::string baseline;  // last, best or a history id: BASE from the history
  std::string baseline_figure;
  std::string history_path;
};

// --baseline: BASE taken from the history, put before NEW... in f.dirs.
void take_baseline(CompareFlags& f, const std::vector<experiment::RegressionGate>& gates) {
  if (f.dirs.empty()) throw std::runtime_error("compare --baseline needs NEW: a results directory");
  const std::string path =
      f.history_path.empty() ? history::default_history_path() : f.history_path;
  std::error_code ec;
  if (path.empty() || !std::filesystem::is_regular_file(path, ec)) {
    throw std::runtime_error(fmt::format(
        "--baseline {}: no history at {} (runs add themselves when they end; --history FILE "
        "names another)",
        f.baseline, path.empty() ? "$XDG_DATA_HOME" : path));
  }
  const history::Store store(path);
  // "best" by the first gate's figure, else by output throughput.
  const std::string figure = !f.baseline_figure.empty() ? f.baseline_figure
                             : !gates.empty()           ? gates.front().figure
                                                        : "output_throughput";
  const history::RunEntry base =
      history::choose_baseline(store, f.dirs.front(), f.baseline, figure);
  const std::string dir = base.repeat_of.empty() ? base.dir : base.repeat_of;
  std::fprintf(stderr, "tokenbench: baseline (--baseline %s%s): run %lld of %s, %s\n",
               f.baseline.c_str(), f.baseline == "best" ? (" by " + figure).c_str() : "",
               static_cast<long long>(base.id), base.started_at.c_str(), dir.c_str());
  f.dirs.insert(f.dirs.begin(), dir);
}

// Loads BASE and every NEW, and refuses pairs measured with another workload or target unless
// --allow-different. Throws std::runtime_error (a usage error) with a one-line message.
std::vector<experiment::RunSample> load_runs(const CompareFlags& f) {
  std::vector<experiment::RunSample> runs;
  runs.push_back(experiment::load_run_sample(f.base));
  for (const std::string& dir : f.next) runs.push_back(experiment::load_run_sample(dir));
  for (const experiment::RunSample& run : runs) {
    if (!run.warning.empty())
      std::fprintf(stderr, "tokenbench: warning: %s\n", run.warning.c_str());
  }
  const experiment::RunSample& base = runs.front();
  for (std::size_t i = 1; i < runs.size(); ++i) {
    const experiment::RunSample& next = runs[i];
    if (!base.config || !next.config) {
      std::fprintf(stderr,
                   "tokenbench: warning: cannot check that %s and %s measured the same workload: "
                   "%s has no config.yaml\n",
                   base.dir.c_str(), next.dir.c_str(), (base.config ? next.dir : base.dir).c_str());
      continue;
    }
    const auto differences = experiment::config_differences(*base.config, *next.config);
    const std::string refused = experiment::describe_refused(differences);
    if (!refused.empty() && !f.allow_different) {
      throw std::runtime_error(
          next.dir + " and " + base.dir + " were measured with different configurations: " +
          refused + "; compare runs of one workload and target, or pass --allow-different");
    }
  }
  return runs;
}

// The runs after a "--" on the command line (compare's own arguments): NEW's group.
std::size_t after_separator() {
  const auto& argv = command_line();
  const auto sep = std::find(argv.begin(), argv.end(), "--");
  return sep == argv.end() ? 0 : static_cast<std::size_t>(argv.end() - sep - 1);
}

// compare BASE... -- NEW..., or a repeated run's root on either side: the spread between runs.
std::vector<experiment::Comparison> compare_run_groups(const CompareFlags& f,
                                                       const experiment::CompareOptions& options) {
  const std::size_t next_count = after_separator();
  std::vector<std::vector<std::string>> groups;
  if (next_count > 0) {
    if (next_count >= f.dirs.size()) throw std::runtime_error("give BASE runs before the --");
    groups.emplace_back(f.dirs.begin(), f.dirs.end() - static_cast<std::ptrdiff_t>(next_count));
    groups.emplace_back(f.dirs.end() - static_cast<std::ptrdiff_t>(next_count), f.dirs.end());
  } else {
    for (const auto& d : f.dirs) groups.push_back({d});
  }
  const experiment::RunGroup base = experiment::load_run_group(groups.front());
  std::vector<experiment::Comparison> out;
  for (std::size_t i = 1; i < groups.size(); ++i) {
    const experiment::RunGroup next = experiment::load_run_group(groups[i]);
    out.push_back(experiment::compare_groups(base, next, options));
    if (base.config && next.config) {
      out.back().differences = experiment::config_differences(*base.config, *next.config);
      const std::string refused = experiment::describe_refused(out.back().differences);
      if (!refused.empty() && !f.allow_different) {
        throw std::runtime_error(groups[i].front() + " and " + groups.front().front() +
                                 " were measured with different configurations: " + refused +
                                 "; compare runs of one workload and target, or pass "
                                 "--allow-different");
      }
    }
  }
  return out;
}

bool wants_groups(const CompareFlags& f) {
  return after_separator() > 0 ||
         std::any_of(f.dirs.begin(), f.dirs.end(),
                     [](const std::string& d) { return experiment::is_repeated_root(d); });
}

int compare_command(CompareFlags& f) {
  if (!f.baseline.empty()) {
    try {
      take_baseline(f, experiment::parse_regression_gates(f.gates));
    } catch (const std::exception& e) {
      std::fprintf(stderr, "tokenbench: error: %s\n", e.what());
      return kExitUsage;
    }
  }
  if (f.dirs.size() < 2) {
    std::fprintf(stderr,
                 "tokenbench: error: compare needs BASE and NEW: two results directories, or "
                 "groups of runs BASE... -- NEW...\n");
    return kExitUsage;
  }
  f.base = f.dirs.front();
  f.next.assign(f.dirs.begin() + 1, f.dirs.end());
  experiment::CompareOptions options;
  options.resamples = f.resamples;
  options.seed = f.seed;
  std::vector<experiment::RegressionGate> gates;
  try {
    options.min_effect = experiment::parse_percentage(f.min_effect, "--min-effect");
    apply_max_line_bytes(f.max_line_bytes);
    gates = experiment::parse_regression_gates(f.gates);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tokenbench: error: %s\n", e.what());
    return kExitUsage;
  }
  try {
    std::vector<experiment::Comparison> comparisons;
    const bool groups = wants_groups(f);
    const std::vector<experiment::RunSample> runs =
        groups ? std::vector<experiment::RunSample>{} : load_runs(f);
    if (groups) {
      comparisons = compare_run_groups(f, options);
      for (auto& c : comparisons) experiment::apply_gates(c, gates);
    }
    for (std::size_t i = 1; i < runs.size(); ++i) {
      const experiment::RunSample& base = runs.front();
      comparisons.push_back(experiment::compare_runs(base, runs[i], options));
      experiment::apply_gates(comparisons.back(), gates);
      if (base.config && runs[i].config) {
        comparisons.back().differences =
            experiment::config_differences(*base.config, *runs[i].config);
      }
    }
    const bool json_to_stdout = f.json_path == "-";
    if (!json_to_stdout) {
      for (std::size_t i = 0; i < comparisons.size(); ++i) {
        if (i > 0) std::fputs("\n", stdout);
        std::fputs(experiment::render_comparison(comparisons[i], options).c_str(), stdout);
      }
    }
    if (!f.json_path.empty()) {
      const std::string text = experiment::comparison_to_json(comparisons, options).dump(2) + "\n";
      if (json_to_stdout) {
        std::fputs(text.c_str(), stdout);
      } else {
        records::write_text_file(f.json_path, text);
      }
    }
    const bool fail_unjudged = f.unjudged == "fail";
    for (const experiment::Comparison& c : comparisons) {
      for (const experiment::GateResult& g : c.gates) {
        if (!g.judged) {
          std::fprintf(stderr,
                       "tokenbench: %s: gate %s could not be judged for %s: too few requests to "
                       "bound the figure (measure more requests%s)\n",
                       fail_unjudged ? "error" : "warning", g.gate.figure.c_str(),
                       c.new_dir.c_str(),
                       fail_unjudged ? ", or pass --unjudged pass to let it pass" : "");
        }
      }
    }
    const auto any = [&](auto pred) {
      return std::any_of(comparisons.begin(), comparisons.end(), pred);
    };
    if (any([](const experiment::Comparison& c) { return c.regressed(); })) return kExitGate;
    if (fail_unjudged && any([](const experiment::Comparison& c) { return c.unjudged(); })) {
      return kExitUnjudged;
    }
    return kExitOk;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tokenbench: error: %s\n", e.what());
    return kExitUsage;
  }
}

}  // namespace

void add_compare_command(CLI::App& app, int& exit_code) {
  auto flags = std::make_shared<CompareFlags>();
  CLI::App* cmd = app.add_subcommand(
      "compare",
      "Compare runs against a baseline run (or groups of runs), with confidence intervals and "
      "gates");
  cmd->add_option("dirs", flags->dirs,
                  "BASE NEW...: results directories compared against BASE; or BASE... -- "
                  "NEW...: two groups of runs (a repeated run's root is its runs), compared by "
                  "the spread between runs; with --baseline, NEW... only")
      ->required();
  cmd->add_option("--resamples", flags->resamples, "Bootstrap resamples")
      ->check(CLI::Range(1, 1000000))
      ->capture_default_str();
  cmd->add_option("--seed", flags->seed, "Bootstrap seed (the output is deterministic)")
      ->capture_default_str();
  cmd->add_option("--min-effect", flags->min_effect,
                  "Smallest relative change called a change, in percent")
      ->capture_default_str();
  cmd->add_option("--fail-on-regression", flags->gates,
                  "Exit 3 when FIGURE got significantly worse by more than PCT, e.g. "
                  "p95_ttft_ms:5% (repeatable, or comma-separated)")
      ->allow_extra_args(false);
  only_values(cmd->add_option("--unjudged", flags->unjudged,
                              "A gate that cannot be judged (too few requests to bound its "
                              "figure): fail (exit 5) or pass"),
              {"fail", "pass"})
      ->capture_default_str();
  cmd->add_flag("--allow-different", flags->allow_different,
                "Compare runs whose config.yaml differ in workload or target (each difference "
                "is listed above the table)");
  cmd->add_option("--json", flags->json_path,
                  "Also write the comparison as JSON to FILE ('-': "
                  "stdout, instead of the tables)");
  cmd->add_option("--baseline", flags->baseline,
                  "Take BASE from the run history instead: last (the latest earlier run of NEW's "
                  "workload), best (by --baseline-figure) or a run's id (docs/HISTORY.md)");
  cmd->add_option("--baseline-figure", flags->baseline_figure,
                  "The figure --baseline best ranks by (default: the first "
                  "--fail-on-regression's, else output_throughput)");
  cmd->add_option("--history", flags->history_path,
                  "The history --baseline reads (default "
                  "$XDG_DATA_HOME/tokenbench/history.sqlite)");
  add_max_line_bytes_flag(cmd, flags->max_line_bytes);
  cmd->callback([flags, &exit_code] { exit_code = compare_command(*flags); });
}

}  // namespace tokenbench::cli
