#include "tokenbench/experiment/compare.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <utility>

#include "tokenbench/experiment/compare_bootstrap.h"

namespace tokenbench::experiment {
namespace {

using compare_internal::FigureDef;
using compare_internal::kFigures;
using compare_internal::kMean;
using compare_internal::Prepared;
using compare_internal::Source;
using metrics::is_defined;
using metrics::kUndefined;

}  // namespace

// x as a percentage of |base|; 0 % for no change from a base of 0, undefined otherwise.
double compare_internal::relative_pct(double x, double base) {
  if (!is_defined(x) || !is_defined(base)) return kUndefined;
  if (base != 0.0) return 100.0 * x / std::abs(base);
  return x == 0.0 ? 0.0 : kUndefined;
}

namespace {

using compare_internal::relative_pct;

}  // namespace

namespace compare_internal {

Verdict judge(const FigureComparison& f, double min_effect) {
  if (!is_defined(f.delta) || !is_defined(f.ci_low) || !is_defined(f.ci_high)) {
    return Verdict::kNotApplicable;
  }
  const bool up = f.ci_low > 0.0 && f.delta > 0.0;
  const bool down = f.ci_high < 0.0 && f.delta < 0.0;
  if (!up && !down) return Verdict::kNoChange;
  const bool large = f.base == 0.0 || std::abs(f.delta) / std::abs(f.base) >= min_effect;
  if (!large) return Verdict::kNoChange;
  return up == (f.direction == Direction::kLowerIsBetter) ? Verdict::kWorse : Verdict::kBetter;
}

}  // namespace compare_internal

namespace {

using compare_internal::judge;

std::string figure_list() {
  std::string out;
  for (const FigureDef& def : kFigures) {
    if (!out.empty()) out += ", ";
    out += def.spec.name;
  }
  return out;
}

const FigureDef* find_def(std::string_view name) {
  for (const FigureDef& def : kFigures) {
    if (def.spec.name == name) return &def;
  }
  return nullptr;
}

[[noreturn]] void bad_gate(std::string_view item, std::string_view why) {
  throw std::invalid_argument(
      fmt::format("bad regression gate '{}': {}; expected FIGURE:PCT (e.g. p95_ttft_ms:5%) with "
                  "FIGURE one of {}",
                  item, why, figure_list()));
}

RegressionGate parse_gate_item(std::string_view item) {
  const auto colon = item.rfind(':');
  if (colon == std::string_view::npos) bad_gate(item, "missing ':PCT'");
  const std::string_view name = item.substr(0, colon);
  const FigureDef* def = find_def(name);
  if (def == nullptr) bad_gate(item, fmt::format("unknown figure '{}'", name));
  try {
    return RegressionGate{std::string(name), parse_percentage(item.substr(colon + 1), "margin")};
  } catch (const std::invalid_argument& e) {
    bad_gate(item, e.what());
  }
}

}  // namespace

std::string_view to_string(Direction d) {
  return d == Direction::kLowerIsBetter ? "lower_is_better" : "higher_is_better";
}

std::string_view to_string(Verdict v) {
  switch (v) {
    case Verdict::kNoChange:
      return "no significant change";
    case Verdict::kWorse:
      return "worse";
    case Verdict::kBetter:
      return "better";
    case Verdict::kNotApplicable:
      break;
  }
  return "n/a";
}

std::string_view to_string(IntervalMethod m) {
  switch (m) {
    case IntervalMethod::kBlockBootstrap:
      return "block bootstrap";
    case IntervalMethod::kOrderStatistics:
      return "order statistics";
    case IntervalMethod::kWindowBootstrap:
      return "window bootstrap";
    case IntervalMethod::kRunLevelT:
      return "run-level t";
    case IntervalMethod::kNone:
      break;
  }
  return "none";
}

std::span<const FigureSpec> compared_figures() {
  static const auto specs = [] {
    std::array<FigureSpec, kFigures.size()> out{};
    for (std::size_t i = 0; i < kFigures.size(); ++i) out[i] = kFigures[i].spec;
    return out;
  }();
  return specs;
}

std::string gateable_figure_names() { return figure_list(); }

double parse_percentage(std::string_view text, std::string_view what) {
  std::string_view digits = text;
  if (!digits.empty() && digits.back() == '%') digits.remove_suffix(1);
  double pct = 0.0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), pct);
  if (digits.empty() || ec != std::errc() || end != digits.data() + digits.size()) {
    throw std::invalid_argument(fmt::format("{} '{}' is not a percentage", what, text));
  }
  if (!std::isfinite(pct) || pct < 0.0) {
    throw std::invalid_argument(fmt::format("{} '{}' must be finite and >= 0", what, text));
  }
  return pct / 100.0;
}

