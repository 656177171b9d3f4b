#include "tokenbench/sim/openai_request.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <optional>

#include "tokenbench/core/approx_tokens.h"
#include "tokenbench/core/json_parse.h"
#include "tokenbench/sim/request_fields.h"
#include "tokenbench/sim/sim_rng.h"

namespace tokenbench::sim {
namespace {

using nlohmann::json;

using fields::bad_request;
using fields::fnv1a;
using fields::read_bool;
using fields::read_count;

// Counts a chat message's content: a string, or an array of parts whose "text" fields count
// and whose image_url parts are charged as images.
std::optional<RequestError> count_content(const json& content, CompletionRequest& req) {
  if (content.is_null()) return std::nullopt;
  if (content.is_string()) {
    fields::count_text(content, req);
    return std::nullopt;
  }
  const auto shape = bad_request("A message's 'content' must be a string or an array of parts.");
  if (!content.is_array()) return shape;
  for (const json& part : content) {
    if (!part.is_object()) return shape;
    if (const auto text = part.find("text"); text != part.end()) fields::count_text(*text, req);
    const auto type = part.find("type");
    if (type == part.end() || *type != "image_url") continue;
    const auto image = part.find("image_url");
    const json* url = nullptr;
    if (image != part.end() && image->is_string()) url = &*image;
    if (image != part.end() && image->is_object()) {
      if (const auto u = image->find("url"); u != image->end() && u->is_string()) url = &*u;
    }
    if (url == nullptr) return bad_request("An image_url part must carry image_url.url.");
    if (auto err = fields::count_image_url(url->get_ref<const std::string&>(), req)) return err;
  }
  return std::nullopt;
}

// The reply is a tool call when the request offers tools and does not forbid calling them.
std::optional<RequestError> read_tools(const json& body, CompletionRequest& req) {
  const auto tools = body.find("tools");
  if (tools == body.end() || tools->is_null()) return std::nullopt;
  if (!tools->is_array()) return bad_request("'tools' must be an array.");
  if (tools->empty()) return std::nullopt;
  const json& first = (*tools)[0];
  const json* name = nullptr;
  if (first.is_object()) {
    if (const auto f = first.find("function"); f != first.end() && f->is_object()) {
      if (const auto n = f->find("name"); n != f->end() && n->is_string()) name = &*n;
    }
  }
  if (name == nullptr) return bad_request("Each tool must carry function.name.");
  if (const auto choice = body.find("tool_choice"); choice != body.end() && *choice == "none") {
    return std::nullopt;
  }
  req.tool_name = name->get<std::string>();
  return std::nullopt;
}

// An assistant message's tool calls as the model reads them: each function's name and arguments.
template <typename Each>
void for_each_tool_call_text(const json& message, Each&& each) {
  const auto calls = message.find("tool_calls");
  if (calls == message.end() || !calls->is_array()) return;
  for (const json& call : *calls) {
    if (!call.is_object()) continue;
    const auto fn = call.find("function");
    if (fn == call.end() || !fn->is_object()) continue;
    for (const char* key : {"name", "arguments"}) {
      if (const auto v = fn->find(key); v != fn->end()) each(*v);
    }
  }
}

void hash_prompt(const json& body, ApiKind api, std::int64_t block_size,
                 std::vector<std::uint64_t>& out) {
  fields::PromptHasher hasher(block_size, out);
  if (api == ApiKind::kChat) {
    for (const json& m : body["messages"]) {
      const auto role = m.find("role");
      hasher.add_role(role != m.end() && role->is_string() ? role->get_ref<const std::string&>()
                                                           : std::string());
      if (const auto content = m.find("content"); content != m.end()) hasher.add_content(*content);
      for_each_tool_call_text(m, [&](const json& text) { hasher.add_json(text); });
    }
    return;
  }
  const json& prompt = body["prompt"];
  if (prompt.is_string()) return hasher.add_text(prompt.get_ref<const std::string&>());
  for (const json& item : prompt) {
    if (item.is_string()) {
      hasher.add_text(item.get_ref<const std::string&>());
    } else if (item.is_number_integer()) {
      hasher.add_token(mix64(static_cast<std::uint64_t>(item.get<std::int64_t>())));
    }
  }
}

}  // namespace

std::string_view to_string(ApiKind api) { return kApiKindNames.name(api); }

std::uint64_t request_body_limit(std::int64_t max_model_len) {
  const auto tokens = static_cast<std::uint64_t>(std::max<std::int64_t>(0, max_model_len));
  if (tokens >= (kBodyLimitCap - kBodySlack) / kBodyBytesPerToken) return kBodyLimitCap;
  return tokens * kBodyBytesPerToken + kBodySlack;
}

std::uint64_t request_value_limit(std::int64_t max_model_len) {
  return static_cast<std::uint64_t>(std::max<std::int64_t>(0, max_model_len)) + kBodyValueSlack;
}

std::variant<CompletionRequest, RequestError> parse_completion_request(
    ApiKind api, std::string_view body_text, std::string_view served_model,
    std::int64_t default_max_tokens, std::int64_t hash_block_size) {
  std::optional<RequestError> error;
  const json body = fields::parse_object(body_text, error);
  if (error) return *error;

  CompletionRequest req;
  req.api = api;
  if (auto err = fields::check_model(body, served_model)) return *err;

  if (api == ApiKind::kChat) {
    const auto messages = body.find("messages");
    if (messages == body.end()) return bad_request("'messages' is a required property.");
    if (!messages->is_array()) return bad_request("'messages' must be an array.");
    for (const json& m : *messages) {
      if (!m.is_object()) return bad_request("Each message must be an object.");
      const auto content = m.find("content");
      if (content != m.end()) {
        if (auto err = count_content(*content, req)) return *err;
      }
      for_each_tool_call_text(m, [&](const json& text) {
        req.prompt_tokens += core::approx_token_count(fields::text_of(text));
      });
    }
    if (auto err = read_tools(body, req)) return *err;
    req.reasoning = true;
  } else {
    const auto prompt = body.find("prompt");
    if (prompt == body.end()) return bad_request("'prompt' is a required property.");
    if (prompt->is_string()) {
      req.prompt_tokens = core::approx_token_count(prompt->get_ref<const std::string&>());
    } else if (prompt->is_array() && !prompt->empty() && (*prompt)[0].is_number_integer()) {
      req.prompt_tokens = static_cast<std::int64_t>(prompt->size());  // pre-tokenised prompt
    } else if (prompt->is_array() && prompt->size() == 1 && (*prompt)[0].is_string()) {
      req.prompt_tokens = core::approx_token_count((*prompt)[0].get_ref<const std::string&>());
    } else {
      return bad_request("'prompt' must be a string, one string in an array, or token ids.");
    }
  }

  bool present = false;
  req.max_tokens = default_max_tokens;
  if (!read_count(body, "max_tokens", req.max_tokens, present)) {
    return bad_request("'max_tokens' must be a non-negative integer.");
  }
  if (!present && !read_count(body, "max_completion_tokens", req.max_tokens, present)) {
    return bad_request("'max_completion_tokens' must be a non-negative integer.");
  }
  if (req.max_tokens < 1) return bad_request("'max_tokens' must be at least 1.");
  if (!read_count(body, "min_tokens", req.min_tokens, present)) {
    return bad_request("'min_tokens' must be a non-negative integer.");
  }
  if (req.min_tokens > req.max_tokens) {
    return bad_request("'min_tokens' must not exceed 'max_tokens'.");
  }
  if (!read_bool(body, "stream", req.stream)) return bad_request("'stream' must be a boolean.");
  if (!read_bool(body, "ignore_eos", req.ignore_eos)) {
    return bad_request("'ignore_eos' must be a boolean.");
  }
  if (const auto opts = body.find("stream_options"); opts != body.end() && !opts->is_null()) {
    if (!opts->is_object() || !read_bool(*opts, "include_usage", req.include_usage)) {
      return bad_request("'stream_options.include_usage' must be a boolean.");
    }
    if (!read_bool(*opts, "continuous_usage_stats", req.continuous_usage)) {
      return bad_request("'stream_options.continuous_usage_stats' must be a boolean.");
    }
  }
  if (hash_block_size > 0) hash_prompt(body, api, hash_block_size, req.block_hashes);
  return req;
}

}  // namespace tokenbench::sim
