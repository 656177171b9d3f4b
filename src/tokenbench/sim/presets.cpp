#include <array>

#include "tokenbench/sim/engine_params.h"

namespace tokenbench::sim {
namespace {

// Calibrated against the published vLLM concurrency sweep for Llama-3.1-8B on one A100 80GB
// (docs/SIMULATOR.md, "Presets", shows the measured figures beside the targets).
constexpr EngineParams kLlama8bA100 = [] {
  EngineParams p;
  p.max_num_seqs = 256;
  p.max_num_batched_tokens = 2048;
  p.kv_cache_tokens = 24576;
  p.block_size = 16;
  p.step_overhead_ms = 3.15;
  p.prefill_us_per_token = 40.0;
  p.decode_us_per_seq = 4.0;
  p.decode_us_per_kv_token = 0.04;
  return p;
}();

// No cost at all: the engine runs as fast as the CPU allows (scale tests of the HTTP side).
constexpr EngineParams kZero = [] {
  EngineParams p;
  p.max_num_seqs = std::int64_t{1} << 20;
  p.max_num_batched_tokens = std::int64_t{1} << 40;
  p.kv_cache_tokens = std::int64_t{1} << 40;
  p.step_overhead_ms = 0;
  p.prefill_us_per_token = 0;
  p.decode_us_per_seq = 0;
  p.decode_us_per_kv_token = 0;
  p.watermark = 0;
  return p;
}();

constexpr std::array<EnginePreset, 2> kPresets{{
    {"llama3.1-8b-a100",
     "Llama-3.1-8B on one A100 80GB under vLLM: calibrated to its published concurrency sweep",
     kLlama8bA100},
    {"zero", "every cost zero: tokens as fast as the CPU allows (scale tests)", kZero},
}};

}  // namespace

std::span<const EnginePreset> engine_presets() { return kPresets; }

std::optional<EngineParams> find_engine_preset(std::string_view name) {
  for (const EnginePreset& p : kPresets) {
    if (p.name == name) return p.params;
  }
  return std::nullopt;
}

}  // namespace tokenbench::sim
