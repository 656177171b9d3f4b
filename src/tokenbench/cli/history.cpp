// `tokenbench history list|show|trend|import`: the run history every run adds itself to
// (history/store.h, docs/HISTORY.md), and the hook that adds it.

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <iterator>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tokenbench/cli/commands.h"
#include "tokenbench/cli/run_flags.h"
#include "tokenbench/core/clock.h"
#include "tokenbench/core/text.h"
#include "tokenbench/experiment/figures.h"
#include "tokenbench/history/store.h"
#include "tokenbench/history/trend.h"
#include "tokenbench/history/trend_page.h"
#include "tokenbench/records/results_dir.h"

namespace tokenbench::cli {

std::function<void(const measure::LevelResult&)> history_recorder(const RunFlags& flags) {
  if (flags.no_history) return nullptr;
  return [path = flags.history_path, quiet = flags.quiet](const measure::LevelResult& part) {
    const std::int64_t id = history::record_or_warn(path, part.dir);
    if (id > 0 && !quiet) {
      std::fprintf(stderr, "tokenbench: added to the history as run %lld (%s)\n",
                   static_cast<long long>(id),
                   (path.empty() ? history::default_history_path() : path).c_str());
    }
  };
}

namespace {

struct HistoryFlags {
  std::string path;
  std::string where;
  std::string since;
  std::size_t limit = 50;
  bool json = false;
  std::int64_t id = 0;
  std::string figure;
  std::string html;
  std::vector<std::string> fail_on_change;
  history::ChangePointOptions change;
  std::vector<std::string> dirs;
};

std::string store_path(const HistoryFlags& f) {
  const std::string path = f.path.empty() ? history::default_history_path() : f.path;
  if (path.empty()) throw UsageError("neither XDG_DATA_HOME nor HOME is set: give --history FILE");
  return path;
}

// The store, which must exist already for reading (opening creates one).
std::unique_ptr<history::Store> open_for_reading(const HistoryFlags& f) {
  const std::string path = store_path(f);
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) {
    throw UsageError(fmt::format(
        "no history at {}: runs add themselves when they end (or `tokenbench history import "
        "DIR`); --history FILE names another",
        path));
  }
  return std::make_unique<history::Store>(path);
}

history::Filter filter_of(const HistoryFlags& f) {
  history::Filter filter;
  try {
    filter.where = history::parse_where(f.where);
    if (!f.since.empty()) filter.since = history::parse_since(f.since, core::wall_clock_iso8601());
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  return filter;
}

std::string figure_cell(const history::RunEntry& e, const char* name, const char* format) {
  const auto it = e.figures.find(name);
  return it == e.figures.end() ? "-" : fmt::format(fmt::runtime(format), it->second);
}

std::string labels_text(const history::RunEntry& e) {
  std::string out;
  for (const auto& [k, v] : e.labels) {
    fmt::format_to(std::back_inserter(out), "{}{}={}", out.empty() ? "" : ",", k, v);
  }
  return core::one_line(out);
}

nlohmann::json entry_json(const history::RunEntry& e, bool with_summary) {
  nlohmann::json out{{"id", e.id},
                     {"started_at", e.started_at},
                     {"recorded_at", e.recorded_at},
                     {"identity", e.identity},
                     {"model", e.model},
                     {"base_url", e.base_url},
                     {"dir", e.dir},
                     {"repeat_of", e.repeat_of},
                     {"labels", e.labels},
                     {"environment", e.environment},
                     {"figures", e.figures}};
  if (with_summary) {
    nlohmann::json workload = nlohmann::json::object();
    for (const auto& [k, v] : e.workload) workload[k] = v;
    out["workload"] = std::move(workload);
  }
  return out;
}

int list_command(const HistoryFlags& f) {
  const auto store = open_for_reading(f);
  std::vector<history::RunEntry> runs = store->find(filter_of(f));
  if (runs.size() > f.limit) runs.erase(runs.begin(), runs.end() - static_cast<long>(f.limit));
  if (f.json) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& e : runs) out.push_back(entry_json(e, false));
    std::puts(out.dump(2).c_str());
    return kExitOk;
  }
  std::printf("%6s  %-19s  %-16s  %-18s  %9s  %11s  %9s  %s\n", "id", "started (UTC)", "workload",
              "model", "req/s", "out tok/s", "p95 TTFT", "labels / results");
  for (const auto& e : runs) {
    std::string started = e.started_at.substr(0, 19);
    std::replace(started.begin(), started.end(), 'T', ' ');
    std::printf("%6lld  %-19s  %-16s  %-18s  %9s  %11s  %9s  %s%s%s\n",
                static_cast<long long>(e.id), started.c_str(), e.identity.c_str(),
                core::one_line(e.model).substr(0, 18).c_str(),
                figure_cell(e, "request_throughput", "{:.2f}").c_str(),
                figure_cell(e, "output_throughput", "{:.1f}").c_str(),
                figure_cell(e, "p95_ttft_ms", "{:.1f}").c_str(), labels_text(e).c_str(),
                e.labels.empty() ? "" : " ", core::one_line(e.dir).c_str());
  }
  std::fprintf(stderr, "tokenbench: %zu runs in %s\n", runs.size(), store->path().c_str());
  return kExitOk;
}

