#include "tokenbench/report/summary_json.h"

#include <fmt/format.h>

#include <cmath>
#include <string_view>

#include "tokenbench/core/clock.h"
#include "tokenbench/core/secret_fields.h"
#include "tokenbench/metrics/cost.h"
#include "tokenbench/metrics/summary_builder.h"

namespace tokenbench::report {
namespace {

using nlohmann::json;

json number(double v) { return defined_or_null(v); }

// vLLM writes datetime.now().strftime("%Y%m%d-%H%M%S"); derive it from the ISO 8601 label
// ("2025-01-02T03:04:05Z" -> "20250102-030405"), or keep the label when it has another shape.
json rate_value(double rate) {
  if (std::isinf(rate) || rate <= 0.0) return "inf";
  return rate;
}

void add_vllm_metric(json& out, std::string_view name, const metrics::Distribution& d,
                     const std::vector<double>& percentiles) {
  out[fmt::format("mean_{}_ms", name)] = number(d.mean);
  out[fmt::format("median_{}_ms", name)] = number(d.median);
  out[fmt::format("std_{}_ms", name)] = number(d.std);
  for (double p : percentiles) {
    out[fmt::format("p{}_{}_ms", percentile_word(p), name)] = number(d.at(p));
  }
}

json slo_to_json(const metrics::SloSpec& slo) {
  json out = json::object();
  if (slo.ttft_ms) out["ttft_ms"] = *slo.ttft_ms;
  if (slo.tpot_ms) out["tpot_ms"] = *slo.tpot_ms;
  if (slo.itl_ms) out["itl_ms"] = *slo.itl_ms;
  if (slo.e2el_ms) out["e2el_ms"] = *slo.e2el_ms;
  if (slo.job_ms) out["job_ms"] = *slo.job_ms;
  return out;
}

json cache_to_json(const metrics::CacheTally& c) {
  return json{{"requests_reported", c.reported},
              {"prompt_tokens", c.prompt_tokens},
              {"cached_tokens", c.cached_tokens},
              {"cache_write_tokens", c.cache_write_tokens},
              {"hit_rate", number(c.hit_rate())},
              {"ideal", c.ideal_reported > 0 ? json{{"requests", c.ideal_reported},
                                                    {"prompt_tokens", c.ideal_prompt_tokens},
                                                    {"cached_tokens", c.ideal_cached_tokens},
                                                    {"hit_rate", number(c.ideal_hit_rate())}}
                                             : json(nullptr)}};
}

json call_groups_to_json(const std::vector<metrics::CallGroupFigures>& groups) {
  json out = json::object();
  for (const auto& g : groups) {
    out[g.key] = json{{"completed", g.completed},
                      {"ttft_ms", distribution_to_json(g.ttft_ms)},
                      {"tpot_ms", distribution_to_json(g.tpot_ms)},
                      {"cache_hit_rate", number(g.cache.hit_rate())},
                      {"ideal_cache_hit_rate", number(g.cache.ideal_hit_rate())}};
  }
  return out;
}

// An agentic job run's figures (docs/METRICS.md, "Jobs"); its two distributions go with the
// others, so that --slo and compare name them as p95_job_ms, median_final_ttft_ms, ...
void add_jobs(json& tb, const metrics::JobFigures& f) {
  tb["distributions"]["job_ms"] = distribution_to_json(f.job_ms);
  tb["distributions"]["final_ttft_ms"] = distribution_to_json(f.final_ttft_ms);
  json critical{{"mean_llm_ms", number(f.mean_critical_llm_ms)},
                {"mean_delay_ms", number(f.mean_critical_delay_ms)},
                {"mean_other_ms", number(f.mean_critical_other_ms)},
                {"llm_share", number(f.critical_llm_share)}};
  json jobs{{"jobs", f.jobs},
            {"completed", f.completed},
            {"failed", f.failed},
            {"incomplete", f.incomplete},
            {"jobs_per_s", number(f.jobs_per_s)},
            {"mean_jobs_in_progress", number(f.mean_jobs_in_progress)},
            {"jobs_per_hour_per_user", number(f.jobs_per_hour_per_user)},
            {"mean_calls", number(f.mean_calls)},
            {"mean_input_tokens", number(f.mean_input_tokens)},
            {"mean_output_tokens", number(f.mean_output_tokens)},
            {"mean_cached_tokens", number(f.mean_cached_tokens)},
            {"critical_path", std::move(critical)},
            {"by_depth", call_groups_to_json(f.by_depth)},
            {"by_call", call_groups_to_json(f.by_call)},
            {"call_ids_capped", f.call_ids_capped}};
  if (f.slo_job_ms) {
    jobs["slo_job_ms"] = *f.slo_job_ms;
    jobs["good_jobs"] = f.good_jobs;
    jobs["job_goodput"] = number(f.job_goodput);
  }
  tb["jobs"] = std::move(jobs);
}

json config_to_json(const core::RunConfig& c) {
  return json{
      {"base_url", core::redact_query(c.base_url)},
      {"endpoint", core::redact_query(c.endpoint)},
      {"api", core::to_string(c.api)},
      {"max_tokens_field", c.max_tokens_field},
      {"batch_size", c.batch_size},
      {"model", c.model},
      {"stream", c.stream},
      {"timeout_s", c.timeout_s},
      {"connect_timeout_s", c.connect_timeout_s},
      {"ttft_timeout_s", c.ttft_timeout_s},
      {"stall_timeout_s", c.stall_timeout_s},
      {"retries", c.retries},
      {"max_concurrency", c.max_concurrency},
      {"request_rate", rate_value(c.request_rate)},
      {"burstiness", c.burstiness},
      {"arrival", core::to_string(c.arrival)},
      {"num_prompts", c.num_prompts},
      {"duration_s", c.duration_s},
      {"warmup", c.warmup},
      {"seed", c.seed},
      {"workers", c.workers},
      {"dataset", core::to_string(c.dataset)},
      {"dataset_path", c.dataset_path},
      {"input_len", c.input_len},
      {"output_len", c.output_len},
      {"range_ratio", c.range_ratio},
      {"ignore_eos", c.ignore_eos},
      {"percentiles", c.percentiles},
      {"goodput", c.goodput},
      {"extra_headers", c.headers.size()},
      {"sim_time_scale", c.sim_time_scale},
      {"sim_time", c.sim_time},
  };
}

}  // namespace

std::string percentile_word(double p) {
  if (p == std::floor(p)) return fmt::format("{}", static_cast<long long>(p));
  return fmt::format("{}", p);
}

json distribution_to_json(const metrics::Distribution& d) {
  json percentiles = json::object();
  for (const auto& [p, value] : d.percentiles)
    percentiles["p" + percentile_word(p)] = number(value);
  return json{
      {"count", d.count},
      {"mean", number(d.mean)},
      {"std", number(d.std)},
      {"min", number(d.min)},
      {"max", number(d.max)},
      {"median", number(d.median)},
      {"percentiles", std::move(percentiles)},
      // 0: every value was kept and the percentiles are exact; else their relative error
      // bound (the figure passed metrics::kDefaultExactLimit values: a quantile sketch).
      {"relative_error", d.relative_error},
  };
}

json summary_to_json(const metrics::Summary& s, const core::RunConfig& config) {
  const std::string backend = core::to_string(config.api);
  json out = json::object();
  out["date"] = core::compact_timestamp(config.started_at);
  out["backend"] = backend;
  out["endpoint_type"] = backend;
  out["model_id"] = config.model;
  out["num_prompts"] = config.num_prompts;
  out["request_rate"] = rate_value(config.request_rate);
  out["burstiness"] = config.burstiness;
  out["max_concurrency"] =
      config.max_concurrency > 0 ? json(config.max_concurrency) : json(nullptr);
  out["duration"] = number(s.duration_s);
  out["completed"] = s.completed;
  out["failed"] = s.failed;
  out["total_input_tokens"] = s.total_input_tokens;
  out["total_output_tokens"] = s.total_output_tokens;
  out["request_throughput"] = number(s.request_throughput);
  out["request_goodput"] = s.slo.empty() ? json(nullptr) : number(s.request_goodput);
  out["output_throughput"] = number(s.output_throughput);
  out["total_token_throughput"] = number(s.total_token_throughput);
  add_vllm_metric(out, "ttft", s.ttft_ms, s.percentiles);
  add_vllm_metric(out, "tpot", s.tpot_ms, s.percentiles);
  add_vllm_metric(out, "itl", s.itl_ms, s.percentiles);
  add_vllm_metric(out, "e2el", s.e2el_ms, s.percentiles);
  out["max_output_tokens_per_s"] = number(s.vllm_peaks.max_output_tokens_per_s);
  out["max_concurrent_requests"] = s.vllm_peaks.max_concurrent_requests;
  // What the work cost (--gpu-hour-price): always present, null without a price, so that --slo
  // and search may name them.
  const auto cost = metrics::cost_figures(s, config.gpu_hour_price, config.gpus);
  out["usd_per_million_output_tokens"] =
      cost ? number(cost->usd_per_million_output_tokens) : json(nullptr);
  out["usd_per_million_total_tokens"] =
      cost ? number(cost->usd_per_million_total_tokens) : json(nullptr);
  out["usd_per_request"] = cost ? number(cost->usd_per_request) : json(nullptr);

  json errors = json::object();
  for (const auto& [cls, n] : s.errors) errors[cls] = n;
  json statuses = json::object();
  for (const auto& [status, n] : s.http_status) statuses[std::to_string(status)] = n;
  json examples = json::object();
  for (const auto& [cls, message] : s.error_examples) examples[cls] = message;

  json tb = json::object();
  tb["started_at"] = config.started_at;
  tb["requests"] =
      json{{"measured", s.measured}, {"completed", s.completed},       {"failed", s.failed},
           {"warmup", s.warmup},     {"cooldown", s.cooldown},         {"dropped", s.dropped},
           {"streamed", s.streamed}, {"non_streamed", s.non_streamed}, {"canceled", s.canceled}};
  if (s.nonstream_sample > 0) tb["requests"]["nonstream_sample"] = s.nonstream_sample;
  tb["errors"] = json{{"by_class", std::move(errors)},
                      {"by_http_status", std::move(statuses)},
                      {"examples", std::move(examples)}};
  json retried = json::object();
  for (const auto& [cls, n] : s.retried_by_class) retried[cls] = n;
  tb["retries"] = json{{"retried_attempts", s.retried_attempts},
                       {"by_class", std::move(retried)},
                       {"completed_after_retry", s.completed_after_retry}};
  tb["duration_s"] = number(s.duration_s);
  tb["chunk_usage_requests"] = s.chunk_usage_requests;
  tb["goodput"] =
      json{{"slo", slo_to_json(s.slo)},
           {"good_completed", s.slo.empty() ? json(nullptr) : json(s.good_completed)},
           {"request_goodput", s.slo.empty() ? json(nullptr) : number(s.request_goodput)}};
  tb["distributions"] = json{
      {"ttft_ms", distribution_to_json(s.ttft_ms)},
      {"tpot_ms", distribution_to_json(s.tpot_ms)},
      {"itl_ms", distribution_to_json(s.itl_ms)},
      {"itl_per_token_ms", distribution_to_json(s.itl_per_token_ms)},
      {"tokens_per_chunk", distribution_to_json(s.tokens_per_chunk)},
      {"e2el_ms", distribution_to_json(s.e2el_ms)},
      {"decode_tps", distribution_to_json(s.decode_tps)},
      {"output_tps", distribution_to_json(s.output_tps)},
      {"total_tps", distribution_to_json(s.total_tps)},
      {"queue_time_ms", distribution_to_json(s.queue_time_ms)},
      {"ttft_from_intended_ms", distribution_to_json(s.ttft_from_intended_ms)},
      {"e2el_from_intended_ms", distribution_to_json(s.e2el_from_intended_ms)},
      {"input_tokens", distribution_to_json(s.input_tokens)},
      {"output_tokens", distribution_to_json(s.output_tokens)},
  };
  if (s.reasoning_requests > 0 || s.reasoning_tokens_reported > 0) {
    tb["distributions"]["ttfr_ms"] = distribution_to_json(s.ttfr_ms);
    tb["distributions"]["ttfa_ms"] = distribution_to_json(s.ttfa_ms);
    tb["reasoning"] = json{{"requests", s.reasoning_requests},
                           {"total_reasoning_tokens", s.total_reasoning_tokens},
                           {"requests_with_reasoning_tokens", s.reasoning_tokens_reported}};
  }
  if (s.total_inputs > 0 && config.api != core::ApiKind::kEmbeddings) {
    tb["rerank"] = json{{"documents_per_request", config.documents},
                        {"total_documents", s.total_inputs},
                        {"document_throughput", number(s.input_throughput)},
                        {"input_token_throughput", number(s.input_token_throughput)}};
  } else if (s.total_inputs > 0) {
    tb["embeddings"] = json{{"total_inputs", s.total_inputs},
                            {"input_throughput", number(s.input_throughput)},
                            {"input_token_throughput", number(s.input_token_throughput)}};
  }
  if (!s.by_turn.empty()) {
    json turns = json::array();
    for (const auto& f : s.by_turn) {
      turns.push_back(json{{"turn", f.turn},
                           {"completed", f.completed},
                           {"mean_input_tokens", number(f.mean_input_tokens)},
                           {"cache_hit_rate", number(f.cache.hit_rate())},
                           {"ideal_cache_hit_rate", number(f.cache.ideal_hit_rate())},
                           {"ttft_ms", distribution_to_json(f.ttft_ms)},
                           {"e2el_ms", distribution_to_json(f.e2el_ms)}});
    }
    tb["sessions"] = json{{"sessions", s.sessions}, {"by_turn", std::move(turns)}};
  }
  if (s.jobs) add_jobs(tb, *s.jobs);
  if (cost) {
    tb["cost"] =
        json{{"gpu_hour_price", cost->gpu_hour_price},
             {"gpus", cost->gpus},
             {"usd_per_hour", cost->usd_per_hour},
             {"usd_per_million_output_tokens", number(cost->usd_per_million_output_tokens)},
             {"usd_per_million_total_tokens", number(cost->usd_per_million_total_tokens)},
             {"usd_per_request", number(cost->usd_per_request)},
             {"usd_per_job", number(cost->usd_per_job)}};
  }
  tb["prefix_cache"] = cache_to_json(s.cache);
  tb["token_sources"] = json{{"prompt", s.prompt_sources}, {"output", s.output_sources}};
  tb["max_concurrency_observed"] = s.max_concurrency_observed;
  tb["vllm_peaks_exact"] = s.vllm_peaks.exact;
  tb["percentiles"] = s.percentiles;
  tb["percentiles_exact_up_to"] = json{{"per_request", metrics::kDefaultExactLimit},
                                       {"per_gap", metrics::kDefaultGapExactLimit}};
  tb["warnings"] = s.warnings;
  tb["config"] = config_to_json(config);
  out["tokenbench"] = std::move(tb);
  return out;
}

json defined_or_null(double v) { return metrics::is_defined(v) ? json(v) : json(nullptr); }

}  // namespace tokenbench::report
