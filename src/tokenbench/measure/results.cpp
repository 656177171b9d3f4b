// The results of one measurement, written into each part's directory.

#include "tokenbench/measure/results.h"

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <optional>

#include "tokenbench/client/otlp_post.h"
#include "tokenbench/records/records_io.h"
#include "tokenbench/records/results_dir.h"
#include "tokenbench/report/csv_export.h"
#include "tokenbench/report/otlp_export.h"
#include "tokenbench/report/peer_files.h"
#include "tokenbench/report/run_outputs.h"

namespace tokenbench::measure {

void export_otlp(const core::RunConfig& config, const std::string& dir,
                 const nlohmann::json& summary, const report::GenAiFigures& genai) {
  if (config.otlp_endpoint.empty()) return;
  report::OtlpRun run;
  run.run_id = std::filesystem::path(dir).lexically_normal().filename().string();
  if (run.run_id.empty()) {  // "results/x/": the name before the slash
    run.run_id = std::filesystem::path(dir).lexically_normal().parent_path().filename().string();
  }
  run.fallback_unix_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                             std::chrono::system_clock::now().time_since_epoch())
                             .count();
  const std::string body = report::otlp_metrics_request(summary, genai, run).dump();
  const std::string failed = client::post_otlp_metrics(config.otlp_endpoint, config.otlp_headers,
                                                       body, client::get_options(config));
  if (failed.empty()) {
    std::fprintf(stderr, "tokenbench: sent the figures to %s (OTLP)\n",
                 client::shown_otlp_url(config.otlp_endpoint).c_str());
  } else {
    std::fprintf(stderr, "tokenbench: warning: %s; the results are unchanged\n", failed.c_str());
  }
}

LevelResult write_part(const Part& part, const report::RunFigures& figures,
                       const std::string& requests_file, const records::RunNotes& notes) {
  const core::RunConfig& config = part.config;
  LevelResult result;
  result.name = part.name;
  result.dir = config.output_dir;
  // The summary first (write_run_outputs); every other file after it, each a warning when it
  // cannot be written (a full disk): what was measured is never lost to a side file.
  report::RunOutputs out;
  try {
    out = report::write_run_outputs(config.output_dir, figures, config, notes);
  } catch (const std::exception& e) {
    throw RunError(e.what(), true);
  }
  const std::string& dir = config.output_dir;
  if (!notes.environment.is_null()) {
    records::write_optional([&] { records::write_environment(dir, notes.environment); });
  }
  if (!notes.scrape_sources.empty() || notes.gpu_sampler || !notes.client_cpu.empty() ||
      notes.probe_rate > 0) {
    records::write_optional([&] { records::write_telemetry(dir, notes); });
  }
  // The exports read requests.jsonl back, once for all of them.
  std::optional<std::vector<core::RequestRecord>> read_back;
  const auto all_records = [&]() -> const std::vector<core::RequestRecord>& {
    if (!read_back) read_back = records::read_records_jsonl(requests_file);
    return *read_back;
  };
  if (report::wants_csv_export(config.exports)) {
    records::write_optional_file(dir + "/" + report::kRequestsCsvFile,
                                 [&] { return report::requests_to_csv(all_records()); });
  }
  if (const auto peers = report::peer_exports(config.exports); !peers.empty()) {
    records::write_optional([&] {
      report::write_peer_files(peers, dir, {all_records(), out.summary_json, config});
    });
  }
  // After every file: a collector that fails costs a warning, nothing more.
  export_otlp(config, dir, out.summary_json, figures.genai());
  result.summary = std::move(out.summary);
  result.summary_json = std::move(out.summary_json);
  result.console = std::move(out.console);
  result.not_saved = std::move(out.not_saved);
  return result;
}

}  // namespace tokenbench::measure
