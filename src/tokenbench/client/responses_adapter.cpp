// OpenAI's Responses API (POST /v1/responses), from its public documentation: the request's
// input, instructions and max_output_tokens; the stream's events response.created,
// response.output_text.delta, response.reasoning_text.delta and response.reasoning_summary_text
// .delta, response.function_call_arguments.delta, response.refusal.delta, response.completed /
// response.incomplete (with usage), response.failed and error. The stream has no [DONE]: it
// ends after response.completed.

#include <nlohmann/json.hpp>
#include <string>

#include "tokenbench/client/api_dialects.h"

namespace tokenbench::client {
namespace {

using simdjson::dom::element;

bool starts_with(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

// An OpenAI chat message's content as the Responses API's input content.
nlohmann::json input_content(const nlohmann::json& content) {
  if (!content.is_array()) return content;
  nlohmann::json out = nlohmann::json::array();
  for (const auto& part : content) {
    if (const std::string_view url = image_url_of(part); !url.empty()) {
      out.push_back({{"type", "input_image"}, {"image_url", std::string(url)}});
    } else if (part.is_object() && part.value("type", "") == "text") {
      out.push_back({{"type", "input_text"}, {"text", part.value("text", "")}});
    } else {
      out.push_back(part);
    }
  }
  return out;
}

// A chat message as Responses input items: a message; an assistant's tool calls as
// function_call items (after its text, if any); a tool result as a function_call_output.
void add_input_items(const nlohmann::json& m, nlohmann::json& input) {
  const std::string role = m.value("role", "user");
  const auto content = m.find("content");
  const bool has_text =
      content != m.end() && !content->is_null() && !(content->is_string() && content->empty());
  if (role == "tool") {
    input.push_back({{"type", "function_call_output"},
                     {"call_id", m.value("tool_call_id", "")},
                     {"output", has_text && content->is_string() ? *content : nlohmann::json("")}});
    return;
  }
  const auto calls = m.find("tool_calls");
  if (role == "assistant" && calls != m.end() && calls->is_array()) {
    if (has_text) input.push_back({{"role", role}, {"content", input_content(*content)}});
    for (const auto& call : *calls) {
      if (!call.is_object()) continue;
      const auto fn = call.value("function", nlohmann::json::object());
      input.push_back({{"type", "function_call"},
                       {"call_id", call.value("id", "")},
                       {"name", fn.is_object() ? fn.value("name", "") : ""},
                       {"arguments", fn.is_object() ? fn.value("arguments", "{}") : "{}"}});
    }
    return;
  }
  input.push_back(
      {{"role", role},
       {"content",
        input_content(content != m.end() && !content->is_null() ? *content : nlohmann::json(""))}});
}

// usage.input_tokens, output_tokens, output_tokens_details.reasoning_tokens and
// input_tokens_details.cached_tokens of a response.
void read_usage(const element& response, ApiEvent& ev) {
  element usage;
  if (response["usage"].get(usage) != simdjson::SUCCESS || !usage.is_object()) return;
  if (const std::int64_t in = count_field(usage, "input_tokens"); in >= 0) {
    ev.prompt_tokens = in;
    ev.has_usage = true;
  }
  if (const std::int64_t out = count_field(usage, "output_tokens"); out >= 0) {
    ev.completion_tokens = out;
    ev.has_usage = true;
  }
  element details;
  if (usage["output_tokens_details"].get(details) == simdjson::SUCCESS) {
    ev.reasoning_tokens = count_field(details, "reasoning_tokens");
  }
  if (usage["input_tokens_details"].get(details) == simdjson::SUCCESS) {
    ev.cached_tokens = count_field(details, "cached_tokens");
  }
}

class ResponsesAdapter : public ApiAdapter {
 public:
  std::string build_body(const core::RequestSpec& spec, const BodyOptions& options) const override {
    nlohmann::json body = nlohmann::json::object();
    if (spec.messages_json.empty()) {
      body["input"] = spec.prompt;
    } else {
      nlohmann::json input = nlohmann::json::array();
      for (const auto& m : chat_messages(spec)) {
        if (!m.is_object()) continue;
        add_input_items(m, input);
      }
      body["input"] = std::move(input);
    }
    if (spec.max_tokens > 0) body["max_output_tokens"] = spec.max_tokens;
    body["stream"] = options.stream;
    return finish_body(std::move(body), options);
  }

  ApiEvent parse_event(std::string_view data) override {
    ApiEvent ev;
    element root;
    if (!parse_object(data, root, ev)) return ev;
    tool_.clear();
    const std::string_view type = string_field(root, "type");
    if (ends_with(type, ".delta")) {
      const std::string_view delta = string_field(root, "delta");
      if (type == "response.output_text.delta" || type == "response.refusal.delta") {
        ev.content_text = delta;
      } else if (starts_with(type, "response.reasoning")) {
        ev.reasoning_text = delta;  // reasoning_text, reasoning_summary_text
      } else if (type == "response.function_call_arguments.delta") {
        tool_.assign(delta);
        ev.tool_text = tool_;
      }
      ev.content_bytes = static_cast<std::int64_t>(ev.content_text.size() +
                                                   ev.reasoning_text.size() + ev.tool_text.size());
      return ev;
    }
    element response;
    const bool has_response = root["response"].get(response) == simdjson::SUCCESS;
    if (type == "response.completed" || type == "response.incomplete") {
      ev.last = true;
      if (has_response) {
        ev.response_id = string_field(response, "id");
        read_usage(response, ev);
        element details;
        std::string_view reason;
        if (response["incomplete_details"].get(details) == simdjson::SUCCESS &&
            details.is_object()) {
          reason = string_field(details, "reason");
        }
        set_finish(ev, reason.empty() ? string_field(response, "status") : reason);
      }
    } else if (type == "response.created" || type == "response.in_progress") {
      if (has_response) ev.response_id = string_field(response, "id");
    } else if (type == "response.output_item.added") {
      element item;
      if (root["item"].get(item) == simdjson::SUCCESS &&
          string_field(item, "type") == "function_call") {
        tool_.assign(string_field(item, "name"));  // the call's name is its first output
        ev.tool_text = tool_;
        ev.content_bytes = static_cast<std::int64_t>(tool_.size());
      }
    } else if (type == "response.failed") {
      element err;
      set_error(ev,
                has_response && response["error"].get(err) == simdjson::SUCCESS && err.is_object()
                    ? string_field(err, "message")
                    : std::string_view("the response failed"));
    } else if (type == "error") {
      element err;
      std::string_view message = string_field(root, "message");
      if (message.empty() && root["error"].get(err) == simdjson::SUCCESS) {
        message = string_field(err, "message");
      }
      set_error(ev, message);
    }
    return ev;
  }

  ApiEvent parse_response(std::string_view body) override {
    ApiEvent ev;
    element root;
    if (!parse_object(body, root, ev) || error_in(root, ev)) return ev;
    ev.response_id = string_field(root, "id");
    tool_.clear();
    element output;
    if (root["output"].get(output) == simdjson::SUCCESS && output.is_array()) {
      for (element item : output.get_array()) {
        const std::string_view type = string_field(item, "type");
        if (type == "function_call") {
          tool_.append(string_field(item, "name"));
          tool_.append(string_field(item, "arguments"));
          continue;
        }
        element parts;
        for (const char* key : {"content", "summary"}) {
          if (item[key].get(parts) != simdjson::SUCCESS || !parts.is_array()) continue;
          for (element part : parts.get_array()) {
            const std::string_view text = string_field(part, "text");
            if (type == "message" && ev.content_text.empty()) ev.content_text = text;
            if (type == "reasoning" && ev.reasoning_text.empty()) ev.reasoning_text = text;
          }
        }
      }
    }
    ev.tool_text = tool_;
    ev.content_bytes =
        static_cast<std::int64_t>(ev.content_text.size() + ev.reasoning_text.size() + tool_.size());
    element details;
    std::string_view reason;
    if (root["incomplete_details"].get(details) == simdjson::SUCCESS && details.is_object()) {
      reason = string_field(details, "reason");
    }
    set_finish(ev, reason.empty() ? string_field(root, "status") : reason);
    read_usage(root, ev);
    return ev;
  }
};

}  // namespace

std::unique_ptr<ApiAdapter> make_responses_adapter() {
  return std::make_unique<ResponsesAdapter>();
}

}  // namespace tokenbench::client
