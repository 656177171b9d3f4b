#include "tokenbench/telemetry/gpu_account.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <stdexcept>

#include "tokenbench/core/text.h"

namespace tokenbench::telemetry {
namespace {

using nlohmann::json;

json opt(const std::optional<double>& v) { return v ? json(*v) : json(nullptr); }

json stat_json(const std::optional<GaugeStat>& g) {
  if (!g) return nullptr;
  return json{{"mean", g->mean}, {"max", g->max}};
}

// Mean and max of one quantity over `samples`.
template <typename Get>
std::optional<GaugeStat> stat(const std::vector<const GpuSample*>& samples, Get get) {
  GaugeStat g;
  double sum = 0;
  for (const GpuSample* s : samples) {
    const std::optional<double>& v = get(*s);
    if (!v) continue;
    sum += *v;
    g.max = g.samples == 0 ? *v : std::max(g.max, *v);
    ++g.samples;
  }
  if (g.samples == 0) return std::nullopt;
  g.mean = sum / g.samples;
  return g;
}

double seconds(core::Nanos from, core::Nanos to) { return static_cast<double>(to - from) / 1e9; }

}  // namespace

double integrate_power(const std::vector<std::pair<core::Nanos, double>>& points, core::Nanos from,
                       core::Nanos to, double* covered_s) {
  double joules = 0;
  double covered = 0;
  for (std::size_t i = 1; i < points.size(); ++i) {
    // Named copies, not structured bindings: the lambda below captures them (C++20 allows it;
    // clang before 16, which `make tidy` runs, does not).
    const core::Nanos t0 = points[i - 1].first, t1 = points[i].first;
    const double p0 = points[i - 1].second, p1 = points[i].second;
    if (t1 <= t0) continue;
    const core::Nanos a = std::max(t0, from);
    const core::Nanos b = std::min(t1, to);
    if (a >= b) continue;
    const auto at = [&](core::Nanos t) {
      return p0 + (p1 - p0) * seconds(t0, t) / seconds(t0, t1);
    };
    joules += (at(a) + at(b)) / 2 * seconds(a, b);
    covered += seconds(a, b);
  }
  if (covered_s != nullptr) *covered_s = covered;
  return joules;
}

GpuAccount gpu_account_for(const std::vector<GpuSample>& samples, const GpuSamplerInfo& sampler,
                           core::Nanos measure_start, core::Nanos measure_end,
                           const metrics::Summary& summary, bool shared) {
  GpuAccount a;
  a.sampler = sampler;
  a.shared = shared;
  a.samples = static_cast<int>(samples.size());
  a.measured =
      measure_start != core::kNever && measure_end != core::kNever && measure_end > measure_start;
  if (a.measured) a.measure_s = seconds(measure_start, measure_end);
  std::map<int, std::vector<const GpuSample*>> by_gpu;  // every sample of the run
  for (const auto& s : samples) by_gpu[s.index].push_back(&s);
  double energy = 0;
  double coverage = 1;
  bool any_power = false;
  for (const auto& [index, all] : by_gpu) {
    GpuDeviceAccount d;
    d.index = index;
    std::vector<const GpuSample*> in_phase;
    std::vector<std::pair<core::Nanos, double>> power;
    for (const GpuSample* s : all) {
      if (d.name.empty()) d.name = s->name;
      if (d.uuid.empty()) d.uuid = s->uuid;
      if (!a.measured || (s->t >= measure_start && s->t <= measure_end)) in_phase.push_back(s);
      if (s->power_w) power.emplace_back(s->t, *s->power_w);
    }
    d.samples = static_cast<int>(in_phase.size());
    d.util_pct = stat(
        in_phase, [](const GpuSample& s) -> auto& { return s.util_pct; });
    d.mem_used_mib = stat(
        in_phase, [](const GpuSample& s) -> auto& { return s.mem_used_mib; });
    d.power_w = stat(
        in_phase, [](const GpuSample& s) -> auto& { return s.power_w; });
    d.sm_clock_mhz = stat(
        in_phase, [](const GpuSample& s) -> auto& { return s.sm_clock_mhz; });
    d.temp_c = stat(
        in_phase, [](const GpuSample& s) -> auto& { return s.temp_c; });
    const auto total = stat(
        in_phase, [](const GpuSample& s) -> auto& { return s.mem_total_mib; });
    if (total) d.mem_total_mib = total->max;
    // The power curve may begin before the phase and end after it: it is clipped to the phase.
    if (a.measured && power.size() >= 2) {
      double covered = 0;
      d.energy_j = integrate_power(power, measure_start, measure_end, &covered);
      energy += *d.energy_j;
      coverage = std::min(coverage, covered / a.measure_s);
      any_power = true;
    }
    a.gpus.push_back(std::move(d));
  }
  if (any_power) {
    a.energy_j = energy;
    a.energy_coverage = coverage;
    if (!shared && summary.total_output_tokens > 0) {
      a.j_per_output_token = energy / static_cast<double>(summary.total_output_tokens);
    }
    if (!shared && summary.completed > 0) {
      a.j_per_request = energy / static_cast<double>(summary.completed);
    }
  }
  return a;
}

json gpu_account_to_json(const GpuAccount& a) {
  json gpus = json::array();
  for (const auto& d : a.gpus) {
    gpus.push_back(json{{"index", d.index},
                        {"name", d.name},
                        {"uuid", d.uuid.empty() ? json(nullptr) : json(d.uuid)},
                        {"samples", d.samples},
                        {"util_pct", stat_json(d.util_pct)},
                        {"mem_used_mib", stat_json(d.mem_used_mib)},
                        {"mem_total_mib", opt(d.mem_total_mib)},
                        {"power_w", stat_json(d.power_w)},
                        {"sm_clock_mhz", stat_json(d.sm_clock_mhz)},
                        {"temp_c", stat_json(d.temp_c)},
                        {"energy_j", opt(d.energy_j)}});
  }
  const GpuSamplerInfo& s = a.sampler;
  return json{{"source", s.source},
              {"url", s.url.empty() ? json(nullptr) : json(s.url)},
              {"interval_s", s.interval_s},
              {"samples", a.samples},
              {"failed_samples", s.failed_samples},
              {"first_error", s.first_error.empty() ? json(nullptr) : json(s.first_error)},
              {"measured", a.measured},
              {"measure_s", a.measured ? json(a.measure_s) : json(nullptr)},
              {"gpus", std::move(gpus)},
              {"energy_j", opt(a.energy_j)},
              {"energy_coverage", opt(a.energy_coverage)},
              {"j_per_output_token", opt(a.j_per_output_token)},
              {"j_per_request", opt(a.j_per_request)},
              {"shared", a.shared}};
}

std::string render_gpu_account(const GpuAccount& a) {
  const GpuSamplerInfo& s = a.sampler;
  std::string out =
      fmt::format("\nGPU ({}, {} GPU{}, {} samples every {:g} s", s.source, a.gpus.size(),
                  a.gpus.size() == 1 ? "" : "s", a.samples, s.interval_s);
  if (s.failed_samples > 0) {
    out += fmt::format("; {} failed: {}", s.failed_samples, core::one_line(s.first_error));
  }
  out += "):\n";
  const auto stat_text = [](const std::optional<GaugeStat>& g, const char* unit, bool mean,
                            bool max) {
    if (!g) return std::string("-");
    if (mean && max) return fmt::format("{:.0f}/{:.0f}{}", g->mean, g->max, unit);
    return fmt::format("{:.0f}{}", mean ? g->mean : g->max, unit);
  };
  for (const auto& d : a.gpus) {
    out += fmt::format(
        "  {} {:<24} util mean/max {}, mem max {}/{} MiB, power mean {}, temp max {}\n", d.index,
        core::one_line(d.name.empty() ? std::string("-") : d.name),
        stat_text(d.util_pct, "%", true, true), stat_text(d.mem_used_mib, "", false, true),
        d.mem_total_mib ? fmt::format("{:.0f}", *d.mem_total_mib) : std::string("-"),
        d.power_w ? fmt::format("{:.1f} W", d.power_w->mean) : std::string("-"),
        stat_text(d.temp_c, " C", false, true));
  }
  if (a.gpus.empty()) out += "  no GPU sample arrived\n";
  if (a.energy_j) {
    out += fmt::format("  energy {:.1f} J over the measure phase ({:.2f} s, {:.0f}% covered)",
                       *a.energy_j, a.measure_s, *a.energy_coverage * 100);
    if (a.j_per_output_token) out += fmt::format(": {:.4g} J/output token", *a.j_per_output_token);
    if (a.j_per_request) out += fmt::format(", {:.4g} J/request", *a.j_per_request);
    if (a.shared) out += " (several targets shared these GPUs: no per-token figure)";
    out += "\n";
  }
  return out;
}

json gpu_sampler_to_json(const GpuSamplerInfo& s) {
  return json{{"type", "gpu_sampler"},
              {"source", s.source},
              {"url", s.url},
              {"interval_s", s.interval_s},
              {"failed_samples", s.failed_samples},
              {"first_error", s.first_error}};
}

GpuSamplerInfo gpu_sampler_from_json(const json& o) {
  try {
    GpuSamplerInfo s;
    s.source = o.at("source").get<std::string>();
    s.url = o.value("url", "");
    s.interval_s = o.at("interval_s").get<double>();
    s.failed_samples = o.value("failed_samples", 0);
    s.first_error = o.value("first_error", "");
    return s;
  } catch (const json::exception& e) {
    throw std::runtime_error(std::string("a GPU sampler line is malformed: ") + e.what());
  }
}

}  // namespace tokenbench::telemetry
