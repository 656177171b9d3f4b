#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tokenbench/core/clock.h"
#include "tokenbench/telemetry/prometheus.h"

namespace tokenbench::telemetry {

/// Where a run's GPU samples came from and how sampling went. Plain data.
struct GpuSamplerInfo {
  std::string source;  ///< "nvidia-smi" or "dcgm"
  std::string url;     ///< the DCGM exporter's /metrics (dcgm only)
  double interval_s = 1.0;
  int failed_samples = 0;   ///< malformed lines, failed scrapes, an early exit of nvidia-smi
  std::string first_error;  ///< one line; "" when none failed
};

/// One reading of one GPU: when (run clock, the origin of requests.jsonl), which GPU, and what it
/// said. A quantity the source does not give ("[N/A]", "[Not Supported]", a metric not exported)
/// is absent. Plain data.
struct GpuSample {
  core::Nanos t = core::kNever;
  int index = 0;       ///< the GPU's index on its host (nvidia-smi's index, DCGM's `gpu` label)
  std::string uuid;    ///< "GPU-..." when known
  std::string name;    ///< "NVIDIA H100 80GB HBM3"
  std::string driver;  ///< the driver version, when the source gives it
  std::optional<double> util_pct;       ///< utilisation.gpu, 0 to 100
  std::optional<double> mem_used_mib;   ///< framebuffer memory in use
  std::optional<double> mem_total_mib;  ///< framebuffer memory in all
  std::optional<double> power_w;        ///< board power draw
  std::optional<double> sm_clock_mhz;   ///< SM clock
  std::optional<double> temp_c;         ///< GPU temperature
};

/// The columns tokenbench asks nvidia-smi for, in the order parse_nvidia_smi_line reads them.
inline constexpr const char* kNvidiaSmiQuery =
    "index,uuid,name,utilization.gpu,memory.used,memory.total,power.draw,clocks.sm,"
    "temperature.gpu,driver_version";

/// The outcome of reading one line of nvidia-smi's CSV: a sample, or why the line is not one.
struct GpuLineResult {
  std::optional<GpuSample> sample;
  std::string error;  ///< when !sample: one line naming the problem
};

/// Parses one line of `nvidia-smi --query-gpu=<kNvidiaSmiQuery> --format=csv,noheader,nounits`
/// ("0, GPU-..., NVIDIA H100, 87, 40512, 81559, 512.34, 1980, 61, 550.54.15"), stamping it `t`.
/// The driver column may be missing (9 columns); extra columns are taken as commas in the name.
/// "[N/A]", "[Not Supported]", "N/A" and empty values are absent values; a line without an
/// integer index, with too few columns or a value that is not a number is an error. Pure.
GpuLineResult parse_nvidia_smi_line(std::string_view line, core::Nanos t);

/// The metric names of NVIDIA's DCGM exporter that tokenbench reads (docs/TELEMETRY.md).
inline constexpr const char* kDcgmUtil = "DCGM_FI_DEV_GPU_UTIL";
inline constexpr const char* kDcgmFbUsed = "DCGM_FI_DEV_FB_USED";
inline constexpr const char* kDcgmFbFree = "DCGM_FI_DEV_FB_FREE";
inline constexpr const char* kDcgmPower = "DCGM_FI_DEV_POWER_USAGE";
inline constexpr const char* kDcgmSmClock = "DCGM_FI_DEV_SM_CLOCK";
inline constexpr const char* kDcgmTemp = "DCGM_FI_DEV_GPU_TEMP";

/// One sample per GPU found in a DCGM exporter's exposition, stamped `t`: the GPU by the label
/// `gpu` (its index; a series without one is skipped), with `UUID`, `modelName` and
/// `DCGM_FI_DRIVER_VERSION` where present; memory total is FB_USED + FB_FREE. In index order.
/// Pure.
std::vector<GpuSample> gpu_samples_from_dcgm(const Exposition& e, core::Nanos t);

/// One line of telemetry.jsonl: {"type":"gpu","t_ns":...,"gpu":0,"name":...,"util_pct":...}
/// (absent values are null), and back. gpu_sample_from_json throws std::runtime_error on a
/// malformed line.
nlohmann::json gpu_sample_to_json(const GpuSample& sample);
GpuSample gpu_sample_from_json(const nlohmann::json& object);

}  // namespace tokenbench::telemetry
