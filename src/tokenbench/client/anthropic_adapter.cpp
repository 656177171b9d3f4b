// Anthropic's Messages API (POST /v1/messages), from its public documentation: the request's
// messages, system and max_tokens; the stream's events message_start, content_block_start,
// content_block_delta (text_delta, thinking_delta, input_json_delta), content_block_stop,
// message_delta (stop_reason, usage.output_tokens), message_stop, ping and error.

#include <algorithm>
#include <nlohmann/json.hpp>
#include <string>

#include "tokenbench/client/api_dialects.h"
#include "tokenbench/core/json_parse.h"

namespace tokenbench::client {
namespace {

using simdjson::dom::element;

// An OpenAI image part as an Anthropic image block: a data URL becomes a base64 source, any
// other URL a url source.
nlohmann::json image_block(std::string_view url) {
  constexpr std::string_view kData = "data:";
  const auto comma = url.find(',');
  const auto base64 = url.find(";base64");
  if (url.substr(0, kData.size()) == kData && comma != std::string_view::npos &&
      base64 != std::string_view::npos && base64 < comma) {
    return {{"type", "image"},
            {"source",
             {{"type", "base64"},
              {"media_type", std::string(url.substr(kData.size(), base64 - kData.size()))},
              {"data", std::string(url.substr(comma + 1))}}}};
  }
  return {{"type", "image"}, {"source", {{"type", "url"}, {"url", std::string(url)}}}};
}

// An OpenAI message's content as Anthropic's: a string stays; text and image parts are renamed.
nlohmann::json content_of(const nlohmann::json& content) {
  if (!content.is_array()) return content;
  nlohmann::json out = nlohmann::json::array();
  for (const auto& part : content) {
    if (const std::string_view url = image_url_of(part); !url.empty()) {
      out.push_back(image_block(url));
    } else {
      out.push_back(part);  // {"type":"text","text":...} is the same in both APIs
    }
  }
  return out;
}

std::string text_of(const nlohmann::json& content) {
  if (content.is_string()) return content.get<std::string>();
  std::string out;
  if (content.is_array()) {
    for (const auto& part : content) {
      if (part.is_object() && part.contains("text") && part["text"].is_string()) {
        out += part["text"].get<std::string>();
      }
    }
  }
  return out;
}

// An assistant's OpenAI tool calls as Anthropic content: its text, then a tool_use block per
// call, whose input is the call's arguments parsed (an object; {} when they are not one).
nlohmann::json tool_use_content(const nlohmann::json& m) {
  nlohmann::json out = nlohmann::json::array();
  const auto content = m.find("content");
  if (content != m.end() && content->is_string() && !content->empty()) {
    out.push_back({{"type", "text"}, {"text", *content}});
  }
  for (const auto& call : m["tool_calls"]) {
    if (!call.is_object()) continue;
    const auto fn = call.value("function", nlohmann::json::object());
    auto input = core::parse_json_or_discarded(fn.is_object() && fn.contains("arguments") &&
                                                       fn["arguments"].is_string()
                                                   ? fn["arguments"].get<std::string>()
                                                   : std::string("{}"));
    if (!input.is_object()) input = nlohmann::json::object();
    out.push_back({{"type", "tool_use"},
                   {"id", call.value("id", "")},
                   {"name", fn.is_object() ? fn.value("name", "") : ""},
                   {"input", std::move(input)}});
  }
  return out;
}

// An OpenAI tool result as Anthropic's tool_result block (sent in a user message).
nlohmann::json tool_result_block(const nlohmann::json& m) {
  const auto content = m.find("content");
  return {{"type", "tool_result"},
          {"tool_use_id", m.value("tool_call_id", "")},
          {"content", content != m.end() && !content->is_null() ? text_of(*content) : ""}};
}

class AnthropicAdapter : public ApiAdapter {
 public:
  std::string build_body(const core::RequestSpec& spec, const BodyOptions& options) const override {
    nlohmann::json body = nlohmann::json::object();
    body["max_tokens"] = spec.max_tokens > 0 ? spec.max_tokens : kAnthropicDefaultMaxTokens;
    std::string system;
    nlohmann::json messages = nlohmann::json::array();
    for (const auto& m : chat_messages(spec)) {
      if (!m.is_object()) continue;
      const std::string role = m.value("role", "user");
      const nlohmann::json content = m.contains("content") ? m["content"] : nlohmann::json("");
      if (role == "system" || role == "developer") {  // Anthropic takes it beside the messages
        if (!system.empty()) system += "\n";
        system += text_of(content);
        continue;
      }
      if (role == "tool") {  // results of one turn's calls go together in one user message
        const bool joins = !messages.empty() && messages.back()["role"] == "user" &&
                           messages.back()["content"].is_array() &&
                           !messages.back()["content"].empty() &&
                           messages.back()["content"].back().value("type", "") == "tool_result";
        if (!joins) messages.push_back({{"role", "user"}, {"content", nlohmann::json::array()}});
        messages.back()["content"].push_back(tool_result_block(m));
        continue;
      }
      if (role == "assistant" && m.contains("tool_calls") && m["tool_calls"].is_array()) {
        messages.push_back({{"role", role}, {"content", tool_use_content(m)}});
        continue;
      }
      messages.push_back({{"role", role}, {"content", content_of(content)}});
    }
    if (!system.empty()) body["system"] = system;
    body["messages"] = std::move(messages);
    body["stream"] = options.stream;
    return finish_body(std::move(body), options);
  }

