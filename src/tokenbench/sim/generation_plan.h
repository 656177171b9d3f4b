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

/// Decides a request's output length: exactly max_tokens with ignore_eos; otherwise an EOS length
/// drawn uniformly from [max(1, min_tokens), max_tokens], deterministic for (seed, arrival).
/// Reaching max_tokens reports "length", stopping earlier reports "stop". Pure; any thread.
GenerationPlan plan_generation(const CompletionRequest& request, std::uint64_t seed,
                               std::uint64_t arrival);

/// The fixed vocabulary: single lower-case ASCII words, each with a leading space, so that the
/// text needs no JSON escaping and core::approx_token_count counts one token per word.
std::span<const std::string_view> vocabulary();

/// The text of token `index` of the request with this arrival index: a vocabulary word chosen
/// deterministically from (seed, arrival, index). Pure; any thread.
std::string_view token_text(std::uint64_t seed, std::uint64_t arrival, std::int64_t index);

}  // namespace tokenbench::sim
