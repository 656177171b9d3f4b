#include "tokenbench/experiment/targets.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <sstream>
#include <stdexcept>

#include "tokenbench/experiment/html_pages.h"
#include "tokenbench/experiment/journal.h"

namespace tokenbench::experiment {
namespace {

using nlohmann::json;

std::string cell(double v, const char* format = "{:.1f}") {
  return std::isnan(v) ? "-" : fmt::format(fmt::runtime(format), v);
}

json number(double v) { return std::isnan(v) ? json(nullptr) : json(v); }

}  // namespace

std::vector<Weight> parse_weights(const std::string& text) {
  std::vector<Weight> out;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) {
    const auto eq = item.find('=');
    Weight w;
    w.figure = expand_figure_alias(item.substr(0, eq));
    try {
      if (eq == std::string::npos) throw std::invalid_argument(item);
      std::size_t used = 0;
      w.weight = std::stod(item.substr(eq + 1), &used);
      if (used != item.size() - eq - 1 || !(w.weight > 0) || !std::isfinite(w.weight)) {
        throw std::invalid_argument(item);
      }
    } catch (const std::exception&) {
      throw std::invalid_argument(fmt::format(
          "--weights: '{}' is not NAME=WEIGHT with a weight > 0, e.g. {}", item, kDefaultWeights));
    }
    if (!is_figure_name(w.figure)) {
      throw std::invalid_argument(
          fmt::format("--weights: unknown figure '{}': use ttft, tpot, itl, e2el, tps, throughput, "
                      "error_rate or a summary key such as p95_ttft_ms",
                      item.substr(0, eq)));
    }
    out.push_back(std::move(w));
  }
  if (out.empty()) throw std::invalid_argument("--weights needs at least one NAME=WEIGHT");
  return out;
}

std::vector<TargetRow> rank_targets(std::vector<TargetRow> rows,
                                    const std::vector<SloExpr>& required,
                                    const std::vector<Weight>& weights) {
  for (auto& r : rows) {
    r.required = check_slos(required, r.figures);
    r.eliminated = !all_met(r.required);
    r.reason = all_breaches(r.required);
    if (!(figure(r.figures, "completed") > 0)) {
      r.eliminated = true;
      r.reason = "no request succeeded";
    }
    r.score = 0;
    r.rank = 0;
  }
  const double total = std::accumulate(weights.begin(), weights.end(), 0.0,
                                       [](double s, const Weight& w) { return s + w.weight; });
  for (const Weight& w : weights) {
    const bool higher = higher_is_better(w.figure);
    double best = std::nan("");
    for (const auto& r : rows) {
      const double v = figure(r.figures, w.figure);
      if (r.eliminated || std::isnan(v)) continue;
      if (std::isnan(best) || (higher ? v > best : v < best)) best = v;
    }
    for (auto& r : rows) {
      const double v = figure(r.figures, w.figure);
      if (r.eliminated || std::isnan(v) || std::isnan(best)) continue;
      double share = 0;
      if (w.figure == "error_rate") {
        // A rate of failures scores as its rate of successes, so that 0.1% against a best of 0
        // costs 0.1%, not everything.
        share = best < 1 ? (1 - v) / (1 - best) : 1.0;
      } else if (higher) {
        share = best > 0 ? v / best : 1.0;
      } else {
        share = v > 0 ? best / v : 1.0;
      }
      r.score += w.weight * std::clamp(share, 0.0, 1.0) / total;
    }
  }
  std::vector<std::size_t> order;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (!rows[i].eliminated) order.push_back(i);
  }
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return rows[a].score > rows[b].score; });
  for (std::size_t k = 0; k < order.size(); ++k) rows[order[k]].rank = static_cast<int>(k + 1);
  return rows;
}

json ranking_to_json(const std::vector<TargetRow>& rows, const std::vector<SloExpr>& required,
                     const std::vector<Weight>& weights) {
  static constexpr const char* kTable[] = {"median_ttft_ms", "p95_ttft_ms",       "median_tpot_ms",
                                           "p50_decode_tps", "p95_decode_tps",    "p95_e2el_ms",
                                           "error_rate",     "output_throughput", "completed",
                                           "failed",         "request_throughput"};
  json targets = json::array();
  for (const auto& r : rows) {
    json figures = json::object();
    for (const char* k : kTable) figures[k] = number(figure(r.figures, k));
    for (const auto& w : weights) figures[w.figure] = number(figure(r.figures, w.figure));
    json checks = json::array();
    for (const auto& v : r.required) {
      checks.push_back({{"require", v.expr.text()}, {"actual", number(v.actual)}, {"met", v.met}});
    }
    targets.push_back({{"name", r.name},
                       {"dir", r.dir},
                       {"figures", std::move(figures)},
                       {"required", std::move(checks)},
                       {"eliminated", r.eliminated},
                       {"reason", r.eliminated ? json(r.reason) : json(nullptr)},
                       {"score", r.eliminated ? json(nullptr) : json(r.score)},
                       {"rank", r.eliminated ? json(nullptr) : json(r.rank)}});
  }
  json req = json::array();
  for (const auto& e : required) req.push_back(e.text());
  json w = json::object();
  for (const auto& x : weights) w[x.figure] = x.weight;
  return json{{"targets", std::move(targets)},
              {"require", std::move(req)},
              {"weights", std::move(w)},
              {"score_rule",
               "sum of weight x (best/value for lower-is-better figures, value/best for "
               "higher-is-better ones) over the surviving targets, divided by the total weight"}};
}

