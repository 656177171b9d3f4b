#include "tokenbench/telemetry/server_series.h"

#include <algorithm>
#include <charconv>
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

const Family* family_of(const Exposition& e, std::initializer_list<std::string_view> names) {
  for (const std::string_view n : names) {
    if (const Family* f = e.find(n)) return f;
  }
  return nullptr;
}

// Each sample's value of `family` by its integer label `label`, summed over the other labels.
std::vector<double> by_position(const Exposition& e, std::initializer_list<std::string_view> names,
                                std::string_view label) {
  std::vector<double> out;
  const Family* f = family_of(e, names);
  if (f == nullptr) return out;
  for (const Sample& sample : f->samples) {
    const auto position = sample.label(label);
    if (!position) continue;
    std::size_t i = 0;
    const auto [end, ec] =
        std::from_chars(position->data(), position->data() + position->size(), i);
    if (ec != std::errc() || end != position->data() + position->size() || i >= 64) continue;
    if (out.size() <= i) out.resize(i + 1, 0.0);
    out[i] += sample.value;
  }
  return out;
}

// vLLM's speculative decoding counters; nullopt when the server does not speculate.
std::optional<SpecDecodeCounters> vllm_spec(const Exposition& e) {
  const auto drafts =
      first_of(e, {"vllm:spec_decode_num_drafts", "vllm:spec_decode_num_drafts_total"});
  if (!drafts) return std::nullopt;
  SpecDecodeCounters c;
  c.drafts = *drafts;
  c.draft_tokens =
      first_of(e, {"vllm:spec_decode_num_draft_tokens", "vllm:spec_decode_num_draft_tokens_total"})
          .value_or(0);
  c.accepted = first_of(e, {"vllm:spec_decode_num_accepted_tokens",
                            "vllm:spec_decode_num_accepted_tokens_total"})
                   .value_or(0);
  c.accepted_per_position = by_position(e,
                                        {"vllm:spec_decode_num_accepted_tokens_per_pos",
                                         "vllm:spec_decode_num_accepted_tokens_per_pos_total"},
                                        "position");  // summed over engines
  return c;
}

// TensorRT-LLM's speculative decoding: tokens drafted and accepted, overall and by position; no
// count of drafts (its acceptance length is a gauge).
std::optional<SpecDecodeCounters> trtllm_spec(const Exposition& e) {
  const auto drafted = first_of(
      e, {"trtllm_spec_decode_num_draft_tokens", "trtllm_spec_decode_num_draft_tokens_total"});
  if (!drafted) return std::nullopt;
  SpecDecodeCounters c;
  c.draft_tokens = *drafted;
  c.accepted = first_of(e, {"trtllm_spec_decode_num_accepted_tokens",
                            "trtllm_spec_decode_num_accepted_tokens_total"})
                   .value_or(0);
  c.accepted_per_position = by_position(
      e, {"trtllm_spec_decode_accepted_tokens", "trtllm_spec_decode_accepted_tokens_total"},
      "token_position");
  c.drafted_per_position = by_position(
      e, {"trtllm_spec_decode_drafted_tokens", "trtllm_spec_decode_drafted_tokens_total"},
      "token_position");
  return c;
}

void map_trtllm(const Exposition& e, ServerSnapshot& s) {
  s.kind = ServerKind::kTrtLlm;
  s.running = first_of(e, {"trtllm_num_requests_running"});
  s.waiting = first_of(e, {"trtllm_num_requests_waiting"});
  s.kv_cache_usage_pct = percent(first_of(e, {"trtllm_kv_cache_utilization"}));
  s.prompt_tokens = first_of(e, {"trtllm_prompt_tokens_total", "trtllm_prompt_tokens"});
  s.generation_tokens = first_of(e, {"trtllm_generation_tokens_total", "trtllm_generation_tokens"});
  s.requests_finished = first_of(e, {"trtllm_request_success_total", "trtllm_request_success"});
  s.ttft = first_histogram(e, {"trtllm_time_to_first_token_seconds"});
  s.itl = first_histogram(e, {"trtllm_time_per_output_token_seconds"});
  s.queue = first_histogram(e, {"trtllm_request_queue_time_seconds"});
  s.prefill = first_histogram(e, {"trtllm_request_prefill_time_seconds"});
  s.decode = first_histogram(e, {"trtllm_request_decode_time_seconds"});
  s.e2e = first_histogram(e, {"trtllm_e2e_request_latency_seconds"});
  s.spec = trtllm_spec(e);
  s.spec_accept_length = first_of(e, {"trtllm_spec_decode_acceptance_length"});
}

