// `tokenbench report DIR`: rebuilds summary.json, the console tables and report.html from
// requests.jsonl or requests.jsonl.zst (at an experiment's root: its report.html from sweep.json,
// search.json or compare.json);
// --export csv rebuilds the CSV exports, --as PEER prints the figures under a peer tool's
// definitions beside tokenbench's, --as prometheus and --as llm-d print them in those formats
// instead, --otlp-endpoint sends them to an OpenTelemetry collector.

#include <cstdio>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tokenbench/cli/commands.h"
#include "tokenbench/cli/option_values.h"
#include "tokenbench/cli/run_flags.h"
#include "tokenbench/core/config_check.h"
#include "tokenbench/core/run_config.h"
#include "tokenbench/core/text.h"
#include "tokenbench/experiment/html_pages.h"
#include "tokenbench/experiment/journal.h"
#include "tokenbench/experiment/repeats.h"
#include "tokenbench/experiment/sweep.h"
#include "tokenbench/measure/results.h"
#include "tokenbench/metrics/peer_views.h"
#include "tokenbench/records/records_io.h"
#include "tokenbench/records/results_dir.h"
#include "tokenbench/report/csv_export.h"
#include "tokenbench/report/html_report.h"
#include "tokenbench/report/llmd_report.h"
#include "tokenbench/report/peer_files.h"
#include "tokenbench/report/prometheus_export.h"
#include "tokenbench/report/run_outputs.h"

