// POST /v1/responses and POST /v1/embeddings: the request parsers of the two further OpenAI APIs
// (declared in openai_request.h).

#include <nlohmann/json.hpp>
#include <optional>

#include "tokenbench/core/approx_tokens.h"
#include "tokenbench/core/json_parse.h"
#include "tokenbench/sim/openai_request.h"
#include "tokenbench/sim/request_fields.h"
#include "tokenbench/sim/sim_rng.h"

namespace tokenbench::sim {
namespace {

using fields::bad_request;
using fields::parse_object;
using nlohmann::json;

// A Responses message content: a string, or input_text / input_image (/ output_text) parts.
std::optional<RequestError> count_response_content(const json& content, CompletionRequest& req) {
  if (content.is_string()) {
    fields::count_text(content, req);
    return std::nullopt;
  }
  if (!content.is_array()) {
    return bad_request("An input message's 'content' must be a string or an array of parts.");
  }
  for (const json& part : content) {
    if (!part.is_object()) return bad_request("Each content part must be an object.");
    if (const auto text = part.find("text"); text != part.end()) fields::count_text(*text, req);
    const auto type = part.find("type");
    if (type == part.end() || *type != "input_image") continue;
    const auto url = part.find("image_url");
    if (url == part.end() || !url->is_string()) {
      return bad_request("An input_image part must carry an image_url string.");
    }
    if (auto err = fields::count_image_url(url->get_ref<const std::string&>(), req)) return err;
  }
  return std::nullopt;
}

// One input item: a message (its content), a function_call (name and arguments) or a
// function_call_output (its output), counted and hashed as the model reads it.
std::optional<RequestError> read_input_item(const json& item, CompletionRequest& req,
                                            fields::PromptHasher& hasher) {
  const std::string type = item.value("type", "message");
  if (type == "function_call" || type == "function_call_output") {
    hasher.add_role(type);
    for (const char* key : {"name", "arguments", "output"}) {
      const auto v = item.find(key);
      if (v == item.end() || v->is_null()) continue;
      req.prompt_tokens += core::approx_token_count(fields::text_of(*v));
      hasher.add_json(*v);
    }
    return std::nullopt;
  }
  hasher.add_role(item.value("role", "user"));
  const auto content = item.find("content");
  if (content == item.end()) return std::nullopt;
  hasher.add_content(*content);
  return count_response_content(*content, req);
}

}  // namespace

std::variant<CompletionRequest, RequestError> parse_responses_request(
    std::string_view text, std::string_view served_model, std::int64_t default_max_tokens,
    std::int64_t hash_block_size) {
  std::optional<RequestError> error;
  const json body = parse_object(text, error);
  if (error) return *error;
  if (auto err = fields::check_model(body, served_model)) return *err;
  CompletionRequest req;
  req.api = ApiKind::kResponses;
  req.reasoning = true;
  // The model reads the instructions first, then the input, in order.
  fields::PromptHasher hasher(hash_block_size, req.block_hashes);
  if (const auto instructions = body.find("instructions"); instructions != body.end()) {
    if (!instructions->is_null() && !instructions->is_string()) {
      return bad_request("'instructions' must be a string.");
    }
    fields::count_text(*instructions, req);
    hasher.add_role("system");
    hasher.add_json(*instructions);
  }
  const auto input = body.find("input");
  if (input == body.end()) return bad_request("'input' is a required property.");
  if (input->is_string()) {
    fields::count_text(*input, req);
    hasher.add_role("user");
    hasher.add_text(input->get_ref<const std::string&>());
  } else if (input->is_array()) {
    for (const json& item : *input) {
      if (!item.is_object()) return bad_request("Each 'input' item must be an object.");
      if (auto err = read_input_item(item, req, hasher)) return *err;
    }
  } else {
    return bad_request("'input' must be a string or an array of input items.");
  }
  bool present = false;
  req.max_tokens = default_max_tokens;
  if (!fields::read_count(body, "max_output_tokens", req.max_tokens, present)) {
    return bad_request("'max_output_tokens' must be a non-negative integer.");
  }
  if (req.max_tokens < 1) return bad_request("'max_output_tokens' must be at least 1.");
  if (!fields::read_bool(body, "stream", req.stream)) {
    return bad_request("'stream' must be a boolean.");
  }
  if (!fields::read_bool(body, "ignore_eos", req.ignore_eos)) {
    return bad_request("'ignore_eos' must be a boolean.");
  }
  return req;
}

std::variant<CompletionRequest, RequestError> parse_embeddings_request(
    std::string_view text, std::string_view served_model) {
  std::optional<RequestError> error;
  const json body = parse_object(text, error);
  if (error) return *error;
  if (auto err = fields::check_model(body, served_model)) return *err;
  if (const auto format = body.find("encoding_format");
      format != body.end() && !format->is_null() && *format != "float") {
    return bad_request("'encoding_format' must be \"float\" (the simulator sends no base64).");
  }
  CompletionRequest req;
  req.api = ApiKind::kEmbeddings;
  req.max_tokens = 1;
  req.ignore_eos = true;
  const auto input = body.find("input");
  if (input == body.end()) return bad_request("'input' is a required property.");
  const auto shape =
      bad_request("'input' must be a string, an array of strings, token ids, or arrays of ids.");
  const auto add_ids = [&](const json& ids) {
    std::uint64_t h = 0x3e5d;
    for (const json& id : ids) {
      if (!id.is_number_integer()) return false;
      h = mix_keys(h, static_cast<std::uint64_t>(id.get<std::int64_t>()));
    }
    req.prompt_tokens += static_cast<std::int64_t>(ids.size());
    req.input_hashes.push_back(h);
    return true;
  };
  if (input->is_string()) {
    fields::count_text(*input, req);
    req.input_hashes.push_back(fields::fnv1a(input->get_ref<const std::string&>()));
  } else if (input->is_array() && !input->empty() && (*input)[0].is_number_integer()) {
    if (!add_ids(*input)) return shape;
  } else if (input->is_array() && !input->empty()) {
    for (const json& item : *input) {
      if (item.is_string()) {
        fields::count_text(item, req);
        req.input_hashes.push_back(fields::fnv1a(item.get_ref<const std::string&>()));
      } else if (!item.is_array() || !add_ids(item)) {
        return shape;
      }
    }
  } else {
    return shape;
  }
  return req;
}

}  // namespace tokenbench::sim