std::vector<RegressionGate> parse_regression_gates(const std::vector<std::string>& items) {
  std::vector<RegressionGate> gates;
  for (const std::string& item : items) {
    std::size_t i = 0;
    bool any = false;
    while (i <= item.size()) {
      std::size_t j = item.find(',', i);
      if (j == std::string::npos) j = item.size();
      std::string_view part = std::string_view(item).substr(i, j - i);
      while (!part.empty() && part.front() == ' ') part.remove_prefix(1);
      while (!part.empty() && part.back() == ' ') part.remove_suffix(1);
      if (!part.empty()) {
        RegressionGate gate = parse_gate_item(part);
        for (const RegressionGate& g : gates) {
          if (g.figure == gate.figure) bad_gate(part, fmt::format("{} is gated twice", g.figure));
        }
        gates.push_back(std::move(gate));
        any = true;
      }
      i = j + 1;
    }
    if (!any) bad_gate(item, "empty item");
  }
  return gates;
}

const FigureComparison* Comparison::find(std::string_view name) const {
  for (const FigureComparison& f : figures) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

int figures_with_interval() { return static_cast<int>(kFigures.size()); }

bool Comparison::regressed() const {
  return std::any_of(gates.begin(), gates.end(), [](const GateResult& g) { return g.failed; });
}

bool Comparison::unjudged() const {
  return std::any_of(gates.begin(), gates.end(), [](const GateResult& g) { return !g.judged; });
}

namespace {

// True when each run has at least kMinTailValues values beyond the figure's percentile.
bool enough_tail(const FigureDef& def, const Prepared& base, const Prepared& next) {
  if (def.p == kMean || def.source == Source::kErrorRate) return true;
  const auto field = static_cast<std::size_t>(def.source);
  const double count = static_cast<double>(
      std::min(base.fields[field].values.size(), next.fields[field].values.size()));
  return count * std::min(def.p, 100.0 - def.p) / 100.0 >= kMinTailValues;
}

// The bootstrap interval of the delta: the replicates' tails cut off at `tail` percent each.
// A CI needs the statistic in most resamples; one undefined in many of them (a figure defined for
// only a handful of requests) gets none rather than a biased one.
void bootstrap_interval(const std::vector<double>& deltas, int resamples, double tail,
                        IntervalMethod method, FigureComparison& fc) {
  if (2 * deltas.size() < static_cast<std::size_t>(resamples)) return;
  fc.ci_low = metrics::percentile(deltas, tail);
  fc.ci_high = metrics::percentile(deltas, 100.0 - tail);
  fc.interval = method;
}

// The order-statistic interval of the delta: with each run's percentile inside its own
// distribution-free interval at error rate alpha / 2, the delta lies in [NEW's low - BASE's high,
// NEW's high - BASE's low] with probability at least 1 - alpha.
void order_statistic_interval(const FigureDef& def, const Prepared& pb, const Prepared& pn,
                              double alpha, FigureComparison& fc) {
  const auto field = static_cast<std::size_t>(def.source);
  const auto [base_low, base_high] =
      metrics::quantile_ci(pb.fields[field].values, def.p, alpha / 2);
  const auto [next_low, next_high] =
      metrics::quantile_ci(pn.fields[field].values, def.p, alpha / 2);
  fc.ci_low = next_low - base_high;
  fc.ci_high = next_high - base_low;
  fc.interval = IntervalMethod::kOrderStatistics;
}

// The interval of figure `def`'s delta, at error rate alpha (two-sided).
void set_interval(const FigureDef& def, const std::vector<double>& deltas, const Prepared& pb,
                  const Prepared& pn, int resamples, double alpha, FigureComparison& fc) {
  const double tail = 100.0 * alpha / 2.0;
  if (!def.spec.per_request) {
    bootstrap_interval(deltas, resamples, tail, IntervalMethod::kWindowBootstrap, fc);
  } else if (enough_tail(def, pb, pn)) {
    bootstrap_interval(deltas, resamples, tail, IntervalMethod::kBlockBootstrap, fc);
  } else if (def.source != Source::kItl) {
    // The bootstrap of an extreme order statistic (p99 of 60 requests is nearly their maximum)
    // is inconsistent and its interval far too narrow; order statistics are exact there. Pooled
    // ITL gaps are not independent draws (a request's gaps move together), so they get none.
    order_statistic_interval(def, pb, pn, alpha, fc);
  }
}

}  // namespace

Comparison compare_runs(const RunSample& base, const RunSample& next,
                        const CompareOptions& options) {
  if (options.resamples < 1) throw std::invalid_argument("resamples must be at least 1");
  if (!(options.confidence > 0.0 && options.confidence < 1.0)) {
    throw std::invalid_argument("confidence must lie in (0, 1)");
  }
  if (!(options.min_effect >= 0.0) || !std::isfinite(options.min_effect)) {
    throw std::invalid_argument("min_effect must be finite and >= 0");
  }
  const Prepared pb = compare_internal::prepare(base);
  const Prepared pn = compare_internal::prepare(next);

  Comparison c;
  c.base_dir = base.dir;
  c.new_dir = next.dir;
  // A sampled run (RunSample::stride) shows the counts of every request read.
  c.base_measured = base.stride > 1 ? base.requests : pb.measured_count;
  c.base_failed = base.stride > 1 ? base.failed : pb.failures;
  c.new_measured = next.stride > 1 ? next.requests : pn.measured_count;
  c.new_failed = next.stride > 1 ? next.failed : pn.failures;

  std::array<std::vector<double>, kFigures.size()> deltas;
  if (pb.n > 0 && pn.n > 0) deltas = compare_internal::bootstrap_deltas(pb, pn, options);

  // The level holds for every figure at once (Bonferroni): with k intervals each at
  // 1 - (1 - confidence) / k, two runs of one configuration show no change in any figure with
  // probability >= confidence, so "no significant change" is a statement about the whole run.
  const double alpha = (1.0 - options.confidence) / figures_with_interval();
  for (std::size_t f = 0; f < kFigures.size(); ++f) {
    const FigureDef& def = kFigures[f];
    FigureComparison fc;
    fc.name = std::string(def.spec.name);
    fc.direction = def.spec.direction;
    if (pb.n > 0 && pn.n > 0) {
      fc.base = compare_internal::point_value(def, pb);
      fc.next = compare_internal::point_value(def, pn);
    }
    if (is_defined(fc.base) && is_defined(fc.next)) fc.delta = fc.next - fc.base;
    if (is_defined(fc.delta)) set_interval(def, deltas[f], pb, pn, options.resamples, alpha, fc);
    fc.delta_pct = relative_pct(fc.delta, fc.base);
    fc.ci_low_pct = relative_pct(fc.ci_low, fc.base);
    fc.ci_high_pct = relative_pct(fc.ci_high, fc.base);
    fc.verdict = judge(fc, options.min_effect);
    c.figures.push_back(std::move(fc));
  }
  return c;
}

void apply_gates(Comparison& comparison, const std::vector<RegressionGate>& gates) {
  comparison.gates.clear();
  for (const RegressionGate& gate : gates) {
    GateResult result{gate};
    const FigureComparison* f = comparison.find(gate.figure);
    // The gate can fail only if the end of the interval on the better side can leave zero.
    const double deciding = f == nullptr                                ? kUndefined
                            : f->direction == Direction::kLowerIsBetter ? f->ci_low
                                                                        : f->ci_high;
    result.judged = f != nullptr && f->verdict != Verdict::kNotApplicable && is_defined(deciding) &&
                    std::isfinite(deciding);
    if (f != nullptr && f->verdict == Verdict::kWorse) {
      if (is_defined(f->ci_low_pct) && is_defined(f->ci_high_pct)) {
        result.bound_pct = std::min(std::abs(f->ci_low_pct), std::abs(f->ci_high_pct));
      } else {
        result.bound_pct = std::numeric_limits<double>::infinity();  // worse than a base of 0
      }
      result.failed = result.bound_pct > 100.0 * gate.margin;
    }
    comparison.gates.push_back(std::move(result));
  }
}

}  // namespace tokenbench::experiment
