#include "tokenbench/experiment/repeats.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "tokenbench/records/results_dir.h"

namespace tokenbench::experiment {
namespace {

using nlohmann::json;

constexpr const char* kMethod =
    "Student's t 95% interval of the mean over the runs: mean ± t(n-1) × sd / √n";

json number_or_null(double v) { return std::isfinite(v) ? json(v) : json(nullptr); }

// The console's rows: a figure, its unit, and its format.
struct Row {
  const char* key;
  const char* label;
  const char* format;
};
constexpr Row kRows[] = {
    {"request_throughput", "Request throughput (req/s)", "{:.2f}"},
    {"output_throughput", "Output token throughput (tok/s)", "{:.1f}"},
    {"total_token_throughput", "Total token throughput (tok/s)", "{:.1f}"},
    {"request_goodput", "Request goodput (req/s)", "{:.2f}"},
    {"mean_ttft_ms", "Mean TTFT (ms)", "{:.2f}"},
    {"p50_ttft_ms", "P50 TTFT (ms)", "{:.2f}"},
    {"p95_ttft_ms", "P95 TTFT (ms)", "{:.2f}"},
    {"p99_ttft_ms", "P99 TTFT (ms)", "{:.2f}"},
    {"mean_tpot_ms", "Mean TPOT (ms)", "{:.2f}"},
    {"p95_tpot_ms", "P95 TPOT (ms)", "{:.2f}"},
    {"mean_itl_ms", "Mean ITL (ms)", "{:.2f}"},
    {"p95_itl_ms", "P95 ITL (ms)", "{:.2f}"},
    {"mean_e2el_ms", "Mean E2EL (ms)", "{:.2f}"},
    {"p95_e2el_ms", "P95 E2EL (ms)", "{:.2f}"},
    {"usd_per_million_output_tokens", "USD per 1M output tokens", "{:.4f}"},
};

}  // namespace

std::string repeat_dir(int i) { return fmt::format("repeat-{}", i); }

bool is_repeated_root(const std::string& dir) {
  std::error_code ec;
  return std::filesystem::is_directory(dir + "/" + repeat_dir(1), ec) &&
         records::find_requests_file(dir).empty();
}

namespace {

// The runs' mean and interval of one number; `first` (the first run's value) becomes the mean.
void aggregate_number(json& first, const std::vector<const json*>& values, const std::string& name,
                      json& figures) {
  std::vector<double> v;
  for (const json* x : values) {
    if (x != nullptr && x->is_number() && std::isfinite(x->get<double>())) {
      v.push_back(x->get<double>());
    }
  }
  if (v.empty()) return;
  const metrics::MeanSd m = metrics::mean_and_sd(v);
  const auto ci = metrics::mean_interval(v);
  figures[name] = {{"mean", m.mean},
                   {"lo", ci ? number_or_null(ci->lo) : json(nullptr)},
                   {"hi", ci ? number_or_null(ci->hi) : json(nullptr)},
                   {"half_width", ci ? number_or_null(ci->hi - m.mean) : json(nullptr)},
                   {"stddev", number_or_null(m.sd)},
                   {"values", v}};
  first = m.mean;
}

// Each run's value at `path` (a JSON pointer), nullptr where it has none.
std::vector<const json*> at_path(const std::vector<json>& runs, const json::json_pointer& path) {
  std::vector<const json*> out;
  out.reserve(runs.size());
  for (const auto& r : runs) out.push_back(r.contains(path) ? &r.at(path) : nullptr);
  return out;
}

}  // namespace

json summary_of_repeats(const std::vector<json>& summaries, const std::vector<std::string>& dirs,
                        const std::vector<std::uint64_t>& seeds) {
  json out = summaries.empty() ? json::object() : summaries.front();
  if (!out.is_object()) out = json::object();
  json figures = json::object();
  for (auto& [key, first] : out.items()) {
    if (first.is_number()) {
      aggregate_number(first, at_path(summaries, json::json_pointer("/" + key)), key, figures);
    }
  }
  // The distributions' statistics too (median_decode_tps, p90_itl_ms, ...), named as
  // figures_from_summary names them.
  if (out.contains("tokenbench") && out["tokenbench"].contains("distributions")) {
    for (auto& [name, d] : out["tokenbench"]["distributions"].items()) {
      if (!d.is_object()) continue;
      const std::string base = fmt::format("/tokenbench/distributions/{}/", name);
      for (auto& [stat, v] : d.items()) {
        if (v.is_number()) {
          aggregate_number(v, at_path(summaries, json::json_pointer(base + stat)),
                           fmt::format("{}_{}", stat, name), figures);
        }
      }
      if (d.contains("percentiles") && d["percentiles"].is_object()) {
        for (auto& [p, v] : d["percentiles"].items()) {
          aggregate_number(
              v, at_path(summaries, json::json_pointer(fmt::format("{}percentiles/{}", base, p))),
              fmt::format("{}_{}", p, name), figures);
        }
      }
    }
  }
  out["tokenbench"]["repeats"] = {{"n", summaries.size()},
                                  {"seeds", seeds},
                                  {"dirs", dirs},
                                  {"interval", kMethod},
                                  {"figures", std::move(figures)}};
  return out;
}

std::optional<metrics::Interval> repeat_interval(const json& summary, const std::string& key) {
  if (!summary.is_object()) return std::nullopt;
  const auto t = summary.find("tokenbench");
  if (t == summary.end() || !t->is_object() || !t->contains("repeats")) return std::nullopt;
  const json& figures = (*t)["repeats"].value("figures", json::object());
  const auto f = figures.find(key);
  if (f == figures.end() || !f->is_object()) return std::nullopt;
  const json lo = f->value("lo", json());
  const json hi = f->value("hi", json());
  if (!lo.is_number() || !hi.is_number()) return std::nullopt;
  return metrics::Interval{f->value("mean", 0.0), lo.get<double>(), hi.get<double>()};
}

std::string with_interval(const json& summary, const std::string& key, const char* format) {
  const auto it = summary.is_object() ? summary.find(key) : summary.end();
  if (it == summary.end() || !it->is_number()) return "-";
  const std::string value = fmt::format(fmt::runtime(format), it->get<double>());
  const auto ci = repeat_interval(summary, key);
  if (!ci) return value;
  return value + " ± " + fmt::format(fmt::runtime(format), ci->hi - ci->estimate);
}

RepeatedRun run_repeats(Runner& runner, const core::RunConfig& config, int n) {
  RepeatedRun out;
  std::vector<json> summaries;
  std::vector<std::string> dirs;
  std::vector<std::uint64_t> seeds;
  for (int i = 1; i <= n; ++i) {
    if (i > 1 && runner.canceled()) break;  // the first runs: a canceled one returns at once
    core::RunConfig c = config;
    c.seed = config.seed + static_cast<std::uint64_t>(i - 1);
    c.output_dir = config.output_dir + "/" + repeat_dir(i);
    out.last = runner.run(c);
    const LevelResult& part = out.last.parts.front();
    if (!part.not_saved.empty() && out.not_saved.empty()) out.not_saved = part.not_saved;
    if (out.last.canceled) break;
    summaries.push_back(part.summary_json);
    dirs.push_back(repeat_dir(i));
    seeds.push_back(c.seed);
    ++out.completed;
    if (!out.last.failed_fast.empty() || !out.last.error_rate_stop.empty() ||
        !out.last.saturation_stop.empty()) {
      break;
    }
  }
  out.summary = summary_of_repeats(summaries, dirs, seeds);
  const std::string root = config.output_dir;
  try {
    records::write_text_file(
        root + "/" + records::kSummaryFile,
        out.summary.dump(2, ' ', false, json::error_handler_t::replace) + "\n");
    std::error_code ec;
    std::filesystem::copy_file(root + "/" + repeat_dir(1) + "/" + records::kConfigFile,
                               root + "/" + records::kConfigFile,
                               std::filesystem::copy_options::overwrite_existing, ec);
  } catch (const std::exception& e) {
    if (out.not_saved.empty()) out.not_saved = e.what();
  }
  return out;
}

std::string render_repeats(const json& summary) {
  const json repeats = summary.value("tokenbench", json::object()).value("repeats", json());
  if (!repeats.is_object()) return "";
  const json& figures = repeats["figures"];
  std::string out = fmt::format("{:=^78}\n", fmt::format(" Over {} runs ", repeats.value("n", 0)));
  out += fmt::format("{:<34} {:>21} {:>10} {:>10}\n", "", "mean ± 95% CI", "lowest", "highest");
  for (const Row& row : kRows) {
    const auto f = figures.find(row.key);
    if (f == figures.end()) continue;
    const auto& values = (*f)["values"];
    const double lo = *std::min_element(values.begin(), values.end());
    const double hi = *std::max_element(values.begin(), values.end());
    out += fmt::format(
        "{:<34} {:>21} {:>10} {:>10}\n", row.label, with_interval(summary, row.key, row.format),
        fmt::format(fmt::runtime(row.format), lo), fmt::format(fmt::runtime(row.format), hi));
  }
  out += fmt::format("{:=^78}\n", "");
  out += "Intervals: " + std::string(kMethod) + "; runs with seeds " + repeats["seeds"].dump() +
         " (each run's own figures: DIR/repeat-N).\n";
  return out;
}

}  // namespace tokenbench::experiment
