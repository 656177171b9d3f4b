#include "tokenbench/sim/generate_request.h"

#include <nlohmann/json.hpp>
#include <optional>

#include "tokenbench/core/approx_tokens.h"
#include "tokenbench/sim/request_fields.h"
#include "tokenbench/sim/sim_rng.h"

namespace tokenbench::sim {

std::variant<CompletionRequest, RequestError> parse_generate_request(
    std::string_view text, std::int64_t default_max_tokens, std::int64_t hash_block_size) {
  using fields::bad_request;
  std::optional<RequestError> error;
  const nlohmann::json body = fields::parse_object(text, error);
  if (error) return *error;
  CompletionRequest req;
  req.api = ApiKind::kGenerate;
  fields::PromptHasher hasher(hash_block_size, req.block_hashes);
  const auto prompt = body.find("text");
  const auto ids = body.find("input_ids");
  if (prompt != body.end() && prompt->is_string()) {
    req.prompt_tokens = core::approx_token_count(prompt->get_ref<const std::string&>());
    hasher.add_text(prompt->get_ref<const std::string&>());
  } else if (prompt == body.end() && ids != body.end() && ids->is_array() && !ids->empty()) {
    for (const auto& id : *ids) {
      if (!id.is_number_integer()) return bad_request("'input_ids' must be token ids.");
      hasher.add_token(mix64(static_cast<std::uint64_t>(id.get<std::int64_t>())));
    }
    req.prompt_tokens = static_cast<std::int64_t>(ids->size());
  } else {
    return bad_request("Either 'text' (a string) or 'input_ids' (token ids) must be provided.");
  }
  req.max_tokens = default_max_tokens;
  if (const auto params = body.find("sampling_params"); params != body.end()) {
    if (!params->is_object()) return bad_request("'sampling_params' must be an object.");
    bool present = false;
    if (!fields::read_count(*params, "max_new_tokens", req.max_tokens, present)) {
      return bad_request("'max_new_tokens' must be a non-negative integer.");
    }
    if (!fields::read_count(*params, "min_new_tokens", req.min_tokens, present)) {
      return bad_request("'min_new_tokens' must be a non-negative integer.");
    }
    if (!fields::read_bool(*params, "ignore_eos", req.ignore_eos)) {
      return bad_request("'ignore_eos' must be a boolean.");
    }
  }
  if (req.max_tokens < 1) return bad_request("'max_new_tokens' must be at least 1.");
  if (req.min_tokens > req.max_tokens) {
    return bad_request("'min_new_tokens' must not exceed 'max_new_tokens'.");
  }
  if (!fields::read_bool(body, "stream", req.stream)) {
    return bad_request("'stream' must be a boolean.");
  }
  return req;
}

}  // namespace tokenbench::sim