int show_command(const HistoryFlags& f) {
  const auto store = open_for_reading(f);
  const auto e = store->get(f.id);
  if (!e)
    throw UsageError(
        fmt::format("no run {} in {} (history list shows the ids)", f.id, store->path()));
  if (f.json) {
    std::puts(entry_json(*e, true).dump(2).c_str());
    return kExitOk;
  }
  std::printf("Run %lld\n  started      %s\n  recorded     %s\n  results      %s\n",
              static_cast<long long>(e->id), e->started_at.c_str(), e->recorded_at.c_str(),
              core::one_line(e->dir).c_str());
  if (!e->repeat_of.empty()) std::printf("  repeat of    %s\n", e->repeat_of.c_str());
  std::printf("  workload     %s (model %s at %s)\n", e->identity.c_str(),
              core::one_line(e->model).c_str(), core::one_line(e->base_url).c_str());
  const auto section = [](const char* title, const auto& pairs) {
    std::printf("%s\n", title);
    for (const auto& [k, v] : pairs) {
      std::printf("  %-40s %s\n", core::one_line(k).c_str(), core::one_line(v).c_str());
    }
  };
  section("Labels", e->labels);
  section("Environment", e->environment);
  section("Workload settings", e->workload);
  std::printf("Figures\n");
  for (const auto& [name, value] : e->figures) std::printf("  %-40s %.6g\n", name.c_str(), value);
  return kExitOk;
}

// The runs of one workload: the --where selection, narrowed to the latest run's identity when it
// holds several (said on stderr).
std::vector<history::RunEntry> one_workload(std::vector<history::RunEntry> runs) {
  if (runs.empty()) return runs;
  const std::string identity = runs.back().identity;
  const std::size_t all = runs.size();
  std::erase_if(runs, [&](const history::RunEntry& e) { return e.identity != identity; });
  if (runs.size() < all) {
    std::fprintf(stderr,
                 "tokenbench: the selection holds other workloads too: showing the latest run's, "
                 "%s (%zu of %zu runs); --where identity=ID picks another\n",
                 identity.c_str(), runs.size(), all);
  }
  return runs;
}

std::string checked_figure(const std::string& name) {
  const std::string figure = experiment::expand_figure_alias(name);
  if (!experiment::is_figure_name(figure)) {
    throw UsageError(
        fmt::format("'{}' is not a figure of summary.json (e.g. p95_ttft_ms, "
                    "output_throughput, median_tpot_ms; docs/HISTORY.md)",
                    name));
  }
  return figure;
}

int trend_command(const HistoryFlags& f) {
  const std::string figure = checked_figure(f.figure);
  std::vector<std::string> gates;
  for (const std::string& g : f.fail_on_change) {
    const auto colon = g.rfind(':');
    if (colon == std::string::npos || g.substr(colon + 1) != "worse") {
      throw UsageError(
          fmt::format("--fail-on-change {}: give FIGURE:worse (e.g. p95_ttft_ms:worse)", g));
    }
    gates.push_back(checked_figure(g.substr(0, colon)));
  }
  const auto store = open_for_reading(f);
  const auto runs = one_workload(store->find(filter_of(f)));
  if (runs.empty()) {
    std::fprintf(stderr, "tokenbench: error: no run in %s matches%s\n", store->path().c_str(),
                 f.where.empty() && f.since.empty() ? "" : " --where/--since");
    return kExitNoMeasure;
  }
  const history::Trend trend = history::build_trend(runs, figure, f.change);
  std::fputs(history::render_trend(trend).c_str(), stdout);
  if (f.json) std::puts(history::trend_json(trend).dump(2).c_str());
  if (!f.html.empty()) {
    records::write_text_file(f.html, history::render_trend_page(trend));
    std::fprintf(stderr, "tokenbench: wrote %s\n", f.html.c_str());
  }
  int code = kExitOk;
  for (const std::string& gate : gates) {
    const history::Trend t = gate == figure ? trend : history::build_trend(runs, gate, f.change);
    if (t.latest_worse) {
      std::fprintf(stderr,
                   "tokenbench: --fail-on-change %s:worse: the latest run lies in a worse segment "
                   "(since run %lld: mean %.4g -> %.4g)\n",
                   gate.c_str(),
                   static_cast<long long>(t.points[t.changes.back().point.index].ids.front()),
                   t.changes.back().point.mean_before, t.changes.back().point.mean_after);
      code = kExitGate;
    }
  }
  return code;
}

// Every run's results directory under `dir` (itself, levels, repeats, targets), depth-first.
void find_results(const std::filesystem::path& dir, int depth, std::vector<std::string>& out) {
  if (history::is_run_results(dir.string())) out.push_back(dir.string());
  if (depth == 0) return;
  std::error_code ec;
  std::vector<std::filesystem::path> subs;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    if (entry.is_directory(ec) && !entry.is_symlink(ec)) subs.push_back(entry.path());
  }
  std::sort(subs.begin(), subs.end());
  for (const auto& s : subs) find_results(s, depth - 1, out);
}

