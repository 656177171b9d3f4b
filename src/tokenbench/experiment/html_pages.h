#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace tokenbench::experiment {

/// The data blob of an experiment root's report.html (report/html/report.js draws it), built
/// from the files the experiment stored there, or null when ROOT holds none:
/// - a sweep (sweep.json): per level its load, completeness, SLO verdict, throughputs and
///   percentiles, the knee and the best level under the SLOs, and each level's TTFT, TPOT, ITL
///   and E2EL CDF from its requests.jsonl, to overlay;
/// - a search (search.json): the probes, their SLO readings and the answer;
/// - a multi-target comparison (compare.json): the ranking and each target's CDFs.
/// Every entry names its page (`href`, relative to ROOT) for the links.
nlohmann::json experiment_report_data(const std::string& root);

/// Writes ROOT/report.html from experiment_report_data. Returns false (writing nothing) when
/// ROOT holds no experiment. Throws std::runtime_error when a file cannot be read or written.
bool write_experiment_report(const std::string& root);

/// write_experiment_report at an experiment's end: a page that cannot be written costs a
/// one-line warning on stderr, never the experiment's results.
void write_experiment_report_or_warn(const std::string& root) noexcept;

}  // namespace tokenbench::experiment
