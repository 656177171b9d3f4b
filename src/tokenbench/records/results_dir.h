#pragma once

#include <cstdio>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

// A results directory's files and the helpers that write them safely: the file names, the
// reserve kept for the summary, optional files, JSON and text files, and undoing what a refused
// run made. Nothing here renders; report/ does (report/run_outputs.h).
namespace tokenbench::records {

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

/// Writes a JSON document (indented, invalid UTF-8 replaced); reads one back, null when the file
/// is absent. Throw std::runtime_error naming the file when it cannot be written or read.
void write_json_file(const std::string& path, const nlohmann::json& document);
nlohmann::json read_json_file(const std::string& path);

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

}  // namespace tokenbench::records
