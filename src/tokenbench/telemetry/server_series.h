#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tokenbench/core/names.h"
#include "tokenbench/telemetry/prometheus.h"

namespace tokenbench::telemetry {

/// The server software a /metrics exposition comes from, recognised by its metric names.
enum class ServerKind { kUnknown, kVllm, kSglang, kTgi, kLlamaCpp, kTrtLlm, kDynamo };

/// Each kind's name, as telemetry.jsonl and the console write it and read it back.
inline constexpr auto kServerKindNames =
    core::make_names<ServerKind>({{ServerKind::kUnknown, "unknown"},
                                  {ServerKind::kVllm, "vllm"},
                                  {ServerKind::kSglang, "sglang"},
                                  {ServerKind::kTgi, "tgi"},
                                  {ServerKind::kLlamaCpp, "llama.cpp"},
                                  {ServerKind::kTrtLlm, "tensorrt-llm"},
                                  {ServerKind::kDynamo, "dynamo"}});

std::string_view to_string(ServerKind kind);  ///< kServerKindNames

/// Speculative decoding's counters, running totals since the server started (vLLM's
/// spec_decode_*; TensorRT-LLM's where it exports them).
struct SpecDecodeCounters {
  double drafts = 0;        ///< draft proposals: one per sequence per step that drafted
  double draft_tokens = 0;  ///< tokens proposed
  double accepted = 0;      ///< of them accepted (the target model's bonus token not counted)
  std::vector<double> accepted_per_position;  ///< accepted at draft position 0, 1, ...
  /// Drafted at each position, where the server counts them so (TensorRT-LLM; vLLM drafts every
  /// position of every draft: empty)
  std::vector<double> drafted_per_position;
  bool operator==(const SpecDecodeCounters&) const = default;
};

/// vLLM's lora_requests_info: the LoRA adapters of the running and the waiting requests.
struct LoraInfo {
  std::vector<std::string> running;
  std::vector<std::string> waiting;
  double max_lora = 0;  ///< adapters the server holds in a batch at once
  bool operator==(const LoraInfo&) const = default;
};

/// One scrape mapped onto the series every server has in some form (docs/TELEMETRY.md holds the
/// table of names). Absent where the server does not export it. Counters are running totals since
/// the server started; histograms in seconds; kv_cache_usage_pct in percent.
struct ServerSnapshot {
  ServerKind kind = ServerKind::kUnknown;
  std::optional<double> running;               ///< requests in the running batch
  std::optional<double> waiting;               ///< requests queued
  std::optional<double> kv_cache_usage_pct;    ///< KV cache in use, 0 to 100
  std::optional<double> preemptions;           ///< counter
  std::optional<double> prompt_tokens;         ///< counter
  std::optional<double> generation_tokens;     ///< counter
  std::optional<double> prefix_cache_hits;     ///< counter (tokens)
  std::optional<double> prefix_cache_queries;  ///< counter (tokens)
  std::optional<double> requests_finished;     ///< counter: requests that ended, by any reason
  std::optional<Histogram> ttft;               ///< arrival to first token
  std::optional<Histogram> itl;      ///< between consecutive tokens (TPOT where only that exists)
  std::optional<Histogram> queue;    ///< waiting before the first admission
  std::optional<Histogram> prefill;  ///< admission to first token
  std::optional<Histogram> decode;   ///< first token to last
  std::optional<Histogram> e2e;      ///< arrival to last token
  std::optional<SpecDecodeCounters> spec;  ///< speculative decoding's counters
  /// The mean acceptance length, where a server exports only that gauge (SGLang)
  std::optional<double> spec_accept_length;
  std::optional<LoraInfo> lora;
};

/// The snapshots of replicas of one deployment as one server's: counters and histograms summed,
/// running and waiting summed, KV cache usage averaged, the adapters joined; each figure only
/// where every replica has it. The kind is the first's.
ServerSnapshot sum_snapshots(const std::vector<const ServerSnapshot*>& parts);

/// Maps the metric names of vLLM (and serve-sim, which exports them), SGLang, TGI, llama.cpp's
/// server, TensorRT-LLM's trtllm-serve and NVIDIA Dynamo's frontend and workers onto a
/// ServerSnapshot.
ServerSnapshot map_server_metrics(const Exposition& e);

}  // namespace tokenbench::telemetry