int import_command(const HistoryFlags& f) {
  history::Store store(store_path(f));
  std::size_t added = 0;
  std::size_t replaced = 0;
  for (const std::string& dir : f.dirs) {
    std::vector<std::string> found;
    find_results(dir, 4, found);
    if (found.empty()) {
      throw UsageError(
          fmt::format("{} holds no run's results (summary.json, config.yaml and "
                      "requests.jsonl)",
                      dir));
    }
    for (const std::string& run : found) {
      const history::RunEntry entry = history::entry_from_results(run);
      const bool there = store.id_of_dir(entry.dir).has_value();
      const std::int64_t id = store.add(entry);
      std::printf("%6lld  %s%s\n", static_cast<long long>(id), entry.dir.c_str(),
                  there ? " (replaced)" : "");
      (there ? replaced : added) += 1;
    }
  }
  std::fprintf(stderr, "tokenbench: imported %zu runs into %s (%zu replaced)\n", added + replaced,
               store.path().c_str(), replaced);
  return kExitOk;
}

int guarded(const std::function<int()>& body) {
  try {
    return body();
  } catch (const UsageError& e) {
    std::fprintf(stderr, "tokenbench: error: %s\n", e.what());
    return kExitUsage;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tokenbench: error: %s\n", e.what());
    return kExitNoMeasure;
  }
}

void add_common(CLI::App* cmd, HistoryFlags& f) {
  cmd->add_option("--history", f.path,
                  "The history database (default $XDG_DATA_HOME/tokenbench/history.sqlite)");
}

void add_selection(CLI::App* cmd, HistoryFlags& f) {
  cmd->add_option("--where", f.where,
                  "Only runs where KEY=VALUE, comma-separated: model, identity, base_url, dir, "
                  "label.KEY, env.KEY (e.g. model=llama,label.gpu=H100)");
  cmd->add_option("--since", f.since, "Only runs started since: 30d, 12h, 90m or 2026-12-01");
}

}  // namespace

void add_history_command(CLI::App& app, int& exit_code) {
  auto f = std::make_shared<HistoryFlags>();
  CLI::App* cmd = app.add_subcommand(
      "history",
      "The run history: every run adds itself; list, show, trend with change points, "
      "import (docs/HISTORY.md)");
  cmd->require_subcommand(1);
  CLI::App* list = cmd->add_subcommand("list", "The runs in the history, oldest first");
  add_common(list, *f);
  add_selection(list, *f);
  list->add_option("--limit", f->limit, "Show the latest N")->capture_default_str();
  list->add_flag("--json", f->json, "Print the runs as JSON");
  list->callback([f, &exit_code] { exit_code = guarded([&] { return list_command(*f); }); });

  CLI::App* show = cmd->add_subcommand("show", "One run: environment, labels, settings, figures");
  show->add_option("id", f->id, "The run's id (history list)")->required();
  add_common(show, *f);
  show->add_flag("--json", f->json, "Print the run as JSON");
  show->callback([f, &exit_code] { exit_code = guarded([&] { return show_command(*f); }); });

  CLI::App* trend = cmd->add_subcommand(
      "trend",
      "One figure of one workload over time, its change points (E-Divisive means) and "
      "what changed in the environment");
  trend->add_option("figure", f->figure, "A figure of summary.json, e.g. p95_ttft_ms")->required();
  add_common(trend, *f);
  add_selection(trend, *f);
  trend->add_option("--html", f->html, "Also write the trend as a self-contained page");
  trend->add_flag("--json", f->json, "Also print the trend as JSON");
  trend
      ->add_option("--fail-on-change", f->fail_on_change,
                   "FIGURE:worse: exit 3 when the latest run lies in a segment worse than the "
                   "one before (repeatable)")
      ->allow_extra_args(false);
  trend
      ->add_option("--significance", f->change.significance,
                   "The permutation test's level: the false-positive rate of a series "
                   "without change")
      ->check(CLI::Range(0.001, 0.5))
      ->capture_default_str();
  trend->add_option("--permutations", f->change.permutations, "Permutations per test")
      ->check(CLI::Range(19, 9999))
      ->capture_default_str();
  trend->add_option("--min-segment", f->change.min_segment, "Fewest runs between change points")
      ->check(CLI::Range(2, 1000))
      ->capture_default_str();
  trend->callback([f, &exit_code] { exit_code = guarded([&] { return trend_command(*f); }); });

  CLI::App* import = cmd->add_subcommand(
      "import", "Add existing results directories (and the runs under them: levels, repeats)");
  import->add_option("dirs", f->dirs, "Results directories, or experiments' roots")->required();
  add_common(import, *f);
  import->callback([f, &exit_code] { exit_code = guarded([&] { return import_command(*f);
});
}  // namespace tokenbench::cli
);
}

}  // namespace tokenbench::cli
