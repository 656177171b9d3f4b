#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "tokenbench/core/run_config.h"

// The models a run's requests are spread over within one target: LoRA adapters served beside a
// base model (--lora-modules, --lora-weights) or base models behind one gateway (--model-mix),
// each request naming one of them in its `model` field.
namespace tokenbench::core {

struct RequestMix {
  std::vector<std::string> names;
  std::vector<double> shares;  ///< each member's share of the requests, summing to 1
  bool weighted = false;       ///< given shares (else uniform)
  bool lora = false;           ///< adapters of --lora-modules (else --model-mix's models)
  bool empty() const { return names.empty(); }
};

/// The mix `config` asks for; empty when none. Throws ConfigError naming the flag when a weight
/// is not a positive number, names no member, or some members have a weight and others not.
RequestMix request_mix(const RunConfig& config);

/// The member request `index` names. Uniform: round-robin is index mod N, random a draw from
/// `seed` and the index. Weighted: round-robin walks the golden-ratio sequence frac((i + 1) x
/// 0.618...) through the cumulative shares (every prefix of the run close to the shares, members
/// interleaved), random draws a uniform number from `seed` and the index. Pure: any request, any
/// thread, in any order, the same answer.
std::size_t mix_choice(const RequestMix& mix, LoraAssignment assignment, std::uint64_t seed,
                       std::uint64_t index);

}  // namespace tokenbench::core
