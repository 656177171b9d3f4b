// The results of one measurement, written into each part's directory.

#include "tokenbench/measure/results.h"

#include "tokenbench/records/records_io.h"
#include "tokenbench/records/results_dir.h"
#include "tokenbench/report/csv_export.h"
#include "tokenbench/report/run_outputs.h"

namespace tokenbench::measure {

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
  if (report::wants_csv_export(config.exports)) {
    records::write_optional_file(dir + "/" + report::kRequestsCsvFile, [&] {
      return report::requests_to_csv(records::read_records_jsonl(requests_file));
    });
  }
  result.summary = std::move(out.summary);
  result.summary_json = std::move(out.summary_json);
  result.console = std::move(out.console);
  result.not_saved = std::move(out.not_saved);
  return result;
}

}  // namespace tokenbench::measure
