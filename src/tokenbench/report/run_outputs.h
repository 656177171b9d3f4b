#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "tokenbench/core/request.h"
#include "tokenbench/core/run_config.h"
#include "tokenbench/metrics/summary.h"
#include "tokenbench/metrics/verdict.h"
#include "tokenbench/records/run_notes.h"
#include "tokenbench/report/run_figures.h"

namespace tokenbench::report {

/// What a finished (or rebuilt) run produced.
struct RunOutputs {
  metrics::Summary summary;
  nlohmann::json summary_json;  ///< as written to summary.json
  std::string console;          ///< the tables printed to the terminal
  /// Why summary.json could not be written (a full disk: "cannot write DIR/summary.json: No space
  /// left on device"); "" when it was. The caller then keeps summary_json some other way.
  std::string not_saved;
  /// Who held the run back (metrics/verdict.h; summary.json's tokenbench.verdict); none when no
  /// request completed.
  std::optional<metrics::Verdict> verdict;
};

/// Summarises the records `figures` was fed as `config` asks (percentiles, SLOs), writes
/// DIR/summary.json first, then DIR/report.txt (the console tables) and DIR/report.html
/// (report/html_report.h), and returns the summary with its console tables. A run over several
/// replicas (config.replica_urls) adds per-replica figures (report/replicas.h) to both. The same
/// function serves `run` and `report`, so a report rebuilt from requests.jsonl is identical to the
/// run's own. A summary.json that cannot be written is said in RunOutputs::not_saved; any other
/// file that cannot be, in a warning on stderr (write_optional_file). Throws std::invalid_argument
/// on a bad SLO item. `notes.stopped` becomes a warning and tokenbench.stopped;
/// `notes.scrape_sources` each server's account (tokenbench.server: the one, or the replicas'
/// total; tokenbench.servers: every source's when several; the console's "Server" blocks);
/// `notes.gpu_sampler` the GPU account (tokenbench.gpu, the "GPU" block); `notes.environment`
/// tokenbench.environment and the "Environment" block.
RunOutputs write_run_outputs(const std::string& dir, const RunFigures& figures,
                             const core::RunConfig& config, const records::RunNotes& notes = {});
/// The same for `records` all at once (a RunFigures fed each).
RunOutputs write_run_outputs(const std::string& dir,
                             const std::vector<core::RequestRecord>& records,
                             const core::RunConfig& config, const records::RunNotes& notes = {});

}  // namespace tokenbench::report
