#include "tokenbench/experiment/html_pages.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "tokenbench/experiment/repeats.h"
#include "tokenbench/experiment/search.h"
#include "tokenbench/experiment/sweep.h"
#include "tokenbench/experiment/targets.h"
#include "tokenbench/metrics/model_time.h"
#include "tokenbench/records/records_io.h"
#include "tokenbench/records/results_dir.h"
#include "tokenbench/report/html_report.h"

namespace tokenbench::experiment {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// Points per overlaid CDF: a sweep of 20 levels stays small and every curve keeps its shape.
constexpr std::size_t kOverlayPoints = 400;

// The figures a level's row, its curves and its percentiles against load are drawn from.
constexpr const char* kLevelFigures[] = {"output_tps_per_gpu",
                                         "median_decode_tps",
                                         "pareto",
                                         "completed",
                                         "failed",
                                         "error_rate",
                                         "request_throughput",
                                         "output_throughput",
                                         "request_goodput",
                                         "mean_ttft_ms",
                                         "p50_ttft_ms",
                                         "p90_ttft_ms",
                                         "p95_ttft_ms",
                                         "p99_ttft_ms",
                                         "mean_tpot_ms",
                                         "p50_tpot_ms",
                                         "p90_tpot_ms",
                                         "p95_tpot_ms",
                                         "p99_tpot_ms",
                                         "mean_itl_ms",
                                         "p50_itl_ms",
                                         "p90_itl_ms",
                                         "p95_itl_ms",
                                         "p99_itl_ms",
                                         "mean_e2el_ms",
                                         "p50_e2el_ms",
                                         "p90_e2el_ms",
                                         "p95_e2el_ms",
                                         "p99_e2el_ms",
                                         "total_token_throughput"};

// A subdirectory an experiment named: as stored under ROOT (its last path part), else as given.
fs::path subdir(const std::string& root, const std::string& dir) {
  const fs::path under = fs::path(root) / fs::path(dir).filename();
  return fs::is_directory(under) ? under : fs::path(dir);
}

// The link to a level's (a probe's, a target's) report.html: a relative path to a directory
// that exists inside the results directory ROOT, its name made only of the characters
// tokenbench's own directory names use. Anything else (a tampered sweep.json's
// "javascript:...", "../..", an absolute path) gets no link: null, and the page shows the text.
json href_of(const std::string& root, const std::string& dir) {
  const std::string name = fs::path(dir).filename().string();
  const bool plain = !name.empty() && name != "." && name != ".." &&
                     std::all_of(name.begin(), name.end(), [](unsigned char c) {
                       return std::isalnum(c) || std::strchr("._-+=,@", c) != nullptr;
                     });
  if (!plain || !fs::is_directory(fs::path(root) / name)) return nullptr;
  return "./" + name + "/" + std::string(report::kHtmlReportFile);
}

// The factor a subdirectory's figures were put in model time by (--sim-time), from its
// summary.json; 1 when none.
double model_time_factor_in(const std::string& root, const std::string& dir) {
  const json summary =
      records::read_json_file((subdir(root, dir) / records::kSummaryFile).string());
  return summary.is_object() ? report::model_time_factor_of(summary) : 1.0;
}

// The CDFs of a subdirectory's measured requests, in the time its tables are in (model time
// under --sim-time); an empty object when it has no records.
json cdfs_of(const std::string& root, const std::string& dir) {
  const fs::path run = subdir(root, dir);
  std::vector<std::string> files = {records::find_requests_file(run.string())};
  if (files.front().empty() && is_repeated_root(run.string())) {
    // A level measured with --repeats: its runs' requests together.
    files.clear();
    for (int i = 1; fs::is_directory(run / repeat_dir(i)); ++i) {
      files.push_back(records::find_requests_file((run / repeat_dir(i)).string()));
    }
  }
  std::vector<core::RequestRecord> records;
  for (const auto& file : files) {
    if (file.empty()) continue;
    auto more = records::read_records_jsonl(file);
    records.insert(records.end(), std::make_move_iterator(more.begin()),
                   std::make_move_iterator(more.end()));
  }
  if (records.empty()) return json::object();
  return report::figure_cdfs(
      metrics::in_model_time(std::move(records), model_time_factor_in(root, dir)), kOverlayPoints);
}

// A level measured with --repeats: the 95% intervals of its headline figures over the runs,
// [lo, hi] by key, for the charts' error bars; null when not repeated.
json intervals_of(const json& level) {
  json out = json::object();
  for (const char* key : {"request_throughput", "output_throughput", "p95_ttft_ms", "p95_tpot_ms",
                          "median_decode_tps"}) {
    if (const auto ci = repeat_interval(level, key)) out[key] = {ci->lo, ci->hi};
  }
  return out.empty() ? json() : out;
}

// Which clock the runs' figures are on: {"model": true, "scale": X} when some are in model time.
json time_of(const std::string& root, const json& runs) {
  double factor = 1.0;
  for (const auto& run : runs) {
    factor = std::max(factor, model_time_factor_in(root, run.value("dir", std::string())));
  }
  return {{"model", factor != 1.0}, {"scale", factor}};
}

std::string load_label(const json& level) {
  std::string out;
  if (level.contains("max_concurrency") && level["max_concurrency"].is_number()) {
    out = "concurrency " + level["max_concurrency"].dump();
  }
  if (level.contains("request_rate") && !(level["request_rate"].is_string())) {
    out += (out.empty() ? "" : ", ") + std::string("rate ") + level["request_rate"].dump();
  }
  return out.empty() ? level.value("dir", std::string()) : out;
}

json sweep_data(const std::string& root, const json& sweep) {
  json levels = json::array();
  for (const auto& level : sweep.value("levels", json::array())) {
    json row = {{"dir", level.value("dir", std::string())},
                {"label", load_label(level)},
                {"max_concurrency", level.value("max_concurrency", json())},
                {"request_rate", level.value("request_rate", json())},
                {"complete", level.value("complete", false)},
                {"meets_slo", level.value("meets_slo", json())},
                {"slo", level.value("slo", json::array())}};
    for (const char* k : kLevelFigures) row[k] = level.value(k, json());
    row["href"] = href_of(root, row["dir"].get<std::string>());
    row["cdfs"] = cdfs_of(root, row["dir"].get<std::string>());
    row["intervals"] = intervals_of(level);
    levels.push_back(std::move(row));
  }
  json time = time_of(root, levels);
  return {{"kind", "sweep"},
          {"time", std::move(time)},
          {"levels", std::move(levels)},
          {"knee", sweep.value("knee", json())},
          {"knee_rule", sweep.value("knee_rule", json())},
          {"best", sweep.value("best", json())},
          {"best_by", sweep.value("best_by", json())},
          {"gpus", sweep.value("gpus", json(1))},
          {"slo", sweep.value("slo", json::array())},
          {"stopped", sweep.value("stopped", json())},
          {"canceled", sweep.value("canceled", false)}};
}

// A server-configuration sweep's root: its configurations (each a sweep with its own page) and
// every (configuration, level) for the overlaid curves and the Pareto front across them.
json serve_sweep_data(const std::string& root, const json& sweep) {
  json configs = json::array();
  for (const auto& c : sweep.value("configurations", json::array())) {
    if (!c.is_object()) continue;
    json row = c;
    row["href"] = href_of(root, c.value("dir", std::string()));
    configs.push_back(std::move(row));
  }
  json levels = json::array();
  for (const auto& level : sweep.value("levels", json::array())) {
    if (!level.is_object()) continue;
    const std::string config = level.value("config", std::string());
    const std::string name = level.value("level", std::string());
    json row = {{"config", config},
                {"level", name},
                {"dir", level.value("dir", std::string())},
                {"label", load_label(level)},
                {"max_concurrency", level.value("max_concurrency", json())},
                {"request_rate", level.value("request_rate", json())},
                {"complete", level.value("complete", false)},
                {"meets_slo", level.value("meets_slo", json())}};
    for (const char* k : kLevelFigures) row[k] = level.value(k, json());
    row["intervals"] = intervals_of(level);
    // Its page: the configuration's directory must be one of the root's, the level one of its.
    const json config_href = href_of(root, config);
    const json level_href = config_href.is_null()
                                ? json()
                                : href_of(root + "/" + fs::path(config).filename().string(), name);
    row["href"] = level_href.is_null() ? json()
                                       : json("./" + fs::path(config).filename().string() +
                                              level_href.get<std::string>().substr(1));
    levels.push_back(std::move(row));
  }
  return {{"kind", "serve_sweep"},
          {"time", time_of(root, levels)},
          {"configurations", std::move(configs)},
          {"levels", std::move(levels)},
          {"best", sweep.value("best", json())},
          {"best_by", sweep.value("best_by", json())},
          {"serve_params", sweep.value("serve_params", json::object())},
          {"slo", sweep.value("slo", json::array())},
          {"canceled", sweep.value("canceled", false)}};
}

json search_data(const std::string& root, const json& search) {
  json probes = search.value("probes", json::array());
  for (auto& p : probes) p["href"] = href_of(root, p.value("dir", std::string()));
  json out = search;
  out["probes"] = std::move(probes);
  out["kind"] = "search";
  return out;
}

json compare_data(const std::string& root, const json& compare) {
  json targets = compare.value("targets", json::array());
  for (auto& t : targets) {
    const std::string dir = t.value("dir", std::string());
    t["href"] = href_of(root, dir);
    t["cdfs"] = cdfs_of(root, dir);
  }
  json out = compare;
  out["time"] = time_of(root, targets);
  out["targets"] = std::move(targets);
  out["kind"] = "compare";
  return out;
}

}  // namespace

