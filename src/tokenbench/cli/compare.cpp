// `tokenbench compare BASE NEW [NEW...]`: run-to-run comparison and regression gate.

#include "tokenbench/experiment/compare.h"

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "tokenbench/cli/commands.h"
#include "tokenbench/report/run_outputs.h"

namespace tokenbench::cli {
namespace {

struct CompareFlags {
  std::string base;
  std::vector<std::string> next;
  int resamples = 2000;
  std::uint64_t seed = 0;
  std::string min_effect = "2%";
  std::vector<std::string> gates;
  std::string json_path;
};

int compare_command(const CompareFlags& f) {
  experiment::CompareOptions options;
  options.resamples = f.resamples;
  options.seed = f.seed;
  std::vector<experiment::RegressionGate> gates;
  try {
    options.min_effect = experiment::parse_percentage(f.min_effect, "--min-effect");
    gates = experiment::parse_regression_gates(f.gates);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tokenbench: error: %s\n", e.what());
    return kExitUsage;
  }
  try {
    const experiment::RunSample base = experiment::load_run_sample(f.base);
    if (!base.warning.empty())
      std::fprintf(stderr, "tokenbench: warning: %s\n", base.warning.c_str());
    std::vector<experiment::Comparison> comparisons;
    for (const std::string& dir : f.next) {
      const experiment::RunSample next = experiment::load_run_sample(dir);
      if (!next.warning.empty()) {
        std::fprintf(stderr, "tokenbench: warning: %s\n", next.warning.c_str());
      }
      comparisons.push_back(experiment::compare_runs(base, next, options));
      experiment::apply_gates(comparisons.back(), gates);
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
        report::write_text_file(f.json_path, text);
      }
    }
    for (const experiment::Comparison& c : comparisons) {
      for (const experiment::GateResult& g : c.gates) {
        if (!g.judged) {
          std::fprintf(stderr,
                       "tokenbench: warning: gate %s could not be judged for %s: no confidence "
                       "interval (measure more requests)\n",
                       g.gate.figure.c_str(), c.new_dir.c_str());
        }
      }
    }
    for (const experiment::Comparison& c : comparisons) {
      if (c.regressed()) return kExitGate;
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
      "compare", "Compare runs against a baseline run, with confidence intervals and gates");
  cmd->add_option("base", flags->base, "Baseline results directory")->required();
  cmd->add_option("new", flags->next, "Results directories compared against BASE")->required();
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
  cmd->add_option("--json", flags->json_path,
                  "Also write the comparison as JSON to FILE ('-': "
                  "stdout, instead of the tables)");
  cmd->callback([flags, &exit_code] { exit_code = compare_command(*flags); });
}

}  // namespace tokenbench::cli
