#include "tokenbench/sim/openai_request.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "tokenbench/core/approx_tokens.h"
#include "tokenbench/sim/sim_rng.h"

namespace tokenbench::sim {
namespace {

using nlohmann::json;

RequestError bad_request(std::string message) {
  return {400, "invalid_request_error", std::move(message)};
}

// Counts a message's content: a string, or an array of parts whose "text" fields count.
bool count_content(const json& content, std::int64_t& tokens) {
  if (content.is_null()) return true;
  if (content.is_string()) {
    tokens += core::approx_token_count(content.get_ref<const std::string&>());
    return true;
  }
  if (!content.is_array()) return false;
  for (const json& part : content) {
    if (!part.is_object()) return false;
    const auto text = part.find("text");
    if (text != part.end() && text->is_string()) {
      tokens += core::approx_token_count(text->get_ref<const std::string&>());
    }
  }
  return true;
}

// Reads an optional non-negative integer field; returns false when present with a bad value.
bool read_count(const json& body, const char* key, std::int64_t& out, bool& present) {
  present = false;
  const auto it = body.find(key);
  if (it == body.end() || it->is_null()) return true;
  if (!it->is_number_integer() || it->get<std::int64_t>() < 0) return false;
  out = it->get<std::int64_t>();
  present = true;
  return true;
}

bool read_bool(const json& body, const char* key, bool& out) {
  const auto it = body.find(key);
  if (it == body.end() || it->is_null()) return true;
  if (!it->is_boolean()) return false;
  out = it->get<bool>();
  return true;
}

// FNV-1a: a cheap, stable hash of a word.
std::uint64_t fnv1a(std::string_view text) {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (const char c : text) {
    h ^= static_cast<unsigned char>(c);
    h *= 0x100000001b3ULL;
  }
  return h;
}

// Chains token hashes and records the state at the end of every full block, as vLLM's block
// hashes do: a block's hash identifies its tokens and every token before them.
class PromptHasher {
 public:
  PromptHasher(std::int64_t block_size, std::vector<std::uint64_t>& out)
      : block_size_(block_size), out_(out) {}

  void add_role(std::string_view role) { state_ = mix_keys(state_, fnv1a(role), 0x201e); }

  void add_token(std::uint64_t token) {
    state_ = mix_keys(state_, token);
    if (++tokens_ % block_size_ == 0) out_.push_back(state_);
  }

  // The words that core::approx_token_count counts, one token each.
  void add_text(std::string_view text) {
    std::size_t i = 0;
    while (i < text.size()) {
      while (i < text.size() && is_space(text[i])) ++i;
      const std::size_t start = i;
      while (i < text.size() && !is_space(text[i])) ++i;
      if (i > start) add_token(fnv1a(text.substr(start, i - start)));
    }
  }

  void add_content(const json& content) {
    if (content.is_string()) return add_text(content.get_ref<const std::string&>());
    if (!content.is_array()) return;
    for (const json& part : content) {
      const auto text = part.find("text");
      if (text != part.end() && text->is_string()) add_text(text->get_ref<const std::string&>());
    }
  }

 private:
  static bool is_space(char c) { return c == ' ' || c == '\n' || c == '\t' || c == '\r'; }

  std::int64_t block_size_;
  std::vector<std::uint64_t>& out_;
  std::uint64_t state_ = 0x9f2c;
  std::int64_t tokens_ = 0;
};

void hash_prompt(const json& body, ApiKind api, std::int64_t block_size,
                 std::vector<std::uint64_t>& out) {
  PromptHasher hasher(block_size, out);
  if (api == ApiKind::kChat) {
    for (const json& m : body["messages"]) {
      const auto role = m.find("role");
      hasher.add_role(role != m.end() && role->is_string() ? role->get_ref<const std::string&>()
                                                           : std::string());
      if (const auto content = m.find("content"); content != m.end()) hasher.add_content(*content);
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

std::uint64_t request_body_limit(std::int64_t max_model_len) {
  const auto tokens = static_cast<std::uint64_t>(std::max<std::int64_t>(0, max_model_len));
  if (tokens >= (kBodyLimitCap - kBodySlack) / kBodyBytesPerToken) return kBodyLimitCap;
  return tokens * kBodyBytesPerToken + kBodySlack;
}

std::variant<CompletionRequest, RequestError> parse_completion_request(
    ApiKind api, std::string_view body_text, std::string_view served_model,
    std::int64_t default_max_tokens, std::int64_t hash_block_size) {
  const json body = json::parse(body_text, nullptr, /*allow_exceptions=*/false);
  if (body.is_discarded()) return bad_request("The request body is not valid JSON.");
  if (!body.is_object()) return bad_request("The request body must be a JSON object.");

  CompletionRequest req;
  req.api = api;
  if (const auto model = body.find("model"); model != body.end() && !model->is_null()) {
    if (!model->is_string()) return bad_request("'model' must be a string.");
    const auto& name = model->get_ref<const std::string&>();
    if (!name.empty() && name != served_model) {
      return RequestError{404, "invalid_request_error",
                          "The model `" + name + "` does not exist. This server serves `" +
                              std::string(served_model) + "`."};
    }
  }

  if (api == ApiKind::kChat) {
    const auto messages = body.find("messages");
    if (messages == body.end()) return bad_request("'messages' is a required property.");
    if (!messages->is_array()) return bad_request("'messages' must be an array.");
    for (const json& m : *messages) {
      if (!m.is_object()) return bad_request("Each message must be an object.");
      const auto content = m.find("content");
      if (content != m.end() && !count_content(*content, req.prompt_tokens)) {
        return bad_request("A message's 'content' must be a string or an array of parts.");
      }
    }
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
  }
  if (hash_block_size > 0) hash_prompt(body, api, hash_block_size, req.block_hashes);
  return req;
}

}  // namespace tokenbench::sim
