#include "tokenbench/sim/messages_request.h"

#include <nlohmann/json.hpp>
#include <optional>

#include "tokenbench/core/approx_tokens.h"
#include "tokenbench/core/json_parse.h"
#include "tokenbench/sim/request_fields.h"

namespace tokenbench::sim {
namespace {

using fields::bad_request;
using nlohmann::json;

// A tool_use block's name and input, or a tool_result block's content: counted and hashed.
void read_tool_block(const json& block, CompletionRequest& req, fields::PromptHasher& hasher) {
  for (const char* key : {"name", "input", "content"}) {
    const auto v = block.find(key);
    if (v == block.end() || v->is_null()) continue;
    // A tool_result's content may be blocks of text: their text, as a message's.
    const std::string text = v->is_array() ? std::string() : fields::text_of(*v);
    if (v->is_array()) {
      for (const json& part : *v) {
        if (part.is_object() && part.contains("text")) {
          req.prompt_tokens += core::approx_token_count(fields::text_of(part["text"]));
        }
      }
      hasher.add_content(*v);
      continue;
    }
    req.prompt_tokens += core::approx_token_count(text);
    hasher.add_text(text);
  }
}

// A content (or system) value: a string, or blocks whose "text" counts and whose image blocks
// (base64 sources only) are charged as images; tool_use and tool_result blocks count their
// name, input and content. Every text is hashed in order.
std::optional<RequestError> count_blocks(const json& content, CompletionRequest& req,
                                         fields::PromptHasher& hasher) {
  if (content.is_string()) {
    fields::count_text(content, req);
    hasher.add_text(content.get_ref<const std::string&>());
    return std::nullopt;
  }
  if (!content.is_array()) return bad_request("'content' must be a string or an array of blocks.");
  for (const json& block : content) {
    if (!block.is_object()) return bad_request("Each content block must be an object.");
    if (const auto text = block.find("text"); text != block.end()) {
      fields::count_text(*text, req);
      hasher.add_json(*text);
    }
    const auto type = block.find("type");
    if (type != block.end() && (*type == "tool_use" || *type == "tool_result")) {
      hasher.add_role(type->get<std::string>());
      read_tool_block(block, req, hasher);
      continue;
    }
    if (type == block.end() || *type != "image") continue;
    const auto source = block.find("source");
    if (source == block.end() || !source->is_object()) {
      return bad_request("An image block must carry a source.");
    }
    const auto data = source->find("data");
    if (source->value("type", "") != "base64" || data == source->end() || !data->is_string()) {
      return bad_request(
          "An image block's source must be {\"type\":\"base64\",\"media_type\":...,\"data\":...}: "
          "the simulator fetches no images.");
    }
    if (auto err = fields::count_image_base64(data->get_ref<const std::string&>(), req)) {
      return err;
    }
  }
  return std::nullopt;
}

}  // namespace

std::variant<CompletionRequest, RequestError> parse_messages_request(std::string_view text,
                                                                     std::string_view served_model,
                                                                     std::int64_t hash_block_size) {
  std::optional<RequestError> error;
  const json body = fields::parse_object(text, error);
  if (error) return *error;
  if (auto err = fields::check_model(body, served_model)) return *err;
  CompletionRequest req;
  req.api = ApiKind::kMessages;
  bool present = false;
  if (!fields::read_count(body, "max_tokens", req.max_tokens, present)) {
    return bad_request("max_tokens: must be a non-negative integer.");
  }
  if (!present) return bad_request("max_tokens: Field required");
  if (req.max_tokens < 1) return bad_request("max_tokens: must be at least 1.");
  // The model reads the system prompt first, then the messages, in order.
  fields::PromptHasher hasher(hash_block_size, req.block_hashes);
  if (const auto system = body.find("system"); system != body.end() && !system->is_null()) {
    hasher.add_role("system");
    if (auto err = count_blocks(*system, req, hasher)) return *err;
  }
  const auto messages = body.find("messages");
  if (messages == body.end()) return bad_request("messages: Field required");
  if (!messages->is_array()) return bad_request("messages: must be an array.");
  for (const json& m : *messages) {
    if (!m.is_object()) return bad_request("Each message must be an object.");
    hasher.add_role(m.value("role", ""));
    if (const auto content = m.find("content"); content != m.end()) {
      if (auto err = count_blocks(*content, req, hasher)) return *err;
    }
  }
  if (!fields::read_bool(body, "stream", req.stream)) {
    return bad_request("stream: must be a boolean.");
  }
  if (const auto thinking = body.find("thinking");
      thinking != body.end() && thinking->is_object()) {
    req.reasoning = thinking->value("type", "") == "enabled";
  }
  return req;
}

}  // namespace tokenbench::sim
