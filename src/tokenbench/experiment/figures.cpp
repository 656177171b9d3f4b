#include "tokenbench/experiment/figures.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "tokenbench/core/run_config.h"
#include "tokenbench/metrics/summary.h"
#include "tokenbench/report/summary_json.h"

namespace tokenbench::experiment {
namespace {

using nlohmann::json;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

double value_of(const json& v) { return v.is_number() ? v.get<double>() : kNaN; }

}  // namespace

double figure(const Figures& f, std::string_view name) {
  const auto it = f.find(name);
  return it == f.end() ? kNaN : it->second;
}

Figures figures_from_summary(const json& summary) {
  Figures out;
  for (const auto& [key, v] : summary.items()) {
    if (v.is_number() || v.is_null()) out[key] = value_of(v);
  }
  const double completed = out.contains("completed") ? out["completed"] : kNaN;
  const double failed = out.contains("failed") ? out["failed"] : kNaN;
  out["error_rate"] = completed + failed > 0 ? failed / (completed + failed) : kNaN;
  const auto tb = summary.find("tokenbench");
  if (tb == summary.end() || !tb->is_object()) return out;
  if (const auto m = tb->find("max_concurrency_observed"); m != tb->end()) {
    out["max_concurrency_observed"] = value_of(*m);
  }
  const auto dists = tb->find("distributions");
  if (dists == tb->end() || !dists->is_object()) return out;
  for (const auto& [name, d] : dists->items()) {
    for (const char* stat : {"mean", "median", "std", "min", "max"}) {
      if (const auto it = d.find(stat); it != d.end()) {
        out[std::string(stat) + "_" + name] = value_of(*it);
      }
    }
    if (const auto ps = d.find("percentiles"); ps != d.end() && ps->is_object()) {
      for (const auto& [p, v] : ps->items()) out[fmt::format("{}_{}", p, name)] = value_of(v);
    }
  }
  return out;
}

std::string first_error(const json& summary) {
  const auto tb = summary.find("tokenbench");
  if (tb == summary.end() || !tb->contains("errors")) return "";
  const json& examples = (*tb)["errors"].value("examples", json::object());
  if (!examples.is_object() || examples.empty()) return "";
  const auto it = examples.begin();
  return it.key() + ": " + (it->is_string() ? it->get<std::string>() : it->dump());
}

const std::vector<std::string>& known_figure_names() {
  static const std::vector<std::string> names = [] {
    core::RunConfig config;
    const metrics::Summary empty = metrics::summarize({}, metrics::SummaryOptions{});
    std::vector<std::string> out;
    for (const auto& [name, v] : figures_from_summary(report::summary_to_json(empty, config))) {
      out.push_back(name);
    }
    return out;
  }();
  return names;
}

std::optional<std::pair<double, std::string>> percentile_figure(std::string_view name) {
  const auto underscore = name.find('_');
  if (underscore == std::string_view::npos) return std::nullopt;
  const std::string rest(name.substr(underscore + 1));
  if (name.substr(0, underscore) == "median") return std::make_pair(50.0, rest);
  if (name.size() < 3 || name[0] != 'p') return std::nullopt;
  const std::string number(name.substr(1, underscore - 1));
  try {
    std::size_t used = 0;
    const double p = std::stod(number, &used);
    if (used != number.size() || !(p > 0 && p < 100)) return std::nullopt;
    return std::make_pair(p, rest);
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

bool is_figure_name(std::string_view name) {
  const auto& known = known_figure_names();
  if (std::binary_search(known.begin(), known.end(), name)) return true;
  const auto percentile = percentile_figure(name);
  // The distribution must be one that has a mean (mean_ttft_ms, mean_decode_tps, ...).
  return percentile && std::binary_search(known.begin(), known.end(), "mean_" + percentile->second);
}

bool higher_is_better(std::string_view name) {
  if (name.rfind("std_", 0) == 0) return false;  // a spread is never better larger
  for (std::string_view word : {"throughput", "goodput", "_tps", "completed"}) {
    if (name.find(word) != std::string_view::npos) return true;
  }
  return false;
}

std::string expand_figure_alias(std::string_view name) {
  if (name == "ttft" || name == "tpot" || name == "itl" || name == "e2el") {
    return "median_" + std::string(name) + "_ms";
  }
  if (name == "tps") return "p50_decode_tps";
  if (name == "throughput") return "output_throughput";
  return std::string(name);
}

}  // namespace tokenbench::experiment