// Dynamo's frontend (dynamo_frontend_*: the OpenAI front every request passes) or a worker
// (dynamo_component_*: its own requests and KV statistics).
void map_dynamo(const Exposition& e, ServerSnapshot& s) {
  s.kind = ServerKind::kDynamo;
  if (has_prefix(e, "dynamo_frontend_")) {
    s.running = first_of(e, {"dynamo_frontend_inflight_requests"});
    s.waiting = first_of(e, {"dynamo_frontend_queued_requests"});
    if (auto h = histogram_of(e, "dynamo_frontend_input_sequence_tokens")) s.prompt_tokens = h->sum;
    s.generation_tokens =
        first_of(e, {"dynamo_frontend_output_tokens_total", "dynamo_frontend_output_tokens"});
    if (!s.generation_tokens) {
      if (auto h = histogram_of(e, "dynamo_frontend_output_sequence_tokens")) {
        s.generation_tokens = h->sum;
      }
    }
    s.requests_finished = sum_of(e, "dynamo_frontend_requests", {}, {{"status", "success"}});
    if (!s.requests_finished) {
      s.requests_finished =
          sum_of(e, "dynamo_frontend_requests_total", {}, {{"status", "success"}});
    }
    s.ttft = first_histogram(e, {"dynamo_frontend_time_to_first_token_seconds"});
    s.itl = first_histogram(e, {"dynamo_frontend_inter_token_latency_seconds"});
    s.e2e = first_histogram(e, {"dynamo_frontend_request_duration_seconds"});
    return;
  }
  s.running = first_of(e, {"dynamo_component_inflight_requests"});
  s.kv_cache_usage_pct = percent(first_of(e, {"dynamo_component_kvstats_gpu_cache_usage_percent"}));
  s.requests_finished =
      first_of(e, {"dynamo_component_requests_total", "dynamo_component_requests"});
}

std::vector<std::string> split_names(std::string_view list) {
  std::vector<std::string> out;
  while (!list.empty()) {
    const auto comma = list.find(',');
    if (const auto name = list.substr(0, comma); !name.empty()) out.emplace_back(name);
    if (comma == std::string_view::npos) break;
    list.remove_prefix(comma + 1);
  }
  return out;
}

// vLLM's lora_requests_info gauge: its labels carry the adapters; the newest sample wins.
std::optional<LoraInfo> vllm_lora(const Exposition& e) {
  const Family* f = e.find("vllm:lora_requests_info");
  if (f == nullptr || f->samples.empty()) return std::nullopt;
  const Sample* newest = &f->samples.front();
  for (const Sample& sample : f->samples) {
    if (sample.value > newest->value) newest = &sample;
  }
  LoraInfo info;
  info.running = split_names(newest->label("running_lora_adapters").value_or(""));
  info.waiting = split_names(newest->label("waiting_lora_adapters").value_or(""));
  const std::string_view max = newest->label("max_lora").value_or("0");
  std::from_chars(max.data(), max.data() + max.size(), info.max_lora);
  return info;
}

// The sum of every part's `get`, when each has it.
template <typename T, typename Get, typename Add>
std::optional<T> sum_each(const std::vector<const ServerSnapshot*>& parts, Get get, Add add) {
  std::optional<T> total;
  for (const ServerSnapshot* p : parts) {
    const std::optional<T>& v = get(*p);
    if (!v) return std::nullopt;
    total = total ? add(*total, *v) : *v;
  }
  return total;
}

