#include "tokenbench/history/trend.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "tokenbench/core/text.h"
#include "tokenbench/experiment/figures.h"

namespace tokenbench::history {
namespace {

using nlohmann::json;

// The points of a trend: each run, or the runs of one --repeats root together.
std::vector<TrendPoint> points_of(const std::vector<RunEntry>& runs, const std::string& figure,
                                  std::vector<const RunEntry*>& firsts, std::size_t& skipped) {
  std::vector<TrendPoint> points;
  std::vector<std::vector<double>> values;
  std::map<std::string, std::size_t> by_root;  // a repeats root's point
  for (const RunEntry& r : runs) {
    const auto it = r.figures.find(figure);
    if (it == r.figures.end() || !std::isfinite(it->second)) {
      ++skipped;
      continue;
    }
    if (!r.repeat_of.empty()) {
      if (const auto p = by_root.find(r.repeat_of); p != by_root.end()) {
        points[p->second].ids.push_back(r.id);
        values[p->second].push_back(it->second);
        continue;
      }
      by_root[r.repeat_of] = points.size();
    }
    TrendPoint p;
    p.ids.push_back(r.id);
    p.started_at = r.started_at;
    p.dir = r.repeat_of.empty() ? r.dir : r.repeat_of;
    points.push_back(std::move(p));
    values.push_back({it->second});
    firsts.push_back(&r);
  }
  for (std::size_t i = 0; i < points.size(); ++i) {
    const metrics::MeanSd m = metrics::mean_and_sd(values[i]);
    points[i].value = m.mean;
    if (values[i].size() >= 2) points[i].interval = metrics::mean_interval(values[i]);
  }
  return points;
}

std::string when(const std::string& iso) {
  std::string out = iso.substr(0, 19);
  std::replace(out.begin(), out.end(), 'T', ' ');
  return out;
}

std::string describe(const std::vector<EnvChange>& changes) {
  std::string out;
  for (const EnvChange& c : changes) {
    if (!out.empty()) out += "; ";
    out += fmt::format("{}: {} -> {}", c.key, c.before.empty() ? "(none)" : c.before,
                       c.after.empty() ? "(none)" : c.after);
  }
  return core::one_line(out);
}

std::string value_text(const TrendPoint& p) {
  if (!p.interval) return fmt::format("{:.4g}", p.value);
  return fmt::format("{:.4g} ± {:.2g} (n={})", p.value, (p.interval->hi - p.interval->lo) / 2,
                     p.ids.size());
}

json env_json(const std::vector<EnvChange>& changes) {
  json out = json::array();
  for (const EnvChange& c : changes) {
    out.push_back({{"key", c.key}, {"before", c.before}, {"after", c.after}});
  }
  return out;
}

}  // namespace

std::vector<EnvChange> environment_changes(const RunEntry& before, const RunEntry& after) {
  std::map<std::string, std::pair<std::string, std::string>> fields;
  for (const auto& [k, v] : before.environment) fields[k].first = v;
  for (const auto& [k, v] : after.environment) fields[k].second = v;
  for (const auto& [k, v] : before.labels) fields["label." + k].first = v;
  for (const auto& [k, v] : after.labels) fields["label." + k].second = v;
  std::vector<EnvChange> out;
  for (const auto& [k, v] : fields) {
    if (v.first != v.second) out.push_back({k, v.first, v.second});
  }
  return out;
}

Trend build_trend(const std::vector<RunEntry>& runs, const std::string& figure,
                  const ChangePointOptions& options) {
  Trend t;
  t.figure = figure;
  t.options = options;
  t.higher_is_better = experiment::higher_is_better(figure);
  if (!runs.empty()) {
    t.identity = runs.back().identity;
    t.model = runs.back().model;
    t.base_url = runs.back().base_url;
  }
  std::vector<const RunEntry*> firsts;
  t.points = points_of(runs, figure, firsts, t.skipped);
  for (std::size_t i = 1; i < t.points.size(); ++i) {
    t.points[i].changed = environment_changes(*firsts[i - 1], *firsts[i]);
  }
  std::vector<double> series;
  for (const TrendPoint& p : t.points) series.push_back(p.value);
  for (const ChangePoint& c : e_divisive(series, options)) {
    TrendChange change{c, false, t.points[c.index].changed};
    change.worse = t.higher_is_better ? c.mean_after < c.mean_before : c.mean_after > c.mean_before;
    t.changes.push_back(std::move(change));
  }
  t.latest_worse = !t.changes.empty() && t.changes.back().worse;
  return t;
}

std::string render_trend(const Trend& t) {
  std::string out;
  out += fmt::format("History of {} ({} is better): workload {}, model {} at {}\n", t.figure,
                     t.higher_is_better ? "higher" : "lower", t.identity, core::one_line(t.model),
                     core::one_line(t.base_url));
  if (t.points.empty()) {
    out += "  no run of this workload has the figure\n";
    return out;
  }
  out += fmt::format("{:>6}  {:<19}  {:>22}  {}\n", "id", "started (UTC)", t.figure,
                     "environment changed since the previous run");
  std::size_t next_change = 0;
  for (std::size_t i = 0; i < t.points.size(); ++i) {
    const TrendPoint& p = t.points[i];
    std::string mark;
    if (next_change < t.changes.size() && t.changes[next_change].point.index == i) {
      const ChangePoint& c = t.changes[next_change].point;
      mark = fmt::format("<- change {:+.1f} % ({}) ", 100 * (c.mean_after / c.mean_before - 1),
                         t.changes[next_change].worse ? "worse" : "better");
      ++next_change;
    }
    out += fmt::format("{:>6}  {:<19}  {:>22}  {}{}\n", p.ids.front(), when(p.started_at),
                       value_text(p), mark, describe(p.changed));
  }
  out += fmt::format(
      "Change points (E-Divisive means, significance {}, {} permutations, segments of {} or "
      "more): {}\n",
      t.options.significance, t.options.permutations, t.options.min_segment,
      t.changes.empty() ? "none" : std::to_string(t.changes.size()));
  for (const TrendChange& c : t.changes) {
    const TrendPoint& p = t.points[c.point.index];
    out += fmt::format("  at run {} ({}): mean {:.4g} -> {:.4g} ({:+.1f} %, {}), p = {:.3f}",
                       p.ids.front(), when(p.started_at), c.point.mean_before, c.point.mean_after,
                       100 * (c.point.mean_after / c.point.mean_before - 1),
                       c.worse ? "worse" : "better", c.point.p_value);
    out += c.changed.empty() ? "; nothing in the environment changed there\n"
                             : "; the environment changed there: " + describe(c.changed) + "\n";
  }
  if (t.skipped > 0) out += fmt::format("  ({} runs without {} left out)\n", t.skipped, t.figure);
  if (t.latest_worse) {
    out +=
        fmt::format("The latest run lies in a worse segment than the one before (since run {}).\n",
                    t.points[t.changes.back().point.index].ids.front());
  }
  return out;
}

json trend_json(const Trend& t) {
  json points = json::array();
  for (const TrendPoint& p : t.points) {
    json point{{"ids", p.ids},
               {"started_at", p.started_at},
               {"dir", p.dir},
               {"value", p.value},
               {"lo", p.interval ? json(p.interval->lo) : json(nullptr)},
               {"hi", p.interval ? json(p.interval->hi) : json(nullptr)},
               {"environment_changed", env_json(p.changed)}};
    points.push_back(std::move(point));
  }
  json changes = json::array();
  for (const TrendChange& c : t.changes) {
    changes.push_back({{"index", c.point.index},
                       {"id", t.points[c.point.index].ids.front()},
                       {"started_at", t.points[c.point.index].started_at},
                       {"mean_before", c.point.mean_before},
                       {"mean_after", c.point.mean_after},
                       {"statistic", c.point.statistic},
                       {"p_value", c.point.p_value},
                       {"worse", c.worse},
                       {"environment_changed", env_json(c.changed)}});
  }
  return json{{"kind", "trend"},
              {"figure", t.figure},
              {"direction", t.higher_is_better ? "higher_is_better" : "lower_is_better"},
              {"identity", t.identity},
              {"model", t.model},
              {"base_url", t.base_url},
              {"method",
               {{"name", "e-divisive means"},
                {"significance", t.options.significance},
                {"permutations", t.options.permutations},
                {"min_segment", t.options.min_segment},
                {"seed", t.options.seed}}},
              {"points", std::move(points)},
              {"change_points", std::move(changes)},
              {"latest_worse", t.latest_worse},
              {"skipped", t.skipped}};
}

}  // namespace tokenbench::history