namespace tokenbench::cli {
namespace {

// --as's formats (beside the peers' names).
constexpr std::string_view kAsPrometheus = "prometheus";
constexpr std::string_view kAsLlmd = "llm-d";

// A results directory's name ("results/run-1/" is run-1): the run's id in exports.
std::string run_id_of(const std::string& dir) {
  const std::filesystem::path p = std::filesystem::path(dir).lexically_normal();
  const std::string name = p.filename().string();
  return name.empty() ? p.parent_path().filename().string() : name;
}

struct ReportFlags {
  std::string dir;
  std::vector<std::string> exports;
  std::string as;
  std::string max_line_bytes = "16MiB";
  std::string otlp_endpoint;
  std::vector<std::string> otlp_headers;
};

// A sweep's root with --export csv: levels.csv from sweep.json, and requests.csv in every level
// that holds records. False when DIR is not a sweep's root.
bool export_sweep_root(const std::string& dir) {
  const std::string sweep_path = dir + "/" + experiment::kSweepJson;
  if (!std::filesystem::is_regular_file(sweep_path)) return false;
  const auto sweep = records::read_json_file(sweep_path);
  records::write_text_file(dir + "/" + report::kLevelsCsvFile, report::levels_to_csv(sweep));
  for (const auto& level : sweep.value("levels", nlohmann::json::array())) {
    const std::string sub = dir + "/" + level.value("dir", std::string());
    const std::string requests = records::find_requests_file(sub);
    if (!level.contains("dir") || requests.empty()) continue;
    records::write_text_file(sub + "/" + report::kRequestsCsvFile,
                             report::requests_to_csv(records::read_records_jsonl(requests)));
  }
  std::printf("Wrote %s/%s and each level's %s\n", dir.c_str(), report::kLevelsCsvFile,
              report::kRequestsCsvFile);
  return true;
}

// A results directory's outputs rebuilt from its records, a record at a time, and what --as,
// --export and --otlp-endpoint ask besides.
int rebuild_run(const ReportFlags& f, const std::string& requests_path, bool csv,
                const std::optional<metrics::Peer>& peer) {
  const std::string config_path = f.dir + "/" + records::kConfigFile;
  core::RunConfig config;
  if (std::filesystem::is_regular_file(config_path)) {
    config = core::run_config_from_yaml(records::read_text_file(config_path));
  }
  // One pass over the file, a record at a time: the figures fold each (report/run_figures.h),
  // so that memory does not grow with the file; only --as and --export csv keep more.
  const bool want_csv = csv || report::wants_csv_export(config.exports);
  // --export vllm, evalscope: the peers' result files, from every record (a peer's file lists
  // each request).
  const std::vector<std::string> peer_files = report::peer_exports(f.exports);
  report::RunFigures figures(config);
  std::string csv_text = want_csv ? report::requests_csv_header() : std::string();
  std::vector<core::RequestRecord> records;  // --as and the peers' files take them all
  records::RecordsReadReport read;
  records::for_each_record(
      requests_path,
      [&](core::RequestRecord&& r) {
        figures.add(r);
        if (want_csv) csv_text += report::requests_csv_row(r);
        if (peer || !peer_files.empty()) records.push_back(std::move(r));
      },
      &read);
  if (!read.warning.empty()) {
    std::fprintf(stderr, "tokenbench: warning: %s\n", read.warning.c_str());
  }
  records::RunNotes notes = records::read_telemetry(f.dir);
  notes.environment = records::read_environment(f.dir);
  notes.distributed = records::read_json_file(f.dir + "/" + records::kDistributedFile);
  // Why the run stopped early is known to the run alone: a rebuilt summary keeps it.
  nlohmann::json previous;
  try {
    previous = records::read_json_file(f.dir + "/" + records::kSummaryFile);
  } catch (const std::exception&) {  // a damaged summary is what report rebuilds
  }
  if (previous.is_object() && previous.contains("tokenbench") &&
      previous["tokenbench"].value("stopped", nlohmann::json()).is_string()) {
    notes.stopped = previous["tokenbench"]["stopped"].get<std::string>();
  }
  const auto out = report::write_run_outputs(f.dir, figures, config, notes);
  // A run made with --export csv keeps its export in step with the rebuilt summary.
  if (want_csv) records::write_text_file(f.dir + "/" + report::kRequestsCsvFile, csv_text);
  if (f.as == kAsPrometheus) {
    std::fputs(report::summary_to_prometheus(out.summary_json).c_str(), stdout);
  } else if (f.as == kAsLlmd) {
    const std::string run_id = run_id_of(f.dir);
    std::fputs(report::summary_to_llmd_report(out.summary_json, config, run_id).dump(2).c_str(),
               stdout);
    std::fputs("\n", stdout);
  } else {
    std::fputs(out.console.c_str(), stdout);
  }
  if (!peer_files.empty()) {
    for (const auto& file :
         report::write_peer_files(peer_files, f.dir, {records, out.summary_json, config})) {
      std::fprintf(stderr, "tokenbench: wrote %s/%s\n", f.dir.c_str(), file.c_str());
    }
  }
  if (peer) {
    std::fputs("\n", stdout);
    std::fputs(metrics::render_peer_view(metrics::peer_view(*peer, records)).c_str(), stdout);
  }
  // --otlp-endpoint: a run made without it exported now (a failure: a warning, nothing else).
  config.otlp_endpoint = f.otlp_endpoint;
  config.otlp_headers = f.otlp_headers;
  measure::export_otlp(config, f.dir, out.summary_json, figures.genai());
  if (!out.not_saved.empty()) {
    std::fprintf(stderr, "tokenbench: error: %s; requests.jsonl is unchanged\n",
                 core::one_line(out.not_saved).c_str());
    return kExitNotSaved;
  }
  return out.summary.completed > 0 ? kExitOk : kExitNoMeasure;
}

int report_command(const ReportFlags& f) {
  try {
    apply_max_line_bytes(f.max_line_bytes);
    core::RunConfig otlp;  // --otlp-endpoint, checked as run checks it
    otlp.otlp_endpoint = f.otlp_endpoint;
    otlp.otlp_headers = f.otlp_headers;
    core::check_otlp(otlp);
    const std::string requests_path = records::find_requests_file(f.dir);
    const bool csv = report::wants_csv_export(f.exports);
    std::optional<metrics::Peer> peer;
    // --as prometheus, --as llm-d: the figures in that format on stdout, and nothing else there.
    const bool format = f.as == kAsPrometheus || f.as == kAsLlmd;
    if (!f.as.empty() && !format) {
      peer = metrics::peer_from_string(f.as);
      if (!peer) {
        std::fprintf(stderr,
                     "tokenbench: error: --as %s: unknown peer; one of %s, or a format: "
                     "prometheus, llm-d\n",
                     f.as.c_str(), metrics::kPeerNames.names().c_str());
        return kExitUsage;
      }
    }
    const bool as_something = peer.has_value() || format || !f.otlp_endpoint.empty();
    if (requests_path.empty() && experiment::is_repeated_root(f.dir) && !as_something) {
      // run --repeats: the runs' means with their intervals, from the root's summary.json.
      const nlohmann::json summary = records::read_json_file(f.dir + "/" + records::kSummaryFile);
      std::fputs(experiment::render_repeats(summary).c_str(), stdout);
      std::printf("Each run's own report: tokenbench report %s/repeat-N\n", f.dir.c_str());
      return kExitOk;
    }
    if (requests_path.empty()) {
      const std::string hint = experiment::experiment_root_hint(f.dir);
      if (!hint.empty() && !as_something) {
        // An experiment's root: its page (and with --export csv, levels.csv) from what it stored.
        if (csv) export_sweep_root(f.dir);
        experiment::write_experiment_report(f.dir);
        std::printf("Wrote %s/%s (each run's own: tokenbench report %s/SUBDIRECTORY)\n",
                    f.dir.c_str(), report::kHtmlReportFile, f.dir.c_str());
        return kExitOk;
      }
      if (!hint.empty()) {
        std::fprintf(stderr, "tokenbench: error: %s: %s\n",
                     f.as.empty() ? "--otlp-endpoint" : "--as", hint.c_str());
        return kExitUsage;
      }
      std::fprintf(stderr,
                   "tokenbench: error: %s has no %s: pass a results directory written by "
                   "`tokenbench run`\n",
                   f.dir.c_str(), records::kRequestsFile);
      return kExitUsage;
    }
    return rebuild_run(f, requests_path, csv, peer);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tokenbench: error: %s\n", e.what());
    return kExitUsage;
  }
}

}  // namespace

void add_report_command(CLI::App& app, int& exit_code) {
  auto flags = std::make_shared<ReportFlags>();
  CLI::App* cmd = app.add_subcommand(
      "report",
      "Recompute summary.json, the tables and report.html from a results directory's "
      "requests.jsonl (at a sweep's, search's or comparison's root: its report.html)");
  cmd->add_option("dir", flags->dir, "Results directory, or an experiment's root")->required();
  only_values(cmd->add_option("--export,--emit", flags->exports,
                              "Also rebuild exports: csv (requests.csv; at a sweep's root, "
                              "levels.csv and each level's requests.csv), or write a peer's "
                              "result files from the records: vllm (vllm bench serve's result "
                              "JSON with --save-detailed's fields), evalscope (evalscope perf's "
                              "benchmark_summary.json and benchmark_percentile.json), aiperf "
                              "(profile_export_aiperf.json and .csv), guidellm (benchmarks.json)"),
              {"csv", "vllm", "evalscope", "aiperf", "guidellm"})
      ->delimiter(',');
  CLI::Option* as = cmd->add_option(
      "--as", flags->as,
      "Also print the figures under a peer tool's definitions beside tokenbench's: vllm, sglang, "
      "guidellm, evalscope, aiperf or llmperf (docs/METRICS.md); or prometheus: print only the "
      "figures as Prometheus exposition text, for a textfile collector or a Pushgateway; or "
      "llm-d: print only llm-d-benchmark's benchmark report (v0.2, JSON) of the run "
      "(docs/REPORTS.md)");
  std::vector<std::string> as_values;
  for (const auto& row : metrics::kPeerNames.rows()) as_values.emplace_back(row.name);
  as_values.emplace_back("prometheus");
  as_values.emplace_back("llm-d");
  offer_values(as, std::move(as_values));
  cmd->add_option("--otlp-endpoint", flags->otlp_endpoint,
                  "Also send the run's figures as OpenTelemetry metrics (OTLP/HTTP JSON) to this "
                  "collector, as `run --otlp-endpoint` does at a run's end (docs/REPORTS.md)");
  cmd->add_option("--otlp-header", flags->otlp_headers,
                  "NAME=VALUE header sent with the --otlp-endpoint export (repeatable; secret: "
                  "never written)")
      ->allow_extra_args(false);
  add_max_line_bytes_flag(cmd, flags->max_line_bytes);
  cmd->callback([flags, &exit_code] { exit_code = report_command(*flags); });
}

}  // namespace tokenbench::cli
