#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace tokenbench::workload {

// Importers of published agentic trace formats into job files (`tokenbench convert`,
// docs/WORKLOADS.md "Importing traces"): each trace becomes one job, its LLM calls the job's
// calls, with the dependencies and delays the trace's timeline shows.

/// How an import reads its traces.
struct ImportOptions {
  /// The most a call's delay may be, in milliseconds (a human's coffee break in a coding trace);
  /// negative: every delay as recorded.
  double max_delay_ms = -1;
  /// Where each job's line goes as soon as it is made (a file being written, so that a corpus of
  /// any size is never held); unset: kept in ImportedJobs::lines.
  std::function<void(const std::string&)> write;
};

/// A call as an importer reads it from a trace: its id, when it was sent and when it ended
/// (seconds on the trace's clock), and the calls it waits for (indices in its job's calls).
struct TracedCall {
  std::string id;
  double start = 0;
  double end = 0;
  std::vector<std::size_t> after;
};

/// Writes a call's "id" and "after" (its dependencies' ids, `calls(i)` being call i); returns when
/// the calls it waits for had all ended on the trace's clock, or `origin` (the job's start) when
/// it waits for none: what its delay counts from.
double write_call_head(nlohmann::ordered_json& call, const TracedCall& c,
                       const std::function<const TracedCall&(std::size_t)>& calls, double origin);

/// What an import made: the job file's lines, in the order the traces came, and what the user
/// should know about how they were read (one line each).
struct ImportedJobs {
  std::vector<std::string> lines;  ///< without ImportOptions::write
  std::size_t jobs = 0;
  std::vector<std::string> notes;
  std::size_t calls = 0;
  std::size_t delays_capped = 0;
  double longest_delay_ms = 0;  ///< after the cap
  std::size_t renamed = 0;

  /// Adds one job: renamed "NAME#2", "NAME#3", ... when an earlier job has its name (two files
  /// of one trace), checked by parse_job (so that every line written reads back), then dumped.
  /// Throws std::runtime_error naming the job and call when it is not a valid job.
  void add(nlohmann::ordered_json job, const ImportOptions& options);
  /// A delay as the job file takes it: at least 0, at most the cap (counted when it cuts).
  double delay(double ms, const ImportOptions& options);

 private:
  std::map<std::string, std::size_t> names_;
};

/// The trace files to read: each input as it is when a file, a directory's *.json and *.jsonl
/// files (sorted by name) when a directory. Throws std::runtime_error for an input that does not
/// exist or a directory without trace files.
std::vector<std::string> trace_files(const std::vector<std::string>& inputs);

/// Hands each JSON document of a trace file to `take`, one at a time (a corpus of any size is
/// never held whole): the whole file when it is one document (pretty-printed or not; `line` 0),
/// else one a line (JSON Lines; `line` from 1). Throws std::runtime_error naming the file and
/// line.
void read_trace_documents(
    const std::string& path,
    const std::function<void(nlohmann::json&& document, std::size_t line)>& take);

/// Weka KV-cache-tester traces (callanjfox/kv-cache-tester; the SemiAnalysis cc-traces-weka
/// corpora that inference-perf and AIPerf replay): one JSON object per trace, with `requests`
/// (type "n"/"s" calls of the main agent, "subagent" entries holding a sub-agent's calls), each
/// call's `hash_ids` of `block_size` tokens, `in`, `out`, `t` and `api_time`. Throws
/// std::runtime_error naming the file and trace.
ImportedJobs import_weka(const std::vector<std::string>& files, const ImportOptions& options);

/// OpenTelemetry traces of LLM calls, per the GenAI semantic conventions (`gen_ai.*` span
/// attributes): OTLP JSON (`resourceSpans`, as the collector's file exporter writes it), or a
/// document with a `spans` array (inference-perf's trace files), or an array of spans; one
/// document a file or a line. Spans are grouped by trace id, a job each. Throws
/// std::runtime_error naming the file and trace.
ImportedJobs import_otel(const std::vector<std::string>& files, const ImportOptions& options);

}  // namespace tokenbench::workload