  ApiEvent parse_event(std::string_view data) override {
    ApiEvent ev;
    element root;
    if (!parse_object(data, root, ev)) return ev;
    tool_.clear();
    const std::string_view type = string_field(root, "type");
    if (type == "content_block_delta") {
      element delta;
      if (root["delta"].get(delta) != simdjson::SUCCESS) return ev;
      const std::string_view kind = string_field(delta, "type");
      if (kind == "text_delta") {
        ev.content_text = string_field(delta, "text");
      } else if (kind == "thinking_delta") {
        ev.reasoning_text = string_field(delta, "thinking");
      } else if (kind == "input_json_delta") {
        tool_.assign(string_field(delta, "partial_json"));
        ev.tool_text = tool_;
      }
      ev.content_bytes = static_cast<std::int64_t>(ev.content_text.size() +
                                                   ev.reasoning_text.size() + ev.tool_text.size());
    } else if (type == "content_block_start") {
      element block;
      if (root["content_block"].get(block) == simdjson::SUCCESS &&
          string_field(block, "type") == "tool_use") {
        tool_.assign(string_field(block, "name"));  // the call's name is its first output
        ev.tool_text = tool_;
        ev.content_bytes = static_cast<std::int64_t>(tool_.size());
      }
    } else if (type == "message_start") {
      element message;
      if (root["message"].get(message) == simdjson::SUCCESS) {
        ev.response_id = string_field(message, "id");
        read_usage(message, ev, /*output=*/false);
      }
    } else if (type == "message_delta") {
      element delta;
      if (root["delta"].get(delta) == simdjson::SUCCESS) {
        set_finish(ev, string_field(delta, "stop_reason"));
      }
      read_usage(root, ev, /*output=*/true);
    } else if (type == "message_stop") {
      ev.last = true;
    } else if (type == "error") {
      element err;
      set_error(ev, root["error"].get(err) == simdjson::SUCCESS ? string_field(err, "message")
                                                                : std::string_view());
    }
    return ev;  // ping, content_block_stop and types added later carry nothing measured
  }

  ApiEvent parse_response(std::string_view body) override {
    ApiEvent ev;
    element root;
    if (!parse_object(body, root, ev) || error_in(root, ev)) return ev;
    if (string_field(root, "type") == "error") {
      set_error(ev, {});
      return ev;
    }
    ev.response_id = string_field(root, "id");
    tool_.clear();
    element content;
    if (root["content"].get(content) == simdjson::SUCCESS && content.is_array()) {
      for (element block : content.get_array()) {
        const std::string_view type = string_field(block, "type");
        if (type == "text" && ev.content_text.empty()) {
          ev.content_text = string_field(block, "text");
        } else if (type == "thinking" && ev.reasoning_text.empty()) {
          ev.reasoning_text = string_field(block, "thinking");
        } else if (type == "tool_use") {
          tool_.append(string_field(block, "name"));
          element input;
          if (block["input"].get(input) == simdjson::SUCCESS) tool_.append(simdjson::minify(input));
        }
      }
    }
    ev.tool_text = tool_;
    ev.content_bytes =
        static_cast<std::int64_t>(ev.content_text.size() + ev.reasoning_text.size() + tool_.size());
    set_finish(ev, string_field(root, "stop_reason"));
    read_usage(root, ev, /*output=*/true);
    return ev;
  }

 private:
  // usage.input_tokens (and, when `output`, usage.output_tokens) of `parent`.
  static void read_usage(const element& parent, ApiEvent& ev, bool output) {
    element usage;
    if (parent["usage"].get(usage) != simdjson::SUCCESS || !usage.is_object()) return;
    const std::int64_t read = count_field(usage, "cache_read_input_tokens");
    const std::int64_t written = count_field(usage, "cache_creation_input_tokens");
    if (read >= 0) ev.cached_tokens = read;
    if (written >= 0) ev.cache_write_tokens = written;
    if (const std::int64_t in = count_field(usage, "input_tokens"); in >= 0) {
      // input_tokens leaves out the prompt tokens read from or written to the cache: the prompt
      // is the three together, as other APIs count it (the cached ones are kept apart above).
      ev.prompt_tokens = in + std::max<std::int64_t>(0, read) + std::max<std::int64_t>(0, written);
      ev.has_usage = true;
    }
    if (!output) return;
    if (const std::int64_t out = count_field(usage, "output_tokens"); out >= 0) {
      ev.completion_tokens = out;
      ev.has_usage = true;
    }
  }
};

}  // namespace

std::unique_ptr<ApiAdapter> make_anthropic_adapter() {
  return std::make_unique<AnthropicAdapter>();
}

}  // namespace tokenbench::client
