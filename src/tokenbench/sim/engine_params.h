#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "tokenbench/sim/spec_decode.h"

namespace tokenbench::sim {

/// The parameters of the continuous-batching engine model (docs/SIMULATOR.md, "Engine model").
/// Plain data; filled from a preset and flags, then copied into the engine, which never changes it.
///
/// The duration of one engine step is
///   step_overhead_ms
///   + prefill_tokens x prefill_us_per_token
///   + decode_seqs x decode_us_per_seq x (1 + K)
///   + context_tokens x decode_us_per_kv_token
///   + lora_loads x lora_load_ms
/// where prefill_tokens are the prompt tokens computed in the step (at most max_num_batched_tokens
/// minus the decode tokens), decode_seqs the sequences that decode one token, and context_tokens
/// the tokens those sequences attend to (their KV held in the cache: the memory-bound part), and K
/// the draft tokens of speculative decoding (0 without it): each decoding sequence verifies its
/// last token and K drafts; lora_loads the LoRA adapters loaded for the requests it admits.
struct EngineParams {
  std::int64_t max_num_seqs = 256;             ///< most sequences in the running batch
  std::int64_t max_num_batched_tokens = 2048;  ///< token budget of one step (chunked prefill)
  std::int64_t kv_cache_tokens = 24576;        ///< KV cache capacity in tokens
  std::int64_t block_size = 16;                ///< tokens per KV block
  double step_overhead_ms = 3.15;              ///< fixed cost of every step
  double prefill_us_per_token = 40.0;          ///< cost of each prompt token computed
  double decode_us_per_seq = 4.0;              ///< cost of each sequence decoding one token
  double decode_us_per_kv_token = 0.04;        ///< cost of each context token a decode reads
  bool enable_prefix_caching = false;          ///< reuse KV blocks of shared prompt prefixes
  /// Admission keeps this fraction of the blocks free, as vLLM's watermark does, so that a request
  /// just admitted is not preempted at its first decode.
  double watermark = 0.01;
  /// Speculative decoding (--spec-decode): off unless spec_decode.k > 0.
  SpecDecodeConfig spec_decode;
  /// LoRA adapters served beside the base model (--lora-adapters; 0: none), how many may be
  /// loaded at once (--max-loras, vLLM's max_loras), and what loading one adds to the step that
  /// admits its request (--lora-load-ms).
  std::int64_t lora_adapters = 0;
  std::int64_t max_loras = 1;
  double lora_load_ms = 0.0;

  std::int64_t total_blocks() const { return block_size > 0 ? kv_cache_tokens / block_size : 0; }
  bool operator==(const EngineParams&) const = default;
};

/// A named set of engine parameters approximating a known deployment (`--preset NAME`).
struct EnginePreset {
  std::string_view name;
  std::string_view description;
  EngineParams params;
};

/// The engine presets, in the order `--help` lists them. The `fixed` preset (the fixed-delay
/// timing of the first simulator version) is not among them: it has no engine.
std::span<const EnginePreset> engine_presets();

/// The preset called `name`, or nothing. Pure; any thread.
std::optional<EngineParams> find_engine_preset(std::string_view name);

/// The name of the preset used when the command line names none and asks for no fixed delays.
inline constexpr std::string_view kDefaultPreset = "llama3.1-8b-a100";

}  // namespace tokenbench::sim
