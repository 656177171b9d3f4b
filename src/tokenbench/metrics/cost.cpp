#include "tokenbench/metrics/cost.h"

#include "tokenbench/metrics/percentile.h"

namespace tokenbench::metrics {
namespace {

// USD per unit of work done at `per_s` units a second, `per_hour` USD an hour.
double per_unit(double per_hour, double per_s, double units = 1) {
  return is_defined(per_s) && per_s > 0 ? per_hour / 3600.0 / per_s * units : kUndefined;
}

}  // namespace

std::optional<CostFigures> cost_figures(const Summary& s, double gpu_hour_price, double gpus) {
  if (!(gpu_hour_price > 0) || !(gpus > 0)) return std::nullopt;
  CostFigures c;
  c.gpu_hour_price = gpu_hour_price;
  c.gpus = gpus;
  c.usd_per_hour = gpu_hour_price * gpus;
  c.usd_per_million_output_tokens = per_unit(c.usd_per_hour, s.output_throughput, 1e6);
  c.usd_per_million_total_tokens = per_unit(c.usd_per_hour, s.total_token_throughput, 1e6);
  c.usd_per_request = per_unit(c.usd_per_hour, s.request_throughput);
  if (s.jobs) c.usd_per_job = per_unit(c.usd_per_hour, s.jobs->jobs_per_s);
  return c;
}

}  // namespace tokenbench::metrics