std::string render_ranking(const std::vector<TargetRow>& rows, const std::vector<Weight>& weights,
                           const std::string& load) {
  std::size_t width = 6;
  for (const auto& r : rows) width = std::max(width, r.name.size());
  std::string out = load.empty() ? std::string() : "Targets compared: " + load + "\n";
  out += fmt::format("{:<{}} {:>9} {:>9} {:>9} {:>8} {:>8} {:>9} {:>7} {:>10} {:>6} {:>5}\n",
                     "target", width, "TTFT p50", "TTFT p95", "TPOT p50", "TPS p50", "TPS p95",
                     "E2EL p95", "errors", "out tok/s", "score", "rank");
  out += fmt::format("{:<{}} {:>9} {:>9} {:>9} {:>8} {:>8} {:>9}\n", "", width, "(ms)", "(ms)",
                     "(ms)", "(tok/s)", "(tok/s)", "(ms)");
  for (const auto& r : rows) {
    const Figures& f = r.figures;
    const double err = figure(f, "error_rate");
    out += fmt::format(
        "{:<{}} {:>9} {:>9} {:>9} {:>8} {:>8} {:>9} {:>7} {:>10} {:>6} {:>5}\n", r.name, width,
        cell(figure(f, "median_ttft_ms")), cell(figure(f, "p95_ttft_ms")),
        cell(figure(f, "median_tpot_ms"), "{:.2f}"), cell(figure(f, "p50_decode_tps")),
        cell(figure(f, "p95_decode_tps")), cell(figure(f, "p95_e2el_ms")),
        std::isnan(err) ? "-" : fmt::format("{:.1f}%", 100 * err),
        cell(figure(f, "output_throughput")), r.eliminated ? "-" : fmt::format("{:.3f}", r.score),
        r.eliminated ? "-" : std::to_string(r.rank));
  }
  std::string weight_text;
  for (const auto& w : weights) {
    weight_text += fmt::format("{}{} {:g}", weight_text.empty() ? "" : ", ", w.figure, w.weight);
  }
  out += "Ranking (weights: " + weight_text + "):\n";
  std::vector<const TargetRow*> ranked;
  for (const auto& r : rows) {
    if (!r.eliminated) ranked.push_back(&r);
  }
  std::sort(ranked.begin(), ranked.end(),
            [](const TargetRow* a, const TargetRow* b) { return a->rank < b->rank; });
  for (const TargetRow* r : ranked) {
    out += fmt::format("  {}. {} (score {:.3f})\n", r->rank, r->name, r->score);
  }
  for (const auto& r : rows) {
    if (r.eliminated) out += fmt::format("  eliminated: {} ({})\n", r.name, r.reason);
  }
  return out;
}

TargetsResult run_targets(Runner& runner, const core::RunConfig& config,
                          const std::vector<SloExpr>& required,
                          const std::vector<Weight>& weights) {
  TargetsResult result;
  result.outcome = runner.run(config);
  std::vector<TargetRow> rows;
  for (const auto& part : result.outcome.parts) {
    TargetRow row;
    row.name = part.name;
    row.dir = part.dir;
    row.figures = figures_from_summary(part.summary_json);
    rows.push_back(std::move(row));
  }
  result.rows = rank_targets(std::move(rows), required, weights);
  result.ranking = ranking_to_json(result.rows, required, weights);
  result.not_saved = try_write_journal(config.output_dir, kCompareJson, result.ranking);
  for (const auto& part : result.outcome.parts) {
    if (result.not_saved.empty()) result.not_saved = part.not_saved;
  }
  write_experiment_report_or_warn(config.output_dir);
  return result;
}

std::string target_load_line(const core::RunConfig& c) {
  const std::string slots =
      c.max_concurrency > 0 ? fmt::format("max-concurrency {}", c.max_concurrency) : "";
  const std::string rate =
      std::isinf(c.request_rate) ? "" : fmt::format("request rate {:g}/s", c.request_rate);
  const std::string load = slots.empty() ? rate : rate.empty() ? slots : slots + ", " + rate;
  return c.target_load == core::TargetLoad::kShared
             ? fmt::format(
                   "sharing one schedule{} (--target-load shared: a slow target holds the "
                   "slots, so throughputs are not each target's own)",
                   load.empty() ? "" : " and " + load)
             : fmt::format("each with its own load{} (--target-load each)",
                           load.empty() ? "" : " (" + load + ")");
}

}  // namespace tokenbench::experiment
