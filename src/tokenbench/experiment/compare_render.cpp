// Console and JSON renderings of run-to-run comparisons (compare.h).

#include <fmt/format.h>

#include <cmath>
#include <string>
#include <vector>

#include "tokenbench/experiment/compare.h"
#include "tokenbench/report/console.h"

namespace tokenbench::experiment {
namespace {

using metrics::is_defined;

constexpr std::string_view kUndefinedCell = "-";

int decimals(std::string_view figure) { return figure == "error_rate" ? 4 : 2; }

std::string value_cell(double v, std::string_view figure) {
  if (!is_defined(v)) return std::string(kUndefinedCell);
  return fmt::format("{:.{}f}", v, decimals(figure));
}

std::string signed_cell(double v, std::string_view figure) {
  if (!is_defined(v)) return std::string(kUndefinedCell);
  return fmt::format("{:+.{}f}", v, decimals(figure));
}

std::string pct_cell(double pct) {
  if (!is_defined(pct)) return std::string(kUndefinedCell);
  if (std::isinf(pct)) return pct > 0 ? "+inf%" : "-inf%";
  return fmt::format("{:+.1f}%", pct);
}

// "+12.1%..+18.0%", or the absolute bounds when BASE is 0 and percentages are undefined; an
// order-statistic interval is marked "*".
std::string ci_cell(const FigureComparison& f) {
  if (!is_defined(f.ci_low) || !is_defined(f.ci_high)) return std::string(kUndefinedCell);
  const std::string mark = f.interval == IntervalMethod::kOrderStatistics ? "*" : "";
  if (is_defined(f.ci_low_pct) && is_defined(f.ci_high_pct)) {
    return pct_cell(f.ci_low_pct) + ".." + pct_cell(f.ci_high_pct) + mark;
  }
  return signed_cell(f.ci_low, f.name) + ".." + signed_cell(f.ci_high, f.name) + mark;
}

std::string verdict_cell(Verdict v) {
  return v == Verdict::kNoChange ? "~" : std::string(to_string(v));
}

std::string change_text(const FigureComparison& f) {
  const std::string delta =
      is_defined(f.delta_pct) ? pct_cell(f.delta_pct) : signed_cell(f.delta, f.name);
  return fmt::format("{} ({}, CI {})", f.name, delta, ci_cell(f));
}

std::string margin_text(double margin) { return fmt::format("{:g}%", 100.0 * margin); }

std::string gate_line(const GateResult& g, const FigureComparison* f) {
  const std::string head = fmt::format("gate {}:{}", g.gate.figure, margin_text(g.gate.margin));
  if (g.failed) {
    return fmt::format(
        "{}: FAILED: significantly worse, by at least {} (the CI bound nearest zero) > {}", head,
        pct_cell(g.bound_pct), margin_text(g.gate.margin));
  }
  if (!g.judged) {
    const bool none = f == nullptr || f->interval == IntervalMethod::kNone;
    return fmt::format(
        "{}: NOT JUDGED: {}, so no regression could fail this gate; measure more requests", head,
        none ? "the figure has no confidence interval (undefined in a run, or too few values)"
             : "the interval has no bound on the better side (too few values beyond the "
               "percentile for a distribution-free bound)");
  }
  if (is_defined(g.bound_pct)) {
    return fmt::format("{}: passed: worse, but the CI reaches down to {} <= {}", head,
                       pct_cell(g.bound_pct), margin_text(g.gate.margin));
  }
  return fmt::format("{}: passed ({})", head,
                     f != nullptr ? to_string(f->verdict) : std::string_view("n/a"));
}

nlohmann::json number(double v) {
  return is_defined(v) && std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr);
}

// A bound: a number, "inf" or "-inf", or null when undefined.
nlohmann::json bound(double v) {
  if (is_defined(v) && std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return number(v);
}

std::string differences_text(const std::vector<ConfigDifference>& differences) {
  if (differences.empty()) return "";
  std::string out = "configurations differ:\n";
  for (const ConfigDifference& d : differences) {
    out += fmt::format("  {}: {} -> {}{}\n", d.field, d.base, d.next,
                       d.tolerated ? " (a repeat with other random draws: comparable)" : "");
  }
  return out;
}

std::string overall_class(const Comparison& c) {
  bool worse = false, better = false;
  for (const FigureComparison& f : c.figures) {
    worse = worse || f.verdict == Verdict::kWorse;
    better = better || f.verdict == Verdict::kBetter;
  }
  if (worse && better) return "mixed";
  if (worse) return "worse";
  if (better) return "better";
  return "no significant change";
}

}  // namespace

std::string overall_verdict_line(const Comparison& comparison) {
  std::string worse, better;
  for (const FigureComparison& f : comparison.figures) {
    std::string* list = f.verdict == Verdict::kWorse    ? &worse
                        : f.verdict == Verdict::kBetter ? &better
                                                        : nullptr;
    if (list == nullptr) continue;
    if (!list->empty()) *list += ", ";
    *list += change_text(f);
  }
  std::string line = fmt::format("{} vs {}: ", comparison.new_dir, comparison.base_dir);
  if (worse.empty() && better.empty()) return line + "no significant change";
  if (!worse.empty()) line += "worse in " + worse;
  if (!worse.empty() && !better.empty()) line += "; ";
  if (!better.empty()) line += "better in " + better;
  return line;
}

std::string render_comparison(const Comparison& comparison, const CompareOptions& options) {
  const std::string ci_header = fmt::format("{:g}% CI of delta %", 100.0 * options.confidence);
  std::vector<std::vector<std::string>> rows;
  for (const FigureComparison& f : comparison.figures) {
    rows.push_back({f.name, value_cell(f.base, f.name), value_cell(f.next, f.name),
                    signed_cell(f.delta, f.name), pct_cell(f.delta_pct), ci_cell(f),
                    verdict_cell(f.verdict)});
  }
  using report::Align;
  std::string out =
      fmt::format("BASE {} ({} measured, {} failed)\nNEW  {} ({} measured, {} failed)\n",
                  comparison.base_dir, comparison.base_measured, comparison.base_failed,
                  comparison.new_dir, comparison.new_measured, comparison.new_failed);
  out += differences_text(comparison.differences);
  out += report::render_grid_table(
      {"figure", "BASE", "NEW", "delta", "delta %", ci_header, "verdict"}, rows,
      {Align::kLeft, Align::kRight, Align::kRight, Align::kRight, Align::kRight, Align::kRight,
       Align::kLeft});
  if (comparison.base_runs > 0) {
    out += fmt::format(
        "delta = mean(NEW runs) - mean(BASE runs); CI {:g}% for all {} figures together (each "
        "at {:.2f}%): Welch's t over each run's own figure ({} BASE, {} NEW runs: the spread "
        "between runs); changes under {} are ~; n/a: fewer than two runs with the figure\n",
        100.0 * options.confidence, figures_with_interval(),
        100.0 - 100.0 * (1.0 - options.confidence) / figures_with_interval(), comparison.base_runs,
        comparison.new_runs, margin_text(options.min_effect));
  } else {
    out += fmt::format(
        "delta = NEW - BASE; CI {:g}% for all {} figures together (each at {:.2f}%): moving-block "
        "bootstrap ({} resamples, seed {}) over requests, and over {} time windows for the "
        "run-level rates; * order statistics (a percentile with under {:g} values beyond it in a "
        "run: each run's distribution-free interval, combined); changes under {} are ~; n/a: no "
        "interval\n",
        100.0 * options.confidence, figures_with_interval(),
        100.0 - 100.0 * (1.0 - options.confidence) / figures_with_interval(), options.resamples,
        options.seed, kThroughputWindows, kMinTailValues, margin_text(options.min_effect));
  }
  out += overall_verdict_line(comparison) + "\n";
  for (const GateResult& g : comparison.gates) {
    out += gate_line(g, comparison.find(g.gate.figure)) + "\n";
  }
  return out;
}

nlohmann::json comparison_to_json(const std::vector<Comparison>& comparisons,
                                  const CompareOptions& options) {
  nlohmann::json doc;
  doc["base"] = comparisons.empty() ? std::string() : comparisons.front().base_dir;
  doc["resamples"] = options.resamples;
  doc["seed"] = options.seed;
  doc["confidence"] = options.confidence;
  doc["min_effect"] = options.min_effect;
  doc["comparisons"] = nlohmann::json::array();
  for (const Comparison& c : comparisons) {
    nlohmann::json figures = nlohmann::json::array();
    for (const FigureComparison& f : c.figures) {
      figures.push_back({{"name", f.name},
                         {"direction", to_string(f.direction)},
                         {"base", number(f.base)},
                         {"new", number(f.next)},
                         {"delta", number(f.delta)},
                         {"delta_pct", number(f.delta_pct)},
                         {"ci_low", bound(f.ci_low)},
                         {"ci_high", bound(f.ci_high)},
                         {"ci_low_pct", bound(f.ci_low_pct)},
                         {"ci_high_pct", bound(f.ci_high_pct)},
                         {"interval", f.interval == IntervalMethod::kNone
                                          ? nlohmann::json(nullptr)
                                          : nlohmann::json(to_string(f.interval))},
                         {"verdict", to_string(f.verdict)}});
    }
    nlohmann::json differences = nlohmann::json::array();
    for (const ConfigDifference& d : c.differences) {
      differences.push_back(
          {{"field", d.field}, {"base", d.base}, {"new", d.next}, {"tolerated", d.tolerated}});
    }
    nlohmann::json gates = nlohmann::json::array();
    nlohmann::json regressions = nlohmann::json::array();
    nlohmann::json unjudged = nlohmann::json::array();
    for (const GateResult& g : c.gates) {
      nlohmann::json item{
          {"figure", g.gate.figure},
          {"margin", g.gate.margin},
          {"bound_pct", std::isinf(g.bound_pct) ? nlohmann::json("inf") : number(g.bound_pct)},
          {"failed", g.failed},
          {"judged", g.judged}};
      if (g.failed) regressions.push_back(item);
      if (!g.judged) unjudged.push_back(item);
      gates.push_back(std::move(item));
    }
    doc["comparisons"].push_back({{"new", c.new_dir},
                                  {"base_runs", c.base_runs},
                                  {"new_runs", c.new_runs},
                                  {"base_measured", c.base_measured},
                                  {"base_failed", c.base_failed},
                                  {"new_measured", c.new_measured},
                                  {"new_failed", c.new_failed},
                                  {"config_differences", std::move(differences)},
                                  {"figures", std::move(figures)},
                                  {"verdict", overall_class(c)},
                                  {"summary", overall_verdict_line(c)},
                                  {"gates", std::move(gates)},
                                  {"regressions", std::move(regressions)},
                                  {"unjudged", std::move(unjudged)}});
  }
  return doc;
}

}  // namespace tokenbench::experiment
