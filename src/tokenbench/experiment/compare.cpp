#include "tokenbench/experiment/compare.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <limits>
#include <stdexcept>
#include <thread>
#include <utility>

#include "tokenbench/experiment/journal.h"
#include "tokenbench/metrics/request_metrics.h"
#include "tokenbench/metrics/summary.h"
#include "tokenbench/report/records_io.h"
#include "tokenbench/report/run_outputs.h"

namespace tokenbench::experiment {
namespace {

using metrics::is_defined;
using metrics::kUndefined;

// Where a figure's values come from. The first five are distributions over successful requests.
enum class Source {
  kTtft,
  kTpot,
  kItl,
  kE2el,
  kOutputTps,
  kErrorRate,
  kRequestThroughput,
  kOutputThroughput
};
constexpr std::size_t kNumFields = 5;

constexpr double kMean = -1.0;  // FigureDef::p of a mean

struct FigureDef {
  FigureSpec spec;
  Source source;
  double p;  // percentile, or kMean
};

constexpr Direction kLower = Direction::kLowerIsBetter;
constexpr Direction kHigher = Direction::kHigherIsBetter;

constexpr std::array<FigureDef, 18> kFigures{{
    {{"mean_ttft_ms", kLower, true}, Source::kTtft, kMean},
    {{"p50_ttft_ms", kLower, true}, Source::kTtft, 50},
    {{"p95_ttft_ms", kLower, true}, Source::kTtft, 95},
    {{"p99_ttft_ms", kLower, true}, Source::kTtft, 99},
    {{"mean_tpot_ms", kLower, true}, Source::kTpot, kMean},
    {{"p50_tpot_ms", kLower, true}, Source::kTpot, 50},
    {{"p95_tpot_ms", kLower, true}, Source::kTpot, 95},
    {{"mean_itl_ms", kLower, true}, Source::kItl, kMean},
    {{"p50_itl_ms", kLower, true}, Source::kItl, 50},
    {{"p95_itl_ms", kLower, true}, Source::kItl, 95},
    {{"mean_e2el_ms", kLower, true}, Source::kE2el, kMean},
    {{"p50_e2el_ms", kLower, true}, Source::kE2el, 50},
    {{"p95_e2el_ms", kLower, true}, Source::kE2el, 95},
    {{"p99_e2el_ms", kLower, true}, Source::kE2el, 99},
    {{"p50_decode_tps", kHigher, true}, Source::kOutputTps, 50},
    {{"error_rate", kLower, true}, Source::kErrorRate, 0},
    {{"request_throughput", kHigher, false}, Source::kRequestThroughput, 0},
    {{"output_throughput", kHigher, false}, Source::kOutputThroughput, 0},
}};

// One distribution of a run: its values ascending, the request (index in send order) each came
// from, and how many values each request contributed.
struct Field {
  std::vector<double> values;
  std::vector<std::uint32_t> owner;
  std::vector<std::uint32_t> per_request;
};

// A run reduced to what the bootstrap needs.
struct Prepared {
  std::size_t n = 0;
  std::array<Field, kNumFields> fields;
  std::vector<std::uint8_t> failed;
  std::int64_t failures = 0;
};

Prepared prepare(const RunSample& run) {
  Prepared p;
  p.n = run.records.size();
  p.failed.assign(p.n, 0);
  std::array<std::vector<std::pair<double, std::uint32_t>>, kNumFields> pairs;
  for (Field& f : p.fields) f.per_request.assign(p.n, 0);
  const auto add = [&](Source s, std::uint32_t i, double v) {
    pairs[static_cast<std::size_t>(s)].emplace_back(v, i);
    ++p.fields[static_cast<std::size_t>(s)].per_request[i];
  };
  for (std::uint32_t i = 0; i < p.n; ++i) {
    const core::RequestRecord& r = run.records[i];
    if (!r.ok()) {
      p.failed[i] = 1;
      ++p.failures;
      continue;
    }
    const metrics::RequestMetrics m = metrics::derive_request_metrics(r);
    if (m.ttft_ms) add(Source::kTtft, i, *m.ttft_ms);
    if (m.tpot_ms) add(Source::kTpot, i, *m.tpot_ms);
    if (m.e2el_ms) add(Source::kE2el, i, *m.e2el_ms);
    if (m.decode_tps) add(Source::kOutputTps, i, *m.decode_tps);
    for (double gap : m.itl_ms) add(Source::kItl, i, gap);
  }
  for (std::size_t k = 0; k < kNumFields; ++k) {
    std::sort(pairs[k].begin(), pairs[k].end());
    for (const auto& [v, i] : pairs[k]) {
      p.fields[k].values.push_back(v);
      p.fields[k].owner.push_back(i);
    }
  }
  return p;
}

// The figure on the whole run, computed as summary.json computes it (metrics::mean and
// metrics::percentile_sorted over the ascending values).
double point_value(const FigureDef& def, const Prepared& p, const RunSample& run) {
  switch (def.source) {
    case Source::kErrorRate:
      return static_cast<double>(p.failures) / static_cast<double>(p.n);
    case Source::kRequestThroughput:
      return run.request_throughput;
    case Source::kOutputThroughput:
      return run.output_throughput;
    default: {
      const std::vector<double>& v = p.fields[static_cast<std::size_t>(def.source)].values;
      return def.p == kMean ? metrics::mean(v) : metrics::percentile_sorted(v, def.p);
    }
  }
}

// numpy's linear interpolation, exactly as metrics::percentile_sorted computes it.
double numpy_lerp(double a, double b, double t) {
  const double diff = b - a;
  return t >= 0.5 ? b - diff * (1.0 - t) : a + diff * t;
}

// Mean and percentiles `ps` (ascending) of `field` over the multiset in which request r appears
// counts[r] times: exactly what pooling and sorting the resampled requests' values would give,
// in one pass over the pre-sorted values instead of a sort per resample.
void weighted_stats(const Field& field, const std::vector<std::uint32_t>& counts,
                    const std::vector<double>& ps, double& mean, std::vector<double>& out) {
  std::uint64_t total = 0;
  for (std::size_t r = 0; r < counts.size(); ++r) {
    total += static_cast<std::uint64_t>(counts[r]) * field.per_request[r];
  }
  out.assign(ps.size(), kUndefined);
  mean = kUndefined;
  if (total == 0) return;
  // Sorted positions whose values each percentile needs: (position, slot) with slot 2k the lower
  // and 2k + 1 the upper neighbour of percentile k.
  std::vector<std::pair<std::uint64_t, std::size_t>> wanted;
  std::vector<double> gamma(ps.size()), at(2 * ps.size());
  for (std::size_t k = 0; k < ps.size(); ++k) {
    const double virtual_index = static_cast<double>(total - 1) * (ps[k] / 100.0);
    const double below = std::floor(virtual_index);
    const auto lo = static_cast<std::uint64_t>(below);
    gamma[k] = virtual_index - below;
    wanted.emplace_back(lo, 2 * k);
    wanted.emplace_back(std::min(lo + 1, total - 1), 2 * k + 1);
  }
  std::sort(wanted.begin(), wanted.end());
  std::size_t next = 0;
  std::uint64_t seen = 0;
  double sum = 0.0;
  for (std::size_t i = 0; i < field.values.size(); ++i) {
    const std::uint32_t w = counts[field.owner[i]];
    if (w == 0) continue;
    const double v = field.values[i];
    sum += static_cast<double>(w) * v;
    seen += w;
    while (next < wanted.size() && wanted[next].first < seen) at[wanted[next++].second] = v;
  }
  mean = sum / static_cast<double>(total);
  for (std::size_t k = 0; k < ps.size(); ++k)
    out[k] = numpy_lerp(at[2 * k], at[2 * k + 1], gamma[k]);
}

// SplitMix64: small, fast and specified bit for bit, so a seed gives the same resamples on every
// platform (std::uniform_int_distribution does not promise that).
struct SplitMix64 {
  std::uint64_t state;
  std::uint64_t next() {
    std::uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }
  // Uniform in [0, n); the modulo bias is below n / 2^64.
  std::uint64_t below(std::uint64_t n) { return next() % n; }
};

// Moving-block bootstrap as multiplicities: blocks of ceil(sqrt(n)) consecutive requests (in
// send order, wrapping around at the end so that every request is drawn equally often) starting
// at uniform positions, until n requests are drawn.
void block_resample(std::size_t n, SplitMix64& rng, std::vector<std::uint32_t>& counts) {
  std::size_t block = static_cast<std::size_t>(std::ceil(std::sqrt(static_cast<double>(n))));
  while (block * block < n) ++block;
  counts.assign(n, 0);
  std::size_t drawn = 0;
  while (drawn < n) {
    const std::size_t start = rng.below(n);
    for (std::size_t j = 0; j < block && drawn < n; ++j, ++drawn) ++counts[(start + j) % n];
  }
}

// Figure values of one resample, indexed as kFigures (run-level entries stay undefined).
class ResampleStats {
 public:
  ResampleStats() {
    for (std::size_t f = 0; f < kFigures.size(); ++f) {
      const FigureDef& def = kFigures[f];
      if (def.source == Source::kErrorRate) error_rate_figure_ = f;
      if (!def.spec.per_request || def.source == Source::kErrorRate) continue;
      auto& plan = plans_[static_cast<std::size_t>(def.source)];
      if (def.p == kMean) {
        plan.mean_figure = static_cast<int>(f);
      } else {
        plan.ps.push_back(def.p);
        plan.figures.push_back(f);
      }
    }
  }

