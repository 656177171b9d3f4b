#pragma once

// POST /generate: SGLang's native API (python/sglang/srt/entrypoints/http_server.py), its request
// parsed into the simulator's CompletionRequest.

#include <cstdint>
#include <string_view>
#include <variant>

#include "tokenbench/sim/openai_request.h"

namespace tokenbench::sim {

/// Parses POST /generate: "text" (a string) or "input_ids" (token ids), "sampling_params"
/// (max_new_tokens, else `default_max_tokens`; min_new_tokens; ignore_eos; the others, such as
/// temperature, accepted and unused) and "stream". It names no model (the server serves one).
/// With `hash_block_size` > 0 the prompt's block hashes for prefix caching, as the completions
/// parser's. Pure; any thread.
std::variant<CompletionRequest, RequestError> parse_generate_request(
    std::string_view body, std::int64_t default_max_tokens, std::int64_t hash_block_size = 0);

}  // namespace tokenbench::sim
