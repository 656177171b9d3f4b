#pragma once

#include <optional>

#include "tokenbench/metrics/summary.h"

namespace tokenbench::metrics {

/// What the run's work cost on the deployment's GPUs (docs/METRICS.md, "Cost"): the deployment's
/// price per hour (--gpu-hour-price x --gpus) over the run's throughputs, so per unit of work at
/// the load the run offered. In model time under --sim-time, as the throughputs are.
struct CostFigures {
  double gpu_hour_price = 0;  ///< USD per GPU-hour
  double gpus = 1;
  double usd_per_hour = 0;  ///< gpu_hour_price x gpus
  double usd_per_million_output_tokens = kUndefined;
  double usd_per_million_total_tokens = kUndefined;  ///< input and output tokens
  double usd_per_request = kUndefined;               ///< per completed request
  double usd_per_job = kUndefined;                   ///< per completed job (job runs)
};

/// The cost figures of `s` at `gpu_hour_price` USD per GPU-hour on `gpus` GPUs; nullopt without a
/// price (0). A figure whose throughput is 0 or undefined is undefined.
std::optional<CostFigures> cost_figures(const Summary& s, double gpu_hour_price, double gpus);

}  // namespace tokenbench::metrics
