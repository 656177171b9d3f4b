#pragma once

#include <cstdio>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "tokenbench/core/request.h"
#include "tokenbench/core/run_config.h"
#include "tokenbench/metrics/summary.h"
#include "tokenbench/telemetry/gpu_sample.h"
#include "tokenbench/telemetry/gpu_sampler.h"
#include "tokenbench/telemetry/scraper.h"

namespace tokenbench::report {

/// File names inside a results directory.
inline constexpr const char* kSummaryFile = "summary.json";
inline constexpr const char* kRequestsFile = "requests.jsonl";
inline constexpr const char* kRequestsZstFile = "requests.jsonl.zst";  ///< --records-compress zstd
inline constexpr const char* kConfigFile = "config.yaml";
inline constexpr const char* kReportFile = "report.txt";             ///< the console tables
inline constexpr const char* kTelemetryFile = "telemetry.jsonl";     ///< /metrics and GPU samples
inline constexpr const char* kEnvironmentFile = "environment.json";  ///< the environment record
/// A distributed run's ranks: their clock offsets, client health and what is missing.
inline constexpr const char* kDistributedFile = "distributed.json";

/// What a run knows beside its records.
struct RunNotes {
  /// Why a guard (--fail-fast, --max-error-rate) ended the run early; "" when it ran to its end.
  std::string stopped;
  /// The server's /metrics scrapes (telemetry.jsonl) and where they came from; none when off.
  std::vector<telemetry::Scrape> scrapes;
  std::string metrics_url;
  /// The GPU sampler's samples (telemetry.jsonl) and how it went; no sampler info when none ran.
  std::vector<telemetry::GpuSample> gpu_samples;
  std::optional<telemetry::GpuSamplerInfo> gpu_sampler;
  /// Several targets of one interleaved run shared the GPUs (no energy per token).
  bool gpu_shared = false;
  /// The measure phase's edges on the run clock (kNever: unknown).
  core::Nanos measure_start = core::kNever;
  core::Nanos measure_end = core::kNever;
  /// The environment record (telemetry/environment.h); null when none.
  nlohmann::json environment;
  /// Per client worker thread, its CPU clock readings over the measure phase (the Checks'
  /// client health; telemetry.jsonl lines of type "client_cpu").
  std::vector<std::vector<core::CpuSample>> client_cpu;
  /// A distributed run's ranks (distributed.json; distributed/merge.h); null for one process.
  nlohmann::json distributed;
};

/// Writes telemetry.jsonl in `dir`: the measure phase's edges ({"type":"phase",...}), the GPU
/// sampler ({"type":"gpu_sampler",...}), then the scrapes ({"type":"scrape",...}, each with the
/// URL) and the GPU samples ({"type":"gpu",...}) in time order, and each client worker's CPU
/// readings ({"type":"client_cpu",...}).
void write_telemetry(const std::string& dir, const RunNotes& notes);

/// Reads DIR/telemetry.jsonl back into the notes it holds; nothing when the file is absent. A
/// line without "type" is a scrape (as older runs wrote them); a type it does not know is
/// skipped. Throws std::runtime_error naming the line on a malformed one.
RunNotes read_telemetry(const std::string& dir);

/// Writes DIR/environment.json; reads it back (null when absent). Throw std::runtime_error
/// naming the file when it cannot be written or read.
void write_environment(const std::string& dir, const nlohmann::json& environment);
/// Writes a JSON document (indented, invalid UTF-8 replaced); reads one back, null when the file
/// is absent. Throw std::runtime_error naming the file when it cannot be written or read.
void write_json_file(const std::string& path, const nlohmann::json& document);
nlohmann::json read_json_file(const std::string& path);
nlohmann::json read_environment(const std::string& dir);

/// What a finished (or rebuilt) run produced.
struct RunOutputs {
  metrics::Summary summary;
  nlohmann::json summary_json;  ///< as written to summary.json
  std::string console;          ///< the tables printed to the terminal
};

/// Summarises `records` as `config` asks (percentiles, SLOs), writes DIR/summary.json and
/// DIR/report.txt (the console tables) and DIR/report.html (report/html_report.h), and returns the
/// summary with its console tables. A run over several replicas (config.replica_urls) adds
/// per-replica figures (report/replicas.h) to both. The same function serves `run` and `report`, so
/// a report rebuilt from requests.jsonl is identical to the run's own. Throws std::runtime_error
/// naming the file when it cannot be written, std::invalid_argument on a bad SLO item.
/// `notes.stopped` becomes a warning and tokenbench.stopped; `notes.scrapes` the server's account
/// (tokenbench.server, and the console's "Server" table); `notes.gpu_sampler` the GPU account
/// (tokenbench.gpu, the "GPU" block); `notes.environment` tokenbench.environment and the
/// "Environment" block.
RunOutputs write_run_outputs(const std::string& dir,
                             const std::vector<core::RequestRecord>& records,
                             const core::RunConfig& config, const RunNotes& notes = {});

/// Opens `path` for writing, truncated, without following a symbolic link at `path` (a link
/// planted there is refused, never written through). Throws std::runtime_error naming the path.
std::FILE* open_for_writing(const std::string& path);

/// True when DIR already holds a run's results (requests.jsonl, requests.jsonl.zst or
/// summary.json).
bool holds_results(const std::string& dir);

/// DIR's requests file: DIR/requests.jsonl when it is a file, else DIR/requests.jsonl.zst when
/// that is; "" when neither is.
std::string find_requests_file(const std::string& dir);

/// Writes `text` to `path` (replacing it). Throws std::runtime_error naming the path on failure.
void write_text_file(const std::string& path, const std::string& text);

/// Reads a whole file. Throws std::runtime_error naming the path when it cannot.
std::string read_text_file(const std::string& path);

}  // namespace tokenbench::report
