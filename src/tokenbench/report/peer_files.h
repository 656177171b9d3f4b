#pragma once

// `--export vllm,evalscope,aiperf,guidellm` (also spelled --emit; run and `report DIR`): each peer
// tool's own result files, in its documented layout and with its definitions, from the run's
// records, so that dashboards and scripts built on the peer's output keep working (docs/REPORTS.md,
// "Peer result files"). Pure layout: the figures are the records' under the peer's own formulas.

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "tokenbench/core/request.h"
#include "tokenbench/core/run_config.h"

namespace tokenbench::report {

/// The peers whose result files --export writes. "csv" is the export of tokenbench's own.
inline constexpr std::string_view kPeerExports[] = {"vllm", "evalscope", "aiperf", "guidellm"};

/// `format` is a peer's result files (kPeerExports).
bool is_peer_export(std::string_view format);

/// The peers' formats among --export's `formats`, in order.
std::vector<std::string> peer_exports(const std::vector<std::string>& formats);

/// A request the peers' files count: of the measure phase, sent, its last attempt (a retried
/// attempt is not a request), failed or not.
bool measured_request(const core::RequestRecord& r);

/// What the files of one run are made from: its records (every phase; the peer's own rules pick
/// which count), its summary.json (vLLM's keys) and its config.
struct PeerFileInput {
  const std::vector<core::RequestRecord>& records;
  const nlohmann::json& summary;
  const core::RunConfig& config;
};

/// vLLM `vllm bench serve --save-result --save-detailed`'s result JSON: its name, as vLLM makes
/// it ({label}-{rate}qps[-concurrency{N}]-{model}-{date}.json), and its object.
std::string vllm_result_name(const nlohmann::json& summary);
nlohmann::json vllm_result(const PeerFileInput& in);

/// EvalScope `evalscope perf`'s run directory (parallel_{C}_number_{N}, or rate_{R}_number_{N}
/// for a rate), its benchmark_summary.json and its benchmark_percentile.json (a list of rows).
std::string evalscope_run_dir(const nlohmann::json& summary);
nlohmann::json evalscope_summary(const PeerFileInput& in);
nlohmann::json evalscope_percentiles(const PeerFileInput& in);

/// AIPerf `aiperf profile`'s profile_export_aiperf.json (its metrics in display units, each
/// {unit, avg, p1 ... p99, min, max, std}; aggregates avg only) and profile_export_aiperf.csv
/// (its two sections, CRLF).
std::string aiperf_json(const PeerFileInput& in);
std::string aiperf_csv(const PeerFileInput& in);

/// GuideLLM `guidellm benchmark`'s benchmarks.json (v0.3.1): one GenerativeBenchmark with its
/// args, run stats, metrics (each a distribution per status) and requests.
std::string guidellm_benchmarks(const PeerFileInput& in);

/// At a sweep's root `dir`: the peers' files of its levels (subdirectories `levels`, in order)
/// gathered as each peer lays out several runs: GuideLLM's benchmarks.json listing every level's
/// benchmark (strategy_index the level's place), EvalScope's run directories side by side under
/// evalscope/. Levels without the files are skipped. Throws std::runtime_error when a file cannot
/// be written.
void gather_peer_files(const std::vector<std::string>& formats, const std::string& dir,
                       const std::vector<std::string>& levels);

/// Writes each of `formats`' files into `dir` (vLLM's JSON, AIPerf's two and GuideLLM's at its
/// root, EvalScope's under evalscope/RUN/); returns their paths relative to `dir`. Throws
/// std::runtime_error when a file cannot be written.
std::vector<std::string> write_peer_files(const std::vector<std::string>& formats,
                                          const std::string& dir, const PeerFileInput& in);

}  // namespace tokenbench::report
