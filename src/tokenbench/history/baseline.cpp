#include "tokenbench/history/baseline.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <stdexcept>

#include "tokenbench/experiment/figures.h"
#include "tokenbench/records/results_dir.h"

namespace tokenbench::history {
namespace {

namespace fs = std::filesystem;

bool is_number(const std::string& s) {
  return !s.empty() &&
         std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c); });
}

bool inside(const std::string& dir, const std::string& root) {
  return dir == root || dir.rfind(root + "/", 0) == 0;
}

}  // namespace

RunEntry choose_baseline(const Store& store, const std::string& new_dir, const std::string& which,
                         const std::string& figure) {
  std::error_code ec;
  if (is_number(which)) {
    const auto e = store.get(std::stoll(which));
    if (!e)
      throw std::runtime_error(
          fmt::format("--baseline {}: no such run in {}", which, store.path()));
    if (!fs::is_directory(e->dir, ec)) {
      throw std::runtime_error(
          fmt::format("--baseline {}: its results directory {} is gone", which, e->dir));
    }
    return *e;
  }
  if (which != "last" && which != "best") {
    throw std::runtime_error(fmt::format(
        "--baseline {}: give last, best or a run's id from `tokenbench history list`", which));
  }
  const std::string config_path = new_dir + "/" + records::kConfigFile;
  if (!fs::is_regular_file(config_path, ec)) {
    throw std::runtime_error(
        fmt::format("{} has no config.yaml: its workload is unknown", new_dir));
  }
  const core::RunConfig config = core::run_config_from_yaml(records::read_text_file(config_path));
  const std::string identity = workload_identity(identity_values(config));
  const std::string root = fs::absolute(new_dir, ec).lexically_normal().string();
  Filter filter;
  filter.where.emplace_back("identity", identity);
  std::vector<RunEntry> runs = store.find(filter);
  // NEW in the history: the runs before it in the history's order (start, then id), which
  // orders runs that started in the same second too.
  if (const auto own = store.id_of_dir(root)) {
    const auto at =
        std::find_if(runs.begin(), runs.end(), [&](const RunEntry& e) { return e.id == *own; });
    if (at != runs.end()) runs.erase(at, runs.end());
  }
  std::erase_if(runs, [&](const RunEntry& e) {
    return inside(e.dir, root) ||
           (!config.started_at.empty() && e.started_at > config.started_at) ||
           !fs::is_directory(e.dir, ec);
  });
  if (runs.empty()) {
    throw std::runtime_error(fmt::format(
        "--baseline {}: the history {} holds no earlier run of {}'s workload (identity {}) whose "
        "results are still on disk",
        which, store.path(), new_dir, identity));
  }
  if (which == "last") return runs.back();
  const bool higher = experiment::higher_is_better(figure);
  const RunEntry* best = nullptr;
  for (const RunEntry& e : runs) {
    const auto it = e.figures.find(figure);
    if (it == e.figures.end() || !std::isfinite(it->second)) continue;
    const double v = it->second;
    if (best == nullptr || (higher ? v > best->figures.at(figure) : v < best->figures.at(figure))) {
      best = &e;
    }
  }
  if (best == nullptr) {
    throw std::runtime_error(
        fmt::format("--baseline best: no earlier run of {}'s workload has {}", new_dir, figure));
  }
  return *best;
}

}  // namespace tokenbench::history