json experiment_report_data(const std::string& root) {
  const auto read = [&root](const char* file) {
    return records::read_json_file(root + "/" + file);  // names the file in its errors
  };
  json data;
  if (fs::is_regular_file(root + "/" + kSweepJson)) {
    const json sweep = read(kSweepJson);
    data =
        sweep.contains("configurations") ? serve_sweep_data(root, sweep) : sweep_data(root, sweep);
  } else if (fs::is_regular_file(root + "/" + kSearchJson)) {
    data = search_data(root, read(kSearchJson));
  } else if (fs::is_regular_file(root + "/" + kCompareJson)) {
    data = compare_data(root, read(kCompareJson));
  } else {
    return nullptr;
  }
  const std::string config = root + "/" + records::kConfigFile;
  data["config_yaml"] =
      fs::is_regular_file(config) ? report::redact_urls(records::read_text_file(config)) : "";
  return data;
}

bool write_experiment_report(const std::string& root) {
  const json data = experiment_report_data(root);
  if (data.is_null()) return false;
  records::write_text_file(root + "/" + report::kHtmlReportFile, report::render_html_report(data));
  return true;
}

void write_experiment_report_or_warn(const std::string& root) noexcept {
  try {
    write_experiment_report(root);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tokenbench: warning: %s/%s not written: %s\n", root.c_str(),
                 report::kHtmlReportFile, e.what());
  }
}

}  // namespace tokenbench::experiment
