#pragma once

#include <optional>
#include <string_view>

#include "tokenbench/core/names.h"
#include "tokenbench/telemetry/prometheus.h"

namespace tokenbench::telemetry {

/// The server software a /metrics exposition comes from, recognised by its metric names.
enum class ServerKind { kUnknown, kVllm, kSglang, kTgi, kLlamaCpp };

/// Each kind's name, as telemetry.jsonl and the console write it and read it back.
inline constexpr auto kServerKindNames =
    core::make_names<ServerKind>({{ServerKind::kUnknown, "unknown"},
                                  {ServerKind::kVllm, "vllm"},
                                  {ServerKind::kSglang, "sglang"},
                                  {ServerKind::kTgi, "tgi"},
                                  {ServerKind::kLlamaCpp, "llama.cpp"}});

std::string_view to_string(ServerKind kind);  ///< kServerKindNames

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
};

/// Maps the metric names of vLLM (and serve-sim, which exports them), SGLang, TGI and llama.cpp's
/// server onto a ServerSnapshot.
ServerSnapshot map_server_metrics(const Exposition& e);

}  // namespace tokenbench::telemetry
