#include "tokenbench/telemetry/server_series.h"

#include <initializer_list>

namespace tokenbench::telemetry {
namespace {

// The first of `names` the exposition has, summed over its series.
std::optional<double> first_of(const Exposition& e, std::initializer_list<std::string_view> names) {
  for (const std::string_view n : names) {
    if (auto v = sum_of(e, n)) return v;
  }
  return std::nullopt;
}

std::optional<Histogram> first_histogram(const Exposition& e,
                                         std::initializer_list<std::string_view> names) {
  for (const std::string_view n : names) {
    if (auto h = histogram_of(e, n)) return h;
  }
  return std::nullopt;
}

std::optional<double> percent(std::optional<double> ratio) {
  if (ratio) *ratio *= 100;
  return ratio;
}

bool has_prefix(const Exposition& e, std::string_view prefix) {
  for (const auto& f : e.families) {
    if (f.name.rfind(prefix, 0) == 0) return true;
  }
  return false;
}

}  // namespace

std::string_view to_string(ServerKind kind) { return kServerKindNames.name(kind); }

ServerSnapshot map_server_metrics(const Exposition& e) {
  ServerSnapshot s;
  if (has_prefix(e, "vllm:")) {
    s.kind = ServerKind::kVllm;
    s.running = first_of(e, {"vllm:num_requests_running"});
    s.waiting = first_of(e, {"vllm:num_requests_waiting"});
    s.kv_cache_usage_pct =
        percent(first_of(e, {"vllm:kv_cache_usage_perc", "vllm:gpu_cache_usage_perc"}));
    s.preemptions = first_of(e, {"vllm:num_preemptions_total", "vllm:num_preemptions"});
    s.prompt_tokens = first_of(e, {"vllm:prompt_tokens_total", "vllm:prompt_tokens"});
    s.generation_tokens = first_of(e, {"vllm:generation_tokens_total", "vllm:generation_tokens"});
    s.prefix_cache_hits =
        first_of(e, {"vllm:prefix_cache_hits_total", "vllm:gpu_prefix_cache_hits_total",
                     "vllm:prefix_cache_hits"});
    s.prefix_cache_queries =
        first_of(e, {"vllm:prefix_cache_queries_total", "vllm:gpu_prefix_cache_queries_total",
                     "vllm:prefix_cache_queries"});
    s.requests_finished = first_of(e, {"vllm:request_success_total", "vllm:request_success"});
    s.ttft = first_histogram(e, {"vllm:time_to_first_token_seconds"});
    s.itl = first_histogram(
        e, {"vllm:inter_token_latency_seconds", "vllm:time_per_output_token_seconds"});
    s.queue = first_histogram(e, {"vllm:request_queue_time_seconds"});
    s.prefill = first_histogram(e, {"vllm:request_prefill_time_seconds"});
    s.decode = first_histogram(e, {"vllm:request_decode_time_seconds"});
    s.e2e = first_histogram(e, {"vllm:e2e_request_latency_seconds"});
  } else if (has_prefix(e, "sglang:")) {
    s.kind = ServerKind::kSglang;
    s.running = first_of(e, {"sglang:num_running_reqs"});
    s.waiting = first_of(e, {"sglang:num_queue_reqs"});
    s.kv_cache_usage_pct = percent(first_of(e, {"sglang:token_usage"}));
    s.prompt_tokens = first_of(e, {"sglang:prompt_tokens_total", "sglang:prompt_tokens"});
    s.generation_tokens =
        first_of(e, {"sglang:generation_tokens_total", "sglang:generation_tokens"});
    s.prefix_cache_hits = first_of(e, {"sglang:cached_tokens_total"});
    s.requests_finished = first_of(e, {"sglang:num_requests_total", "sglang:num_requests"});
    s.ttft = first_histogram(e, {"sglang:time_to_first_token_seconds"});
    s.itl = first_histogram(
        e, {"sglang:inter_token_latency_seconds", "sglang:time_per_output_token_seconds"});
    s.queue = first_histogram(e, {"sglang:queue_time_seconds"});
    s.e2e = first_histogram(e, {"sglang:e2e_request_latency_seconds"});
  } else if (has_prefix(e, "tgi_")) {
    s.kind = ServerKind::kTgi;
    s.running = first_of(e, {"tgi_batch_current_size"});
    s.waiting = first_of(e, {"tgi_queue_size"});
    if (auto h = histogram_of(e, "tgi_request_input_length")) s.prompt_tokens = h->sum;
    if (auto h = histogram_of(e, "tgi_request_generated_tokens")) s.generation_tokens = h->sum;
    s.requests_finished = first_of(e, {"tgi_request_count"});
    s.itl = first_histogram(e, {"tgi_request_mean_time_per_token_duration"});
    s.queue = first_histogram(e, {"tgi_request_queue_duration"});
    s.e2e = first_histogram(e, {"tgi_request_duration"});
  } else if (has_prefix(e, "llamacpp:")) {
    s.kind = ServerKind::kLlamaCpp;
    s.running = first_of(e, {"llamacpp:requests_processing"});
    s.waiting = first_of(e, {"llamacpp:requests_deferred"});
    s.kv_cache_usage_pct = percent(first_of(e, {"llamacpp:kv_cache_usage_ratio"}));
    s.prompt_tokens = first_of(e, {"llamacpp:prompt_tokens_total"});
    s.generation_tokens = first_of(e, {"llamacpp:tokens_predicted_total"});
  }
  return s;
}

}  // namespace tokenbench::telemetry
