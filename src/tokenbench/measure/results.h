#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tokenbench/core/request.h"
#include "tokenbench/measure/outcome.h"
#include "tokenbench/measure/records.h"
#include "tokenbench/records/run_notes.h"

namespace tokenbench::measure {

/// Writes the results of one part into its directory: summary.json and the console tables first
/// (report::write_run_outputs), then environment.json, telemetry.jsonl and requests.csv, each a
/// warning when it cannot be written (a full disk): what was measured is never lost to a side
/// file. `notes`: why a guard stopped the run early, the server's /metrics scrapes. Throws
/// RunError when the summary cannot be written. `figures` were fed the part's records;
/// requests.csv (--export csv) is made from `requests_file`, where they were written.
/// --otlp-endpoint: sends `summary` (summary.json) and `genai` as an OTLP metrics export to the
/// collector (report/otlp_export.h, client/otlp_post.h); a failure is one warning on stderr and
/// changes nothing else. Nothing without an endpoint. `dir`'s name is the run's id.
void export_otlp(const core::RunConfig& config, const std::string& dir,
                 const nlohmann::json& summary, const report::GenAiFigures& genai);

LevelResult write_part(const Part& part, const report::RunFigures& figures,
                       const std::string& requests_file, const records::RunNotes& notes);

}  // namespace tokenbench::measure
