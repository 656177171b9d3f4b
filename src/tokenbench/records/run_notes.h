#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "tokenbench/core/clock.h"
#include "tokenbench/core/read_lag.h"
#include "tokenbench/telemetry/gpu_sample.h"
#include "tokenbench/telemetry/probe_account.h"
#include "tokenbench/telemetry/scrape.h"

// What a run knows beside its records, and the results directory's files that hold it:
// telemetry.jsonl and environment.json.
namespace tokenbench::records {

/// What a run knows beside its records.
struct RunNotes {
  /// Why a guard (--fail-fast, --max-error-rate) ended the run early; "" when it ran to its end.
  std::string stopped;
  /// The servers' /metrics scrapes (telemetry.jsonl), one source per URL; none when off.
  std::vector<telemetry::ScrapeSource> scrape_sources;
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
  /// Per client worker thread, the read lag of its kernel-stamped reads over the measure phase
  /// (telemetry.jsonl lines of type "read_lag"); none when no read was kernel-stamped, or the
  /// run was distributed (its ranks do not send theirs).
  std::vector<core::ReadLagLog> read_lag;
  /// --probe-rate: the probes sent beside the load ({"type":"probe"} lines, after a
  /// {"type":"probe_sender","rate":R}); rate 0 when none were.
  double probe_rate = 0;
  std::vector<telemetry::ProbeSample> probes;
  /// A distributed run's ranks (distributed.json; distributed/merge.h); null for one process.
  nlohmann::json distributed;
};

/// Writes telemetry.jsonl in `dir`: the measure phase's edges ({"type":"phase",...}), the GPU
/// sampler ({"type":"gpu_sampler",...}), then the scrapes ({"type":"scrape",...}, each with its
/// source's URL, name and role) and the GPU samples ({"type":"gpu",...}) in time order, and each
/// client worker's CPU readings ({"type":"client_cpu",...}) and read lag ({"type":"read_lag",...}:
/// its histogram's buckets and its windows), then the probes (--probe-rate:
/// {"type":"probe_sender"} and one {"type":"probe",...} each).
void write_telemetry(const std::string& dir, const RunNotes& notes);

/// Reads DIR/telemetry.jsonl back into the notes it holds; nothing when the file is absent. A
/// line without "type" is a scrape (as older runs wrote them); scrapes group by URL and name; a
/// type it does not know is skipped. Throws std::runtime_error naming the line on a malformed one.
RunNotes read_telemetry(const std::string& dir);

/// Writes DIR/environment.json; reads it back (null when absent). Throw std::runtime_error
/// naming the file when it cannot be written or read.
void write_environment(const std::string& dir, const nlohmann::json& environment);
nlohmann::json read_environment(const std::string& dir);

}  // namespace tokenbench::records
