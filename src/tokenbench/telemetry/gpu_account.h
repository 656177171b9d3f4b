#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "tokenbench/core/clock.h"
#include "tokenbench/metrics/summary.h"
#include "tokenbench/telemetry/gpu_sample.h"
#include "tokenbench/telemetry/server_account.h"

namespace tokenbench::telemetry {

/// One GPU over the measure phase: mean and max of each quantity over its samples between the
/// phase's start and end (both included), and its energy. Plain data.
struct GpuDeviceAccount {
  int index = 0;
  std::string name;
  std::string uuid;
  int samples = 0;  ///< samples in the measure phase
  std::optional<GaugeStat> util_pct, mem_used_mib, power_w, sm_clock_mhz, temp_c;
  std::optional<double> mem_total_mib;  ///< the largest total reported
  std::optional<double> energy_j;       ///< integral of its power over the phase (integrate_power)
};

/// What the GPU sampler saw over one run: its source and failures, each GPU's figures, and the
/// energy over the measure phase set against the client's output tokens and requests.
/// docs/TELEMETRY.md and docs/METRICS.md define each figure.
struct GpuAccount {
  GpuSamplerInfo sampler;
  int samples = 0;                     ///< every sample of the run, all GPUs
  bool measured = false;               ///< both edges of the measure phase are known
  double measure_s = 0;                ///< the measure phase's length (its edges), when measured
  std::vector<GpuDeviceAccount> gpus;  ///< by index
  std::optional<double> energy_j;      ///< summed over the GPUs that report power
  /// The share of the measure phase the power samples span (the least of the GPUs'), 0 to 1.
  std::optional<double> energy_coverage;
  std::optional<double> j_per_output_token;  ///< energy / output tokens of successful requests
  std::optional<double> j_per_request;       ///< energy / successful requests
  /// Several targets shared these GPUs in one interleaved run: energy per token and per request
  /// would mix them, so they are left out.
  bool shared = false;
};

/// The energy (joules) of one GPU's power readings over [from, to]: the integral of the straight
/// lines between consecutive samples (the trapezoid rule), clipped to the interval; the part of
/// it outside the samples' span is not counted. `covered_s` (optional) gets the seconds counted.
/// `points` are (stamp, watts) in time order. Pure.
double integrate_power(const std::vector<std::pair<core::Nanos, double>>& points, core::Nanos from,
                       core::Nanos to, double* covered_s = nullptr);

/// The account of a run's GPU `samples` (in time order) between `measure_start` and
/// `measure_end` (kNever when unknown: then every sample counts, and no energy), against the
/// client's `summary`. `shared`: see GpuAccount::shared. Pure.
GpuAccount gpu_account_for(const std::vector<GpuSample>& samples, const GpuSamplerInfo& sampler,
                           core::Nanos measure_start, core::Nanos measure_end,
                           const metrics::Summary& summary, bool shared = false);

/// summary.json's tokenbench.gpu.
nlohmann::json gpu_account_to_json(const GpuAccount& account);

/// The console's "GPU" block: one line per GPU and the energy line.
std::string render_gpu_account(const GpuAccount& account);

/// The sampler's line of telemetry.jsonl ({"type":"gpu_sampler",...}), and back (throws
/// std::runtime_error on a malformed one).
nlohmann::json gpu_sampler_to_json(const GpuSamplerInfo& info);
GpuSamplerInfo gpu_sampler_from_json(const nlohmann::json& object);

}  // namespace tokenbench::telemetry
