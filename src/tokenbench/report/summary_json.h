#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "tokenbench/core/run_config.h"
#include "tokenbench/metrics/percentile.h"
#include "tokenbench/metrics/summary.h"

namespace tokenbench::report {

/// vLLM's key word for percentile p: "99" for 99, "99.9" for 99.9 (`str(int(p)) if int(p) == p
/// else str(p)` in vllm bench serve).
std::string percentile_word(double p);

/// A distribution as a JSON object: count, mean, std, min, max, median and percentiles
/// {"p50": ...}; undefined values are null.
nlohmann::json distribution_to_json(const metrics::Distribution& distribution);

/// summary.json. Top-level keys are those of `vllm bench serve --save-result` (date, backend,
/// endpoint_type, model_id, num_prompts, request_rate ("inf" when unlimited), burstiness,
/// max_concurrency (null when unlimited), duration, completed, failed, total_input_tokens,
/// total_output_tokens, request_throughput, request_goodput (null without SLOs),
/// output_throughput, total_token_throughput and {mean,median,std,pN}_{ttft,tpot,itl,e2el}_ms for
/// each of summary.percentiles), so that existing scripts keep working; undefined figures are
/// null. The nested "tokenbench" object holds every distribution, errors, token sources, queue
/// time, observed concurrency, warnings and a summary of the configuration (no secrets: no header
/// values, no request body).
nlohmann::json summary_to_json(const metrics::Summary& summary, const core::RunConfig& config);

/// A figure as summary.json writes it: the number, or null when undefined.
nlohmann::json defined_or_null(double v);

}  // namespace tokenbench::report