  void compute(const Prepared& p, const std::vector<std::uint32_t>& counts,
               std::array<double, kFigures.size()>& out) {
    out.fill(kUndefined);
    for (std::size_t k = 0; k < kNumFields; ++k) {
      const Plan& plan = plans_[k];
      double mean = kUndefined;
      weighted_stats(p.fields[k], counts, plan.ps, mean, scratch_);
      if (plan.mean_figure >= 0) out[static_cast<std::size_t>(plan.mean_figure)] = mean;
      for (std::size_t j = 0; j < plan.figures.size(); ++j) out[plan.figures[j]] = scratch_[j];
    }
    std::uint64_t failures = 0;
    for (std::size_t r = 0; r < p.n; ++r) failures += p.failed[r] ? counts[r] : 0;
    out[error_rate_figure_] = static_cast<double>(failures) / static_cast<double>(p.n);
  }

 private:
  // The statistics wanted from one distribution (percentiles ascending, as kFigures lists them).
  struct Plan {
    int mean_figure = -1;
    std::vector<double> ps;
    std::vector<std::size_t> figures;
  };
  std::array<Plan, kNumFields> plans_;
  std::size_t error_rate_figure_ = 0;
  std::vector<double> scratch_;
};

// The generator of one resample of one run: its start is a hash of (seed, resample, run), so
// every resample can be drawn on any thread and the output stays a pure function of the inputs.
SplitMix64 resample_stream(std::uint64_t seed, int resample, int run) {
  SplitMix64 index{static_cast<std::uint64_t>(resample) * 2 + static_cast<std::uint64_t>(run)};
  SplitMix64 start{seed ^ index.next()};
  return SplitMix64{start.next()};
}

// Bootstrap replicates of NEW - BASE per figure (kFigures order), only those where the figure
// is defined on both resamples. Resamples are shared out among up to 8 threads.
std::array<std::vector<double>, kFigures.size()> bootstrap_deltas(const Prepared& pb,
                                                                  const Prepared& pn,
                                                                  const CompareOptions& options) {
  const auto resamples = static_cast<std::size_t>(options.resamples);
  std::vector<std::array<double, kFigures.size()>> replicate(resamples);
  const auto work = [&](std::size_t first, std::size_t step) {
    ResampleStats stats;
    std::vector<std::uint32_t> counts;
    std::array<double, kFigures.size()> sb{}, sn{};
    for (std::size_t b = first; b < resamples; b += step) {
      SplitMix64 rb = resample_stream(options.seed, static_cast<int>(b), 0);
      block_resample(pb.n, rb, counts);
      stats.compute(pb, counts, sb);
      SplitMix64 rn = resample_stream(options.seed, static_cast<int>(b), 1);
      block_resample(pn.n, rn, counts);
      stats.compute(pn, counts, sn);
      for (std::size_t f = 0; f < kFigures.size(); ++f) replicate[b][f] = sn[f] - sb[f];
    }
  };
  const std::size_t threads = std::clamp<std::size_t>(std::thread::hardware_concurrency(), 1,
                                                      std::min<std::size_t>(8, resamples));
  std::vector<std::thread> pool;
  for (std::size_t t = 1; t < threads; ++t) pool.emplace_back(work, t, threads);
  work(0, threads);
  for (std::thread& t : pool) t.join();

  std::array<std::vector<double>, kFigures.size()> deltas;
  for (const auto& r : replicate) {
    for (std::size_t f = 0; f < kFigures.size(); ++f) {
      if (is_defined(r[f])) deltas[f].push_back(r[f]);
    }
  }
  return deltas;
}

// x as a percentage of |base|; 0 % for no change from a base of 0, undefined otherwise.
double relative_pct(double x, double base) {
  if (!is_defined(x) || !is_defined(base)) return kUndefined;
  if (base != 0.0) return 100.0 * x / std::abs(base);
  return x == 0.0 ? 0.0 : kUndefined;
}

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

std::string figure_list(bool per_request_only) {
  std::string out;
  for (const FigureDef& def : kFigures) {
    if (per_request_only && !def.spec.per_request) continue;
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
                  item, why, figure_list(true)));
}

RegressionGate parse_gate_item(std::string_view item) {
  const auto colon = item.rfind(':');
  if (colon == std::string_view::npos) bad_gate(item, "missing ':PCT'");
  const std::string_view name = item.substr(0, colon);
  const FigureDef* def = find_def(name);
  if (def == nullptr) bad_gate(item, fmt::format("unknown figure '{}'", name));
  if (!def->spec.per_request) {
    bad_gate(item, fmt::format("{} is a run-level figure with no confidence interval", name));
  }
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

std::span<const FigureSpec> compared_figures() {
  static const auto specs = [] {
    std::array<FigureSpec, kFigures.size()> out{};
    for (std::size_t i = 0; i < kFigures.size(); ++i) out[i] = kFigures[i].spec;
    return out;
  }();
  return specs;
}

std::string gateable_figure_names() { return figure_list(true); }

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

RunSample load_run_sample(const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    throw std::runtime_error(fmt::format("{} is not a directory", dir));
  }
  const std::string requests = report::find_requests_file(dir);
  if (requests.empty()) {
    if (const std::string hint = experiment_root_hint(dir); !hint.empty()) {
      throw std::runtime_error(hint);
    }
    throw std::runtime_error(
        fmt::format("{} has no {}: pass a results directory written by `tokenbench run`", dir,
                    report::kRequestsFile));
  }
  RunSample sample;
  sample.dir = dir;
  report::RecordsReadReport read;
  const std::vector<core::RequestRecord> all = report::read_records_jsonl(requests, &read);
  sample.warning = read.warning;
  for (const core::RequestRecord& r : all) {
    if (r.phase == core::Phase::kMeasure) sample.records.push_back(r);
  }
  if (sample.records.empty()) {
    throw std::runtime_error(fmt::format("{} has no measure-phase request", requests));
  }
  const auto send_key = [](const core::RequestRecord& r) {
    return std::make_pair(r.sent != core::kNever ? r.sent : r.scheduled, r.id);
  };
  std::stable_sort(sample.records.begin(), sample.records.end(),
                   [&](const auto& a, const auto& b) { return send_key(a) < send_key(b); });

  const std::string summary_path = dir + "/" + report::kSummaryFile;
  if (fs::is_regular_file(summary_path, ec)) {
    nlohmann::json summary;
    try {
      summary = nlohmann::json::parse(report::read_text_file(summary_path));
    } catch (const nlohmann::json::exception& e) {
      throw std::runtime_error(fmt::format("{}: {}", summary_path, e.what()));
    }
    const auto number = [&](const char* key) {
      const auto it = summary.find(key);
      return it != summary.end() && it->is_number() ? it->get<double>() : kUndefined;
    };
    sample.request_throughput = number("request_throughput");
    sample.output_throughput = number("output_throughput");
  } else {
    const metrics::Summary s = metrics::summarize(all, metrics::SummaryOptions{});
    sample.request_throughput = s.request_throughput;
    sample.output_throughput = s.output_throughput;
  }
  return sample;
}

const FigureComparison* Comparison::find(std::string_view name) const {
  for (const FigureComparison& f : figures) {
    if (f.name == name) return &f;
  }
  return nullptr;
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

}  // namespace

int figures_with_interval() {
  return static_cast<int>(std::count_if(kFigures.begin(), kFigures.end(),
                                        [](const FigureDef& d) { return d.spec.per_request; }));
}

bool Comparison::regressed() const {
  return std::any_of(gates.begin(), gates.end(), [](const GateResult& g) { return g.failed; });
}

Comparison compare_runs(const RunSample& base, const RunSample& next,
                        const CompareOptions& options) {
  if (options.resamples < 1) throw std::invalid_argument("resamples must be at least 1");
  if (!(options.confidence > 0.0 && options.confidence < 1.0)) {
    throw std::invalid_argument("confidence must lie in (0, 1)");
  }
  if (!(options.min_effect >= 0.0) || !std::isfinite(options.min_effect)) {
    throw std::invalid_argument("min_effect must be finite and >= 0");
  }
  const Prepared pb = prepare(base);
  const Prepared pn = prepare(next);

  Comparison c;
  c.base_dir = base.dir;
  c.new_dir = next.dir;
  c.base_measured = static_cast<std::int64_t>(pb.n);
  c.base_failed = pb.failures;
  c.new_measured = static_cast<std::int64_t>(pn.n);
  c.new_failed = pn.failures;

  std::array<std::vector<double>, kFigures.size()> deltas;
  if (pb.n > 0 && pn.n > 0) deltas = bootstrap_deltas(pb, pn, options);

  // The level holds for every figure at once (Bonferroni): with k intervals each at
  // 1 - (1 - confidence) / k, two runs of one configuration show no change in any figure with
  // probability >= confidence, so "no significant change" is a statement about the whole run.
  const double tail = 100.0 * (1.0 - options.confidence) / (2.0 * figures_with_interval());
  for (std::size_t f = 0; f < kFigures.size(); ++f) {
    const FigureDef& def = kFigures[f];
    FigureComparison fc;
    fc.name = std::string(def.spec.name);
    fc.direction = def.spec.direction;
    if (pb.n > 0 && pn.n > 0) {
      fc.base = point_value(def, pb, base);
      fc.next = point_value(def, pn, next);
    }
    if (is_defined(fc.base) && is_defined(fc.next)) fc.delta = fc.next - fc.base;
    // A CI needs the statistic in most resamples; one undefined in many of them (a figure
    // defined for only a handful of requests) gets none rather than a biased one. Nor does a
    // tail percentile with too few values beyond it in either run: the bootstrap of an extreme
    // order statistic (p99 of 60 requests is nearly their maximum) is inconsistent and its
    // interval far too narrow.
    if (def.spec.per_request && is_defined(fc.delta) && enough_tail(def, pb, pn) &&
        2 * deltas[f].size() >= static_cast<std::size_t>(options.resamples)) {
      fc.ci_low = metrics::percentile(deltas[f], tail);
      fc.ci_high = metrics::percentile(deltas[f], 100.0 - tail);
    }
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
    result.judged = f != nullptr && f->verdict != Verdict::kNotApplicable;
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
