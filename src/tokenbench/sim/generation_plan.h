#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "tokenbench/sim/openai_request.h"

namespace tokenbench::sim {

/// Why generation ended, as OpenAI's finish_reason spells it.
enum class FinishReason { kLength, kStop };
std::string_view to_string(FinishReason reason);  ///< "length" | "stop"

/// How much one request generates. Plain data.
struct GenerationPlan {
  std::int64_t output_tokens = 0;
  FinishReason finish = FinishReason::kLength;
};

/// How the EOS length of a request that sets no ignore_eos is drawn (`--eos-dist`).
enum class EosDistribution {
  kUniform,      ///< uniform over [max(1, min_tokens), max_tokens]
  kExponential,  ///< exponential with mean `mean` (EOS equally likely at every token)
  kNormal,       ///< normal with `mean` and `stddev`, rounded
  kNone,         ///< the model never stops early: always max_tokens
};

/// The EOS length distribution. Plain data.
struct EosConfig {
  EosDistribution dist = EosDistribution::kUniform;
  double mean = 0.0;
  double stddev = 0.0;
};

/// Parses `uniform`, `exponential:MEAN`, `normal:MEAN:STDDEV` or `none`. Throws
/// std::invalid_argument with a one-line message on bad input.
EosConfig parse_eos_config(std::string_view text);

/// Decides a request's output length: exactly max_tokens with ignore_eos; otherwise an EOS length
/// drawn from `eos`, clamped to [max(1, min_tokens), max_tokens], deterministic for
/// (seed, arrival). Reaching max_tokens reports "length", stopping earlier reports "stop".
/// Pure; any thread.
GenerationPlan plan_generation(const CompletionRequest& request, std::uint64_t seed,
                               std::uint64_t arrival, const EosConfig& eos = {});

/// The fixed vocabulary: single lower-case ASCII words, each with a leading space, so that the
/// text needs no JSON escaping and core::approx_token_count counts one token per word.
std::span<const std::string_view> vocabulary();

/// The text of token `index` of the request with this arrival index: a vocabulary word chosen
/// deterministically from (seed, arrival, index). Pure; any thread.
std::string_view token_text(std::uint64_t seed, std::uint64_t arrival, std::int64_t index);

}  // namespace tokenbench::sim
