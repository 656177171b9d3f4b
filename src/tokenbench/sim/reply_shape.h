#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "tokenbench/sim/generation_plan.h"

namespace tokenbench::sim {

/// What one reply carries, decided when its request is accepted. Plain data; the views point
/// into the request, which outlives the reply.
struct ReplyShape {
  std::uint64_t seed = 0;  ///< --seed (token text, embedding vectors)
  std::uint64_t arrival = 0;
  std::int64_t prompt_tokens = 0;
  std::int64_t output_tokens = 0;     ///< every generated token, reasoning included
  std::int64_t reasoning_tokens = 0;  ///< the first ones of output_tokens (<= output_tokens)
  /// Prompt tokens the engine's prefix cache held for it (engine mode with prefix caching), set
  /// when its first token is generated; -1 when none is said. Every API's usage reports it.
  std::int64_t cached_tokens = -1;
  FinishReason finish = FinishReason::kLength;
  bool include_usage = false;  ///< chat and completions: stream_options.include_usage
  /// Chat and completions: stream_options.continuous_usage_stats, usage in every content chunk
  bool continuous_usage = false;
  std::string_view tool_name;  ///< chat: not empty when the reply is a call to this function
  std::span<const std::uint64_t> input_hashes;  ///< embeddings: one per input
  int embedding_dim = 8;                        ///< embeddings: floats per vector
  std::span<const std::string> documents;       ///< rerank: the documents' texts
  std::int64_t top_n = 0;                       ///< rerank: results returned; 0: all
  bool return_documents = true;                 ///< rerank: results carry their text
};

}  // namespace tokenbench::sim
