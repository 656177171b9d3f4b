#pragma once

// Helpers shared by the request parsers of every API (internal to sim/). Pure; any thread.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tokenbench/core/ideal_cache.h"
#include "tokenbench/sim/openai_request.h"

namespace tokenbench::sim::fields {

RequestError bad_request(std::string message);

/// 400 for a body nested too deep; `why` is core::json_depth_error's words.
RequestError too_deep(const std::string& why);

/// Parses a request body that must be a JSON object; sets `error` (400: too deep, not JSON, not
/// an object) otherwise.
nlohmann::json parse_object(std::string_view text, std::optional<RequestError>& error);

/// 400 when `body` nests arrays and objects deeper than core::kMaxJsonDepth, or holds more than
/// `max_values` JSON values (core::json_shape: one pass over the bytes, nothing built), naming the
/// limit; nullopt otherwise. What a body may cost the parser is bounded by this before parsing.
std::optional<RequestError> check_body_shape(std::string_view body, std::uint64_t max_values);

/// Reads an optional non-negative integer field; false when present with a bad value.
bool read_count(const nlohmann::json& body, const char* key, std::int64_t& out, bool& present);
/// Reads an optional boolean field; false when present with a bad value.
bool read_bool(const nlohmann::json& body, const char* key, bool& out);

/// 404 when "model" names another model than `served_model` (empty or absent is accepted), 400
/// when it is not a string.
std::optional<RequestError> check_model(const nlohmann::json& body, std::string_view served_model);

/// FNV-1a: a cheap, stable hash.
using core::fnv1a;

/// Every API's parser feeds its prompt, in the order the model reads it, to one chain (the
/// client's ideal cache reads prompts the same way), so that prompts sharing a prefix share their
/// first blocks' hashes.
using PromptHasher = core::PromptChain;

/// The text of a JSON value as a prompt carries it: a string as it is, anything else its JSON.
std::string text_of(const nlohmann::json& value);

/// Adds the tokens of `text` (core::approx_token_count) to `req.prompt_tokens`.
void count_text(const nlohmann::json& text, CompletionRequest& req);

/// Charges one image, given as a data: URL, to `req` (prompt_tokens, images, image_tokens);
/// a 400 error naming what is wrong otherwise.
std::optional<RequestError> count_image_url(std::string_view url, CompletionRequest& req);
/// The same for base64 image data (Anthropic's image source).
std::optional<RequestError> count_image_base64(std::string_view data, CompletionRequest& req);

}  // namespace tokenbench::sim::fields
