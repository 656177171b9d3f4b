#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "tokenbench/core/request.h"

namespace tokenbench::report {

// CSV exports (--export csv; docs/REPORTS.md, "Exports"). requests.jsonl stays the source of
// truth: every export is a pure function of the records (or of sweep.json), rebuilt by
// `tokenbench report DIR --export csv`. Text is RFC 4180: comma-separated, CRLF line ends, a
// field quoted when it holds a comma, a double quote, CR or LF, quotes doubled inside.

/// File names of the exports.
inline constexpr const char* kRequestsCsvFile = "requests.csv";  ///< in a run's directory
inline constexpr const char* kLevelsCsvFile = "levels.csv";      ///< at a sweep's root

/// One CSV field from text that may come from a server: quoted per RFC 4180 when needed, and a
/// value starting with '=', '+', '-', '@', TAB or CR (a spreadsheet formula) prefixed with a
/// single quote so that a spreadsheet shows it as text.
std::string csv_text_field(std::string_view text);

/// The header line of requests.csv (the column names, comma-separated, ending in CRLF).
std::string requests_csv_header();

/// requests.csv: the header, then one row per record in the given order (every phase; the
/// `phase` column tells them apart). Stamps in ms since the run's origin, derived figures as
/// metrics/request_metrics.h defines them; an undefined value is an empty field.
std::string requests_to_csv(const std::vector<core::RequestRecord>& records);
/// One row of requests.csv (ending in CRLF), as requests_to_csv writes it.
std::string requests_csv_row(const core::RequestRecord& record);

/// levels.csv from a sweep.json document (experiment::sweep_to_json): one row per entry of its
/// "levels" array with the load parameters, counts, throughputs, goodput and the
/// mean/p50/p90/p95/p99 of TTFT, TPOT, ITL and E2EL; a key absent or null is an empty field.
std::string levels_to_csv(const nlohmann::json& sweep);

/// Validates --export values: each must be "csv" or a peer's result files (peer_files.h,
/// kPeerExports). Throws std::invalid_argument naming the bad one. True when csv was asked for.
bool wants_csv_export(const std::vector<std::string>& formats);

}  // namespace tokenbench::report
