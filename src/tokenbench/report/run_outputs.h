#pragma once

#include <cstdio>
#include <functional>
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
/// Room kept for the summary while a run measures (make_reserve): a full disk (requests.jsonl
/// grew into it) still takes summary.json and report.txt. Removed before they are written.
inline constexpr const char* kReserveFile = ".summary-reserve";
inline constexpr long kReserveBytes = 256 * 1024;
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
  /// Why summary.json could not be written (a full disk: "cannot write DIR/summary.json: No space
  /// left on device"); "" when it was. The caller then keeps summary_json some other way.
  std::string not_saved;
};

/// Summarises `records` as `config` asks (percentiles, SLOs), writes DIR/summary.json first, then
/// DIR/report.txt (the console tables) and DIR/report.html (report/html_report.h), and returns the
/// summary with its console tables. A run over several replicas (config.replica_urls) adds
/// per-replica figures (report/replicas.h) to both. The same function serves `run` and `report`, so
/// a report rebuilt from requests.jsonl is identical to the run's own. A summary.json that cannot
/// be written is said in RunOutputs::not_saved; any other file that cannot be, in a warning on
/// stderr (write_optional_file). Throws std::invalid_argument on a bad SLO item.
/// `notes.stopped` becomes a warning and tokenbench.stopped; `notes.scrapes` the server's account
/// (tokenbench.server, and the console's "Server" table); `notes.gpu_sampler` the GPU account
/// (tokenbench.gpu, the "GPU" block); `notes.environment` tokenbench.environment and the
/// "Environment" block.
RunOutputs write_run_outputs(const std::string& dir,
                             const std::vector<core::RequestRecord>& records,
                             const core::RunConfig& config, const RunNotes& notes = {});

/// Runs `write` (which writes an optional file and throws, naming the file, when it cannot), or
/// says on stderr in one warning why it could not: an optional file never ends a run. True when
/// written.
bool write_optional(const std::function<void()>& write);
/// write_optional of the file `path`, its text made by `text` (which may throw too).
bool write_optional_file(const std::string& path, const std::function<std::string()>& text);

/// Keeps kReserveBytes of disk in DIR/kReserveFile (fallocate; nothing when there is no room),
/// and gives them back (removes the file, if any). The run makes it when it starts measuring;
/// write_run_outputs gives it back right before it writes the summary.
void make_reserve(const std::string& dir);
void release_reserve(const std::string& dir);

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

/// Creates directory `dir` and its missing parents; appends each one it created to `created`
/// (outermost first). Throws std::runtime_error naming the directory when it cannot.
void make_directories(const std::string& dir, std::vector<std::string>& created);

/// write_text_file, and appends `path` to `created` when no file was there before.
void write_new_file(const std::string& path, const std::string& text,
                    std::vector<std::string>& created);

/// Undoes make_directories and write_new_file: removes the paths of `created` in reverse order,
/// a directory only when it is empty. Never throws.
void remove_created(const std::vector<std::string>& created);

/// Reads a whole file. Throws std::runtime_error naming the path when it cannot.
std::string read_text_file(const std::string& path);

}  // namespace tokenbench::report