Histogram add_histograms(const Histogram& a, const Histogram& b) {
  Histogram out = a;
  out.sum += b.sum;
  out.count += b.count;
  for (const auto& [le, n] : b.buckets) {
    auto it = std::find_if(out.buckets.begin(), out.buckets.end(),
                           [le = le](const auto& bucket) { return bucket.first == le; });
    if (it != out.buckets.end()) {
      it->second += n;
    } else {
      out.buckets.emplace_back(le, n);
    }
  }
  std::sort(out.buckets.begin(), out.buckets.end());
  return out;
}

std::vector<double> add_each(std::vector<double> a, const std::vector<double>& b) {
  if (a.size() < b.size()) a.resize(b.size(), 0.0);
  for (std::size_t i = 0; i < b.size(); ++i) a[i] += b[i];
  return a;
}

}  // namespace

ServerSnapshot sum_snapshots(const std::vector<const ServerSnapshot*>& parts) {
  ServerSnapshot s;
  if (parts.empty()) return s;
  s.kind = parts.front()->kind;
  const auto plus = [](double a, double b) { return a + b; };
  using D = std::optional<double> ServerSnapshot::*;
  for (const D m : {&ServerSnapshot::running, &ServerSnapshot::waiting,
                    &ServerSnapshot::preemptions, &ServerSnapshot::prompt_tokens,
                    &ServerSnapshot::generation_tokens, &ServerSnapshot::prefix_cache_hits,
                    &ServerSnapshot::prefix_cache_queries, &ServerSnapshot::requests_finished}) {
    s.*m = sum_each<double>(
        parts, [m](const ServerSnapshot& p) -> auto& { return p.*m; }, plus);
  }
  if (auto kv = sum_each<double>(
          parts, [](const ServerSnapshot& p) -> auto& { return p.kv_cache_usage_pct; }, plus)) {
    s.kv_cache_usage_pct = *kv / static_cast<double>(parts.size());
  }
  using H = std::optional<Histogram> ServerSnapshot::*;
  for (const H m : {&ServerSnapshot::ttft, &ServerSnapshot::itl, &ServerSnapshot::queue,
                    &ServerSnapshot::prefill, &ServerSnapshot::decode, &ServerSnapshot::e2e}) {
    s.*m = sum_each<Histogram>(
        parts, [m](const ServerSnapshot& p) -> auto& { return p.*m; }, add_histograms);
  }
  s.spec = sum_each<SpecDecodeCounters>(
      parts, [](const ServerSnapshot& p) -> auto& { return p.spec; },
      [](SpecDecodeCounters a, const SpecDecodeCounters& b) {
        a.drafts += b.drafts;
        a.draft_tokens += b.draft_tokens;
        a.accepted += b.accepted;
        a.accepted_per_position = add_each(a.accepted_per_position, b.accepted_per_position);
        a.drafted_per_position = add_each(a.drafted_per_position, b.drafted_per_position);
        return a;
      });
  s.lora = sum_each<LoraInfo>(
      parts, [](const ServerSnapshot& p) -> auto& { return p.lora; },
      [](LoraInfo a, const LoraInfo& b) {
        a.running.insert(a.running.end(), b.running.begin(), b.running.end());
        a.waiting.insert(a.waiting.end(), b.waiting.begin(), b.waiting.end());
        a.max_lora = std::max(a.max_lora, b.max_lora);
        return a;
      });
  return s;
}

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
    s.spec = vllm_spec(e);
    s.lora = vllm_lora(e);
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
    s.spec_accept_length = first_of(e, {"sglang:spec_accept_length"});
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
  } else if (has_prefix(e, "trtllm_")) {
    map_trtllm(e, s);
  } else if (has_prefix(e, "dynamo_")) {
    map_dynamo(e, s);
  }
  return s;
}

}  // namespace tokenbench::telemetry
