// Groups of runs compared (`tokenbench compare BASE... -- NEW...`, or a repeated run's root):
// the spread between runs, each run one value of each figure, by Welch's t.

#include <fmt/format.h>

#include <boost/math/distributions/students_t.hpp>
#include <cmath>
#include <filesystem>
#include <stdexcept>

#include "tokenbench/core/run_config.h"
#include "tokenbench/experiment/compare.h"
#include "tokenbench/experiment/compare_bootstrap.h"
#include "tokenbench/experiment/figures.h"
#include "tokenbench/experiment/repeats.h"
#include "tokenbench/records/results_dir.h"

namespace tokenbench::experiment {
namespace {

using metrics::is_defined;
using metrics::kUndefined;
using nlohmann::json;

struct Moments {
  double n = 0;
  double mean = kUndefined;
  double var = kUndefined;  // the sample variance (n - 1)
};

// A figure's moments over the runs, each run's value as figures_from_summary names it (the
// derived ones too: error_rate, p50_decode_tps).
Moments moments_of(const std::vector<Figures>& runs, std::string_view key) {
  std::vector<double> v;
  for (const Figures& f : runs) {
    const auto it = f.find(std::string(key));
    if (it != f.end() && std::isfinite(it->second)) v.push_back(it->second);
  }
  Moments m;
  m.n = static_cast<double>(v.size());
  if (v.empty()) return m;
  const metrics::MeanSd ms = metrics::mean_and_sd(v);
  m.mean = ms.mean;
  if (v.size() > 1) m.var = ms.sd * ms.sd;
  return m;
}

std::int64_t total_of(const std::vector<json>& summaries, const char* key) {
  std::int64_t n = 0;
  for (const auto& s : summaries) n += s.value(key, std::int64_t{0});
  return n;
}

}  // namespace

std::string RunGroup::label() const {
  std::string out = fmt::format("{} run{}:", dirs.size(), dirs.size() == 1 ? "" : "s");
  for (std::size_t i = 0; i < dirs.size(); ++i) out += (i == 0 ? " " : ", ") + dirs[i];
  return out;
}

RunGroup load_run_group(const std::vector<std::string>& dirs) {
  RunGroup g;
  for (const std::string& dir : dirs) {
    if (is_repeated_root(dir)) {
      for (int i = 1; std::filesystem::is_directory(dir + "/" + repeat_dir(i)); ++i) {
        g.dirs.push_back(dir + "/" + repeat_dir(i));
      }
    } else {
      g.dirs.push_back(dir);
    }
  }
  for (const std::string& dir : g.dirs) {
    const std::string path = dir + "/" + records::kSummaryFile;
    const json summary = records::read_json_file(path);
    if (!summary.is_object()) {
      throw std::runtime_error(fmt::format(
          "{} has no {}: compare groups of runs with summaries (tokenbench report {} writes it)",
          dir, records::kSummaryFile, dir));
    }
    g.summaries.push_back(summary);
  }
  if (!g.dirs.empty()) {
    const std::string config = g.dirs.front() + "/" + records::kConfigFile;
    if (std::filesystem::is_regular_file(config)) {
      g.config = core::run_config_from_yaml(records::read_text_file(config));
    }
  }
  return g;
}

Comparison compare_groups(const RunGroup& base, const RunGroup& next,
                          const CompareOptions& options) {
  if (!(options.confidence > 0.0 && options.confidence < 1.0)) {
    throw std::invalid_argument("confidence must lie in (0, 1)");
  }
  Comparison c;
  c.base_dir = base.label();
  c.new_dir = next.label();
  c.base_runs = base.dirs.size();
  c.new_runs = next.dirs.size();
  c.base_failed = total_of(base.summaries, "failed");
  c.base_measured = total_of(base.summaries, "completed") + c.base_failed;
  c.new_failed = total_of(next.summaries, "failed");
  c.new_measured = total_of(next.summaries, "completed") + c.new_failed;
  // The same family-wise level as two single runs get: Bonferroni over the figures.
  const double alpha = (1.0 - options.confidence) / figures_with_interval();
  std::vector<Figures> base_runs, next_runs;
  for (const auto& s : base.summaries) base_runs.push_back(figures_from_summary(s));
  for (const auto& s : next.summaries) next_runs.push_back(figures_from_summary(s));
  for (const FigureSpec& spec : compared_figures()) {
    FigureComparison fc;
    fc.name = std::string(spec.name);
    fc.direction = spec.direction;
    const Moments b = moments_of(base_runs, spec.name);
    const Moments n = moments_of(next_runs, spec.name);
    fc.base = b.mean;
    fc.next = n.mean;
    if (is_defined(b.mean) && is_defined(n.mean)) fc.delta = n.mean - b.mean;
    if (is_defined(fc.delta) && is_defined(b.var) && is_defined(n.var)) {
      // Welch: each side's own variance; Satterthwaite's degrees of freedom.
      const double vb = b.var / b.n;
      const double vn = n.var / n.n;
      const double se = std::sqrt(vb + vn);
      double half = 0;
      if (se > 0) {
        const double df = (vb + vn) * (vb + vn) / (vb * vb / (b.n - 1) + vn * vn / (n.n - 1));
        half = boost::math::quantile(boost::math::students_t(df), 1 - alpha / 2) * se;
      }
      fc.ci_low = fc.delta - half;
      fc.ci_high = fc.delta + half;
      fc.interval = IntervalMethod::kRunLevelT;
    }
    fc.delta_pct = compare_internal::relative_pct(fc.delta, fc.base);
    fc.ci_low_pct = compare_internal::relative_pct(fc.ci_low, fc.base);
    fc.ci_high_pct = compare_internal::relative_pct(fc.ci_high, fc.base);
    fc.verdict = compare_internal::judge(fc, options.min_effect);
    c.figures.push_back(std::move(fc));
  }
  return c;
}

}  // namespace tokenbench::experiment
