#pragma once

#include <cstdint>
#include <string_view>
#include <variant>

#include "tokenbench/sim/openai_request.h"

namespace tokenbench::sim {

/// Parses an Anthropic Messages request (POST /v1/messages): "max_tokens" (required),
/// "messages" (content a string or text / image blocks; image sources base64), "system" (a
/// string or text blocks), "stream", "thinking" ({"type":"enabled",...} allows reasoning
/// tokens). Prompt tokens count the text of system and every message (tool_use blocks' name and
/// input, tool_result blocks' content included), plus each image's tokens. With
/// `hash_block_size` > 0 the prompt's block hashes for prefix caching, as the chat parser's.
/// Pure; any thread.
std::variant<CompletionRequest, RequestError> parse_messages_request(
    std::string_view body, std::string_view served_model, std::int64_t hash_block_size = 0);

}  // namespace tokenbench::sim
