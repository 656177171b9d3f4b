#include "tokenbench/experiment/sweep.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "tokenbench/collect/server_process.h"
#include "tokenbench/core/text.h"
#include "tokenbench/experiment/html_pages.h"
#include "tokenbench/experiment/journal.h"
#include "tokenbench/experiment/pareto.h"
#include "tokenbench/experiment/repeats.h"
#include "tokenbench/experiment/serve_configs.h"
#include "tokenbench/records/results_dir.h"
#include "tokenbench/report/csv_export.h"
#include "tokenbench/report/peer_files.h"

namespace tokenbench::experiment {
namespace {

using nlohmann::json;

double concurrency_order(int c) {
  return c <= 0 ? std::numeric_limits<double>::infinity() : static_cast<double>(c);
}

std::string rate_text(double r) { return std::isinf(r) ? "inf" : fmt::format("{:g}", r); }

std::string level_label(const SweepLevel& l, bool both) {
  const std::string c = l.max_concurrency > 0 ? std::to_string(l.max_concurrency) : "unlimited";
  if (both) return fmt::format("{} @ {}/s", c, rate_text(l.request_rate));
  return l.dir.front() == 'c' ? c : rate_text(l.request_rate);
}

bool varies_both(const SweepResult& r) {
  return !r.points.empty() && r.points.front().level.dir.find('-') != std::string::npos;
}

std::string cell(double v, const char* format = "{:.1f}") {
  return std::isnan(v) ? "-" : fmt::format(fmt::runtime(format), v);
}

}  // namespace

std::map<std::string, std::string> level_placeholders(std::map<std::string, std::string> base,
                                                      const SweepLevel& level,
                                                      const std::string& output_dir) {
  base["level"] = level.dir;
  base["max_concurrency"] = std::to_string(level.max_concurrency);
  base["request_rate"] = rate_text(level.request_rate);
  base["output_dir"] = output_dir;
  return base;
}

std::string run_level_hook(const std::string& command, const char* flag,
                           const SweepOptions& options, const SweepLevel& level,
                           const std::string& output_dir) {
  if (command.empty()) return "";
  const std::string line =
      fill_placeholders(command, level_placeholders(options.placeholders, level, output_dir), flag);
  const std::string why = collect::run_hook(line, options.hook_log, options.hook_timeout_s);
  return why.empty() ? "" : fmt::format("{} {}", flag, why);
}

void run_after_level_hook(const SweepOptions& options, const SweepLevel& level,
                          const std::string& output_dir) {
  const std::string why =
      run_level_hook(options.after_level, "--after-level", options, level, output_dir);
  if (why.empty()) return;
  std::fprintf(stderr, "tokenbench: warning: level %s: %s (see %s)\n", level.dir.c_str(),
               core::one_line(why).c_str(), options.hook_log.c_str());
}

std::vector<SweepLevel> sweep_levels(std::vector<int> concurrencies, std::vector<double> rates) {
  auto by_concurrency = [](int a, int b) { return concurrency_order(a) < concurrency_order(b); };
  std::sort(concurrencies.begin(), concurrencies.end(), by_concurrency);
  concurrencies.erase(std::unique(concurrencies.begin(), concurrencies.end()), concurrencies.end());
  std::sort(rates.begin(), rates.end());
  rates.erase(std::unique(rates.begin(), rates.end()), rates.end());
  const bool vary_c = concurrencies.size() > 1;
  const bool vary_r = rates.size() > 1;
  std::vector<SweepLevel> out;
  for (double r : rates) {
    for (int c : concurrencies) {
      SweepLevel l{c, r, ""};
      const std::string cn = c > 0 ? std::to_string(c) : "unlimited";
      if (vary_c && vary_r) {
        l.dir = fmt::format("c{}-r{}", cn, rate_text(r));
      } else if (vary_r) {
        l.dir = "r" + rate_text(r);
      } else {
        l.dir = "c" + cn;
      }
      out.push_back(std::move(l));
    }
  }
  return out;
}

std::optional<std::size_t> find_knee(const std::vector<Figures>& levels, double threshold) {
  if (levels.size() < 2) return std::nullopt;
  auto x = [&](std::size_t i) { return figure(levels[i], "request_throughput"); };
  auto l = [&](std::size_t i) { return figure(levels[i], "p95_e2el_ms"); };
  if (!(x(0) > 0) || !(l(0) > 0)) return std::nullopt;
  std::size_t knee = 0;
  for (std::size_t i = 1; i < levels.size(); ++i) {
    if (!(x(i) > 0) || !(l(i) > 0)) break;
    const double gain = x(i) / x(i - 1) - 1.0;
    const double cost = l(i) / l(i - 1) - 1.0;
    if (!(gain > 0) || gain < threshold * cost) break;
    knee = i;
  }
  return knee;
}

double best_value(const SweepPoint& p, bool by_goodput) {
  if (!p.complete || !p.meets_slo) return std::nan("");
  return figure(p.figures, by_goodput ? "request_goodput" : "request_throughput");
}

std::optional<std::size_t> find_best(const std::vector<SweepPoint>& points, bool by_goodput) {
  std::optional<std::size_t> best;
  double best_value = -1;
  for (std::size_t i = 0; i < points.size(); ++i) {
    const double v = experiment::best_value(points[i], by_goodput);
    if (!std::isnan(v) && v > best_value) {
      best_value = v;
      best = i;
    }
  }
  return best;
}

std::pair<double, double> pareto_point(const SweepPoint& p, double gpus) {
  if (!p.complete) return {std::nan(""), std::nan("")};
  return {figure(p.figures, "output_throughput") / gpus, figure(p.figures, "median_decode_tps")};
}

bool on_front(const SweepResult& r, std::size_t i) { return i < r.pareto.size() && r.pareto[i]; }

json sweep_to_json(const SweepResult& result, const SweepOptions& options) {
  json levels = json::array();
  for (const auto& p : result.points) {
    json level = p.summary.is_object() ? p.summary : json::object();
    level["max_concurrency"] =
        p.level.max_concurrency > 0 ? json(p.level.max_concurrency) : json(nullptr);
    level["request_rate"] =
        std::isinf(p.level.request_rate) ? json("inf") : json(p.level.request_rate);
    level["dir"] = p.level.dir;
    level["complete"] = p.complete;
    level["error_rate"] = std::isnan(figure(p.figures, "error_rate"))
                              ? json(nullptr)
                              : json(figure(p.figures, "error_rate"));
    level["meets_slo"] = p.meets_slo;
    level["client_bound"] = client_bound(p);
    const auto [per_gpu, per_user] = pareto_point(p, options.gpus);
    level["output_tps_per_gpu"] = std::isnan(per_gpu) ? json(nullptr) : json(per_gpu);
    level["median_decode_tps"] = std::isnan(per_user) ? json(nullptr) : json(per_user);
    level["pareto"] = on_front(result, static_cast<std::size_t>(&p - result.points.data()));
    json slo = json::array();
    for (const auto& v : p.slo) {
      slo.push_back({{"slo", v.expr.text()},
                     {"actual", std::isnan(v.actual) ? json(nullptr) : json(v.actual)},
                     {"met", v.met}});
    }
    level["slo"] = std::move(slo);
    levels.push_back(std::move(level));
  }
  json slos = json::array();
  for (const auto& e : options.slos) slos.push_back(e.text());
  auto pick = [&](const std::optional<std::size_t>& i) {
    return i ? json{{"index", *i}, {"dir", result.points[*i].level.dir}} : json(nullptr);
  };
  return json{
      {"levels", std::move(levels)},
      {"knee", pick(result.knee)},
      {"knee_rule", "request_throughput gain >= knee_threshold x p95_e2el_ms rise"},
      {"knee_threshold", options.knee_threshold},
      {"best", pick(result.best)},
      {"pareto_axes", "output_tps_per_gpu (output_throughput / --gpus) against median_decode_tps"},
      {"gpus", options.gpus},
      {"best_by", options.by_goodput ? "request_goodput" : "request_throughput"},
      {"slo", std::move(slos)},
      {"stopped", result.stopped.empty() ? json(nullptr) : json(result.stopped)},
      {"canceled", result.canceled},
      {"interrupted", result.interrupted.empty() ? json(nullptr) : json(result.interrupted)}};
}

std::string sweep_to_csv(const SweepResult& result) {
  static constexpr const char* kColumns[] = {
      "completed", "failed", "error_rate", "request_throughput", "output_throughput",
      "request_goodput", "p50_ttft_ms", "p95_ttft_ms", "p99_ttft_ms", "p95_tpot_ms", "p95_itl_ms",
      "p95_e2el_ms",
      // --gpu-hour-price: what each level's work cost (empty without a price)
      "usd_per_million_output_tokens", "usd_per_million_total_tokens", "usd_per_request"};
  std::string out = "max_concurrency,request_rate,dir,complete";
  for (const char* c : kColumns) out += fmt::format(",{}", c);
  out += ",meets_slo,knee,best,pareto\n";
  for (std::size_t i = 0; i < result.points.size(); ++i) {
    const SweepPoint& p = result.points[i];
    out += fmt::format("{},{},{},{}", p.level.max_concurrency, rate_text(p.level.request_rate),
                       p.level.dir, p.complete);
    for (const char* c : kColumns) {
      const double v = figure(p.figures, c);
      out += std::isnan(v) ? "," : fmt::format(",{}", v);
    }
    out += fmt::format(",{},{},{},{}\n", p.meets_slo, result.knee == i, result.best == i,
                       on_front(result, i));
  }
  return out;
}

std::vector<SweepLevel> rate_sweep_levels(int concurrency) {
  return {{1, INFINITY, "c1-rinf"}, {concurrency, INFINITY, fmt::format("c{}-rinf", concurrency)}};
}

std::vector<SweepLevel> rate_sweep_between(const SweepResult& measured, int n, int concurrency) {
  std::vector<SweepLevel> out;
  if (measured.points.size() < 2 || n <= 2) return out;
  const double low = figure(measured.points[0].figures, "request_throughput");
  const double high = figure(measured.points[1].figures, "request_throughput");
  if (std::isnan(low) || std::isnan(high) || !(high > low)) return out;
  // GuideLLM's numpy.linspace(low, high, n - 1)[1:]: n - 2 rates, the last one `high`.
  for (int i = 1; i <= n - 2; ++i) {
    const double rate = low + (high - low) * i / (n - 2);
    const double rounded = std::round(rate * 1000) / 1000;
    out.push_back({concurrency, rounded, fmt::format("c{}-r{}", concurrency, rate_text(rounded))});
  }
  return out;
}

bool client_bound(const nlohmann::json& summary) {
  const auto tb = summary.find("tokenbench");
  if (tb == summary.end() || !tb->is_object()) return false;
  const auto verdict = tb->find("verdict");
  return verdict != tb->end() && verdict->is_object() &&
         verdict->value("bound", "") == "client-bound";
}

bool client_bound(const SweepPoint& p) { return client_bound(p.summary); }

namespace {

// The levels whose verdict was client-bound, and what that says of the knee and the best.
std::string client_bound_lines(const SweepResult& result, bool both) {
  std::string levels;
  for (const auto& p : result.points) {
    if (client_bound(p)) levels += (levels.empty() ? "" : ", ") + level_label(p.level, both);
  }
  if (levels.empty()) return "";
  std::string out = "Client-bound: " + levels +
                    ": the client, not the server, held these levels back (each level's verdict "
                    "names the remedy).\n";
  for (const auto& [which, index] :
       {std::pair{"knee", result.knee}, std::pair{"best level", result.best}}) {
    if (index && client_bound(result.points[*index])) {
      out +=
          fmt::format("The {} ({}) was client-bound: it may be the client's, not the server's.\n",
                      which, level_label(result.points[*index].level, both));
    }
  }
  return out;
}

}  // namespace

std::string render_sweep(const SweepResult& result, const SweepOptions& options) {
  const bool both = varies_both(result);
  const bool by_rate = !both && !result.points.empty() && result.points.front().level.dir[0] == 'r';
  const char* load_name = both ? "conc @ rate" : by_rate ? "rate" : "concurrency";
  // Levels measured with --repeats show the mean ± its interval in the three headline columns.
  const bool repeated = std::any_of(result.points.begin(), result.points.end(), [](const auto& p) {
    return repeat_interval(p.summary, "request_throughput").has_value();
  });
  const int wr = repeated ? 15 : 8;   // req/s
  const int wo = repeated ? 18 : 10;  // out tok/s
  const int wt = repeated ? 15 : 9;   // TTFT p95
  std::string out = fmt::format("{:>14} {:>{}} {:>{}} {:>9} {:>{}} {:>9} {:>9} {:>9} {:>7} {:>8}\n",
                                load_name, "req/s", wr, "out tok/s", wo, "TTFT p50", "TTFT p95", wt,
                                "TTFT p99", "TPOT p95", "E2EL p95", "errors", "goodput");
  out += fmt::format("{:>14} {:>{}} {:>{}} {:>9} {:>{}} {:>9} {:>9} {:>9} {:>7} {:>8}\n", "", "",
                     wr, "", wo, "(ms)", "(ms)", wt, "(ms)", "(ms)", "(ms)", "", "(req/s)");
  const auto headline = [repeated](const SweepPoint& p, const char* key, const char* format) {
    return repeated ? with_interval(p.summary, key, format) : cell(figure(p.figures, key), format);
  };
  for (std::size_t i = 0; i < result.points.size(); ++i) {
    const SweepPoint& p = result.points[i];
    const Figures& f = p.figures;
    const double err = figure(f, "error_rate");
    std::string marks;
    if (result.knee == i) marks += "  <- knee";
    if (result.best == i) marks += "  <- best under SLO";
    if (!p.complete) marks += "  (interrupted)";
    if (!p.meets_slo && !options.slos.empty()) marks += "  (breaks SLO)";
    if (client_bound(p)) marks += "  (client-bound)";
    out +=
        fmt::format("{:>14} {:>{}} {:>{}} {:>9} {:>{}} {:>9} {:>9} {:>9} {:>7} {:>8}{}\n",
                    level_label(p.level, both), headline(p, "request_throughput", "{:.2f}"), wr,
                    headline(p, "output_throughput", "{:.1f}"), wo, cell(figure(f, "p50_ttft_ms")),
                    headline(p, "p95_ttft_ms", "{:.1f}"), wt, cell(figure(f, "p99_ttft_ms")),
                    cell(figure(f, "p95_tpot_ms"), "{:.2f}"), cell(figure(f, "p95_e2el_ms")),
                    std::isnan(err) ? "-" : fmt::format("{:.1f}%", 100 * err),
                    cell(figure(f, "request_goodput"), "{:.2f}"), marks);
  }
  if (result.knee) {
    const std::size_t k = *result.knee;
    out += fmt::format("Knee: {} ({:.2f} req/s, p95 E2EL {:.0f} ms)",
                       level_label(result.points[k].level, both),
                       figure(result.points[k].figures, "request_throughput"),
                       figure(result.points[k].figures, "p95_e2el_ms"));
    if (k + 1 < result.points.size() && !result.points[k + 1].complete) {
      out += ": the sweep was interrupted at the next level; resume it to look higher";
    } else if (k + 1 < result.points.size()) {
      const Figures& a = result.points[k].figures;
      const Figures& b = result.points[k + 1].figures;
      out += fmt::format(
          ": the next level adds {:+.0f}% req/s for {:+.0f}% p95 E2E latency, below the "
          "knee threshold of {:g}x",
          100 * (figure(b, "request_throughput") / figure(a, "request_throughput") - 1),
          100 * (figure(b, "p95_e2el_ms") / figure(a, "p95_e2el_ms") - 1), options.knee_threshold);
    } else {
      out += ": throughput still paid for its latency at the last level; sweep higher";
    }
    out += ".\n";
  }
  if (!options.slos.empty() || options.by_goodput) {
    std::string slo_text;
    for (const auto& e : options.slos) slo_text += (slo_text.empty() ? "" : ", ") + e.text();
    if (result.best) {
      const SweepPoint& p = result.points[*result.best];
      out += fmt::format(
          "Best under SLO{}: {} ({:.2f} req/s{}).\n", slo_text.empty() ? "" : " (" + slo_text + ")",
          level_label(p.level, both), figure(p.figures, "request_throughput"),
          options.by_goodput
              ? fmt::format(", goodput {:.2f} req/s", figure(p.figures, "request_goodput"))
              : "");
    } else {
      out += fmt::format("No level meets the SLOs{}.\n",
                         slo_text.empty() ? "" : " (" + slo_text + ")");
    }
  }
  std::string front;
  for (std::size_t i = 0; i < result.points.size(); ++i) {
    if (on_front(result, i))
      front += (front.empty() ? "" : ", ") + level_label(result.points[i].level, both);
  }
  if (!front.empty()) {
    out += fmt::format(
        "Pareto front (output tok/s per GPU{} against a user's median decode tok/s): {}.\n",
        options.gpus == 1 ? "" : fmt::format(" at --gpus {:g}", options.gpus), front);
  }
  out += client_bound_lines(result, both);
  if (!result.stopped.empty()) out += "Stopped early: " + result.stopped + ".\n";
  if (!result.interrupted.empty()) {
    out += "INTERRUPTED: " + result.interrupted + "; the levels after it were not run.\n";
  }
  return out;
}

SweepResult run_sweep(Runner& runner, const core::RunConfig& base,
                      const std::vector<SweepLevel>& levels, const SweepOptions& options) {
  SweepResult result;
  const auto done = options.resume ? completed_levels(base.output_dir, kSweepJson, "levels")
                                   : std::map<std::string, nlohmann::json>{};
  auto save = [&] {
    std::vector<Figures> curve;
    for (const auto& p : result.points) {
      if (p.complete) curve.push_back(p.figures);
    }
    // A grid of concurrency x rate is not one curve: its knee is read on a sweep of one.
    if (!varies_both(result)) result.knee = find_knee(curve, options.knee_threshold);
    if (!options.slos.empty() || options.by_goodput) {
      result.best = find_best(result.points, options.by_goodput);
    }
    std::vector<std::pair<double, double>> points;
    for (const SweepPoint& p : result.points) points.push_back(pareto_point(p, options.gpus));
    result.pareto = pareto_front(points);
    // sweep.json is the sweep's summary; the CSVs are optional (a warning when not written).
    const std::string why =
        try_write_journal(base.output_dir, kSweepJson, sweep_to_json(result, options));
    if (!why.empty() && result.not_saved.empty()) result.not_saved = why;
    records::write_optional_file(base.output_dir + "/" + kSweepCsv,
                                 [&] { return sweep_to_csv(result); });
    if (report::wants_csv_export(base.exports)) {
      records::write_optional_file(base.output_dir + "/" + report::kLevelsCsvFile, [&] {
        return report::levels_to_csv(sweep_to_json(result, options));
      });
    }
    if (const auto peers = report::peer_exports(base.exports); !peers.empty()) {
      std::vector<std::string> dirs;
      for (const SweepPoint& p : result.points) dirs.push_back(p.level.dir);
      records::write_optional([&] { report::gather_peer_files(peers, base.output_dir, dirs); });
    }
  };
  std::vector<SweepLevel> todo = levels;
  bool extended = false;
  for (std::size_t index = 0; index < todo.size(); ++index) {
    const SweepLevel level = todo[index];
    runner.set_progress_label(fmt::format("{}level {}/{} ({})", options.progress_prefix, index + 1,
                                          todo.size(), level.dir));
    SweepPoint point;
    point.level = level;
    core::RunConfig c = base;
    c.max_concurrency = level.max_concurrency;
    c.request_rate = level.request_rate;
    if (level.num_prompts > 0) c.num_prompts = level.num_prompts;
    c.output_dir = base.output_dir + "/" + level.dir;
    if (const auto it = done.find(level.dir); it != done.end()) {
      check_same_configuration(c);
      point.summary = it->second;
      point.complete = true;
      point.resumed = true;
      std::fprintf(stderr, "tokenbench: level %s: complete in an earlier run, kept\n",
                   level.dir.c_str());
    } else {
      if (runner.canceled()) {  // between two levels
        result.canceled = true;
        result.interrupted = runner.interruption();
        break;
      }
      if (const std::string why =
              run_level_hook(options.before_level, "--before-level", options, level, c.output_dir);
          !why.empty()) {
        result.stopped = "level " + level.dir + ": " + why + " (see " + options.hook_log + ")";
        break;
      }
      RunOutcome outcome;
      if (options.repeats > 1) {
        RepeatedRun repeated = run_repeats(runner, c, options.repeats);
        if (!repeated.not_saved.empty()) repeated.last.parts.front().not_saved = repeated.not_saved;
        repeated.last.parts.front().summary_json = std::move(repeated.summary);
        outcome = std::move(repeated.last);
      } else {
        outcome = runner.run(c);
      }
      run_after_level_hook(options, level, c.output_dir);
      if (!outcome.parts.front().not_saved.empty() && result.not_saved.empty()) {
        result.not_saved = outcome.parts.front().not_saved;
      }
      point.summary = std::move(outcome.parts.front().summary_json);
      point.complete = !outcome.canceled;
      result.canceled = outcome.canceled;
      result.interrupted = runner.interruption();
      if (!outcome.failed_fast.empty() || !outcome.error_rate_stop.empty()) {
        result.stopped =
            "level " + level.dir + ": " +
            (outcome.failed_fast.empty() ? outcome.error_rate_stop : outcome.failed_fast);
      } else if (!outcome.saturation_stop.empty()) {
        // Higher loads would saturate the server sooner still.
        result.stopped =
            "level " + level.dir + " saturated (--stop-on-saturation): " + outcome.saturation_stop;
      }
    }
    point.figures = figures_from_summary(point.summary);
    point.slo = check_slos(options.slos, point.figures);
    point.meets_slo = all_met(point.slo);
    result.points.push_back(std::move(point));
    const SweepPoint& p = result.points.back();
    if (result.canceled) break;
    const double err = figure(p.figures, "error_rate");
    if (!result.stopped.empty()) {
      // --fail-fast stopped the level: the run cannot succeed at any load.
    } else if (options.stop_on_error_rate && err > *options.stop_on_error_rate) {
      result.stopped = fmt::format("level {} had an error rate of {:.1f}% (over {:g}%)", level.dir,
                                   100 * err, 100 * *options.stop_on_error_rate);
    } else if (options.stop_on_slo_breach && !p.meets_slo) {
      result.stopped = fmt::format("level {} broke an SLO: {}", level.dir, first_breach(p.slo));
    }
    if (options.gone && result.stopped.empty()) {
      result.gone = options.gone();
      if (!result.gone.empty()) result.stopped = "after level " + level.dir + ": " + result.gone;
    }
    save();
    if (!result.stopped.empty() && index + 1 != todo.size()) break;
    if (index + 1 == todo.size() && options.more_levels && !extended && result.stopped.empty()) {
      extended = true;
      for (auto& more : options.more_levels(result)) todo.push_back(std::move(more));
    }
    result.stopped.clear();
  }
  if (extended) {
    // Measured out of order (the extremes first): the curve goes by throughput.
    std::stable_sort(result.points.begin(), result.points.end(),
                     [](const SweepPoint& a, const SweepPoint& b) {
                       const double x = figure(a.figures, "request_throughput");
                       const double y = figure(b.figures, "request_throughput");
                       return !std::isnan(x) && (std::isnan(y) || x < y);
                     });
  }
  save();
  write_experiment_report_or_warn(base.output_dir);
  return result;
}

}  // namespace tokenbench::experiment
