#include "tokenbench/client/api_adapter.h"

#include "tokenbench/core/apportion.h"
#include "tokenbench/core/text.h"

#include <algorithm>
#include <cstring>
#include <nlohmann/json.hpp>
#include <stdexcept>

namespace tokenbench::client {
namespace {

using simdjson::dom::element;

std::string_view string_field(const element& parent, const char* key) {
  std::string_view s;
  if (parent[key].get(s) == simdjson::SUCCESS) return s;
  return {};
}

}  // namespace

std::string OpenAIAdapter::build_body(const core::RequestSpec& spec,
                                      const BodyOptions& options) const {
  nlohmann::json body = nlohmann::json::object();
  if (!options.model.empty()) body["model"] = options.model;
  if (api_ == core::ApiKind::kOpenAIChat) {
    if (!spec.messages_json.empty()) {
      auto messages = nlohmann::json::parse(spec.messages_json, nullptr, false);
      if (!messages.is_array()) {
        throw std::invalid_argument("request " + std::to_string(spec.id) +
                                    ": messages must be a JSON array");
      }
      body["messages"] = std::move(messages);
    } else {
      body["messages"] = nlohmann::json::array({{{"role", "user"}, {"content", spec.prompt}}});
    }
  } else {
    body["prompt"] = spec.prompt;
  }
  if (spec.max_tokens > 0) {
    body["max_tokens"] = spec.max_tokens;
    if (options.ignore_eos) {
      body["ignore_eos"] = true;
      body["min_tokens"] = spec.max_tokens;
    }
  }
  body["stream"] = options.stream;
  if (options.stream) body["stream_options"] = {{"include_usage", true}};
  if (!options.extra_body.empty()) {
    auto extra = nlohmann::json::parse(options.extra_body, nullptr, false);
    if (!extra.is_object()) {
      throw std::invalid_argument(
          "--extra-body must be a JSON object, e.g. '{\"ignore_eos\":true}'");
    }
    body.merge_patch(extra);
  }
  return body.dump();
}

ApiEvent OpenAIAdapter::parse_event(std::string_view data) {
  if (data == "[DONE]") {
    ApiEvent ev;
    ev.kind = ApiEvent::Kind::kDone;
    return ev;
  }
  return parse(data, true);
}

ApiEvent OpenAIAdapter::parse_response(std::string_view body) { return parse(body, false); }

ApiEvent OpenAIAdapter::parse(std::string_view json, bool streamed) {
  ApiEvent ev;
  const std::size_t need = json.size() + simdjson::SIMDJSON_PADDING;
  if (padded_.size() < need) padded_.resize(std::max(need, padded_.size() * 2));
  std::memcpy(padded_.data(), json.data(), json.size());
  element root;
  if (parser_.parse(padded_.data(), json.size(), false).get(root) != simdjson::SUCCESS ||
      !root.is_object()) {
    ev.kind = ApiEvent::Kind::kMalformed;
    error_.assign("unparseable event: ");
    error_.append(core::utf8_prefix(json, 120));
    ev.error_message = error_;
    return ev;
  }
  element err;
  if (root["error"].get(err) == simdjson::SUCCESS && !err.is_null()) {
    ev.kind = ApiEvent::Kind::kError;
    std::string_view msg;
    if (err.get(msg) != simdjson::SUCCESS && err["message"].get(msg) != simdjson::SUCCESS) {
      msg = "error object without message";
    }
    error_.assign(msg);
    ev.error_message = error_;
    return ev;
  }
  element choices;
  if (root["choices"].get(choices) == simdjson::SUCCESS && choices.is_array()) {
    for (element choice : choices.get_array()) {
      std::string_view content;
      std::string_view reasoning;
      if (api_ == core::ApiKind::kOpenAIChat) {
        element msg;
        if (choice[streamed ? "delta" : "message"].get(msg) == simdjson::SUCCESS &&
            msg.is_object()) {
          content = string_field(msg, "content");
          reasoning = string_field(msg, "reasoning_content");
          if (reasoning.empty()) reasoning = string_field(msg, "reasoning");
        }
      } else {
        content = string_field(choice, "text");
      }
      ev.content_bytes += static_cast<std::int64_t>(content.size() + reasoning.size());
      if (ev.content_text.empty()) ev.content_text = content;
      if (ev.reasoning_text.empty()) ev.reasoning_text = reasoning;
      std::string_view finish;
      if (choice["finish_reason"].get(finish) == simdjson::SUCCESS && !finish.empty()) {
        finish_.assign(finish);
        ev.finish_reason = finish_;
      }
    }
  }
  element usage;
  if (root["usage"].get(usage) == simdjson::SUCCESS && usage.is_object()) {
    std::int64_t v = 0;
    if (usage["prompt_tokens"].get(v) == simdjson::SUCCESS) {
      ev.prompt_tokens = v;
      ev.has_usage = true;
    }
    if (usage["completion_tokens"].get(v) == simdjson::SUCCESS) {
      ev.completion_tokens = v;
      ev.has_usage = true;
    }
  }
  return ev;
}

std::string OpenAIAdapter::error_message_from_body(std::string_view body) {
  const auto j = nlohmann::json::parse(body, nullptr, false);
  if (j.is_object()) {
    if (j.contains("error")) {
      const auto& e = j["error"];
      if (e.is_string()) return e.get<std::string>();
      if (e.is_object() && e.contains("message") && e["message"].is_string()) {
        return e["message"].get<std::string>();
      }
    }
    for (const char* key : {"message", "detail"}) {
      if (j.contains(key) && j[key].is_string()) return j[key].get<std::string>();
    }
  }
  std::string_view first = body.substr(0, body.find('\n'));
  return std::string(core::utf8_prefix(first, 200));
}

std::vector<std::int32_t> distribute_tokens(const std::vector<std::int32_t>& chunk_bytes,
                                            std::int64_t total_tokens) {
  const std::size_t n = chunk_bytes.size();
  std::vector<std::int32_t> tokens(n, 1);
  if (n == 0 || total_tokens <= static_cast<std::int64_t>(n)) return tokens;
  // Every chunk carried at least one token; the rest go by bytes (evenly without byte counts).
  const bool have_bytes = std::any_of(chunk_bytes.begin(), chunk_bytes.end(),
                                      [](std::int32_t b) { return b > 0; });
  const auto extra = core::apportion(have_bytes ? chunk_bytes : tokens,
                                     total_tokens - static_cast<std::int64_t>(n));
  for (std::size_t i = 0; i < n; ++i) tokens[i] += extra[i];
  return tokens;
}

}  // namespace tokenbench::client
