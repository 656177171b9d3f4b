#include "tokenbench/client/api_adapter.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "tokenbench/client/api_dialects.h"
#include "tokenbench/core/apportion.h"
#include "tokenbench/core/json_parse.h"
#include "tokenbench/core/text.h"

namespace tokenbench::client {
namespace {

using simdjson::dom::element;

// Appends a function call's name and arguments ({"name":..,"arguments":..}) to `out`.
void append_function(const element& function, std::string& out) {
  if (!function.is_object()) return;
  out.append(string_field(function, "name"));
  out.append(string_field(function, "arguments"));
}

// Appends the text of a chat message's (or delta's) tool calls, and of the older function_call.
void append_tool_calls(const element& msg, std::string& out) {
  element calls;
  if (msg["tool_calls"].get(calls) == simdjson::SUCCESS && calls.is_array()) {
    for (element call : calls.get_array()) {
      element function;
      if (call["function"].get(function) == simdjson::SUCCESS) append_function(function, out);
    }
  }
  element function_call;
  if (msg["function_call"].get(function_call) == simdjson::SUCCESS) {
    append_function(function_call, out);
  }
}

// A count of `timings`: an integer, or a number with an integral value (some servers write 33.0).
bool read_count(const element& parent, const char* key, std::int64_t& out) {
  double v = 0;
  if (parent[key].get(v) != simdjson::SUCCESS || !(v >= 0 && v < 1e15)) return false;
  out = static_cast<std::int64_t>(v);
  return true;
}

bool read_ms(const element& parent, const char* key, double& out) {
  double v = 0;
  if (parent[key].get(v) != simdjson::SUCCESS || !(v >= 0 && v < 1e12)) return false;
  out = v;
  return true;
}

// llama.cpp's `timings` object: prompt_ms and predicted_ms are needed, the counts default to 0.
void read_timings(const element& root, ApiEvent& ev) {
  element t;
  if (root["timings"].get(t) != simdjson::SUCCESS || !t.is_object()) return;
  core::ServerTimings& out = ev.timings;
  if (!read_ms(t, "prompt_ms", out.prompt_ms) || !read_ms(t, "predicted_ms", out.predicted_ms)) {
    return;
  }
  read_count(t, "prompt_n", out.prompt_n);
  read_count(t, "predicted_n", out.predicted_n);
  read_count(t, "cache_n", out.cache_n);
  ev.has_timings = true;
}

}  // namespace

std::unique_ptr<ApiAdapter> make_adapter(core::ApiKind api) {
  switch (api) {
    case core::ApiKind::kOpenAIChat:
    case core::ApiKind::kOpenAICompletions:
      return std::make_unique<OpenAIAdapter>(api);
    case core::ApiKind::kEmbeddings:
      return make_embeddings_adapter();
    case core::ApiKind::kRerank:
    case core::ApiKind::kScore:
      return make_rerank_adapter(api);
    case core::ApiKind::kAnthropicMessages:
      return make_anthropic_adapter();
    case core::ApiKind::kOpenAIResponses:
      return make_responses_adapter();
    case core::ApiKind::kSglangGenerate:
      return make_generate_adapter();
  }
  return std::make_unique<OpenAIAdapter>(api);
}

std::string_view image_url_of(const nlohmann::json& part) {
  if (!part.is_object() || part.value("type", "") != "image_url") return {};
  const auto it = part.find("image_url");
  if (it == part.end()) return {};
  if (it->is_string()) return it->get_ref<const std::string&>();
  if (it->is_object() && it->contains("url") && (*it)["url"].is_string()) {
    return (*it)["url"].get_ref<const std::string&>();
  }
  return {};
}

nlohmann::json chat_messages(const core::RequestSpec& spec) {
  if (spec.messages_json.empty()) {
    return nlohmann::json::array({{{"role", "user"}, {"content", spec.prompt}}});
  }
  auto messages = core::parse_json_or_discarded(spec.messages_json);
  if (!messages.is_array()) {
    throw std::invalid_argument("request " + std::to_string(spec.id) +
                                ": messages must be a JSON array");
  }
  return messages;
}

std::string ApiAdapter::finish_body(nlohmann::json body, const BodyOptions& options) {
  return merged_body(std::move(body), options).dump();
}

nlohmann::json ApiAdapter::merged_body(nlohmann::json body, const BodyOptions& options) {
  if (!options.model.empty()) body["model"] = options.model;
  if (!options.extra_body.empty()) {
    std::string deep;
    auto extra = core::parse_json_or_discarded(options.extra_body, &deep);
    if (!deep.empty()) throw std::invalid_argument("--extra-body is " + deep);
    if (!extra.is_object()) {
      throw std::invalid_argument(
          "--extra-body must be a JSON object, e.g. '{\"ignore_eos\":true}'");
    }
    body.merge_patch(extra);
  }
  return body;
}

ApiAdapter::ApiAdapter() {
  // simdjson counts the root container as depth 1 of max_depth - 1 allowed: one more than
  // kMaxJsonDepth lets exactly that many levels through. The depth stays when the parser grows.
  if (parser_.allocate(64 * 1024, core::kMaxJsonDepth + 1) != simdjson::SUCCESS) {
    // Out of memory: the first parse allocates again, with simdjson's own bound (1024 levels;
    // its parser does not recurse either way).
  }
}

bool ApiAdapter::parse_object(std::string_view json, element& root, ApiEvent& ev) {
  const std::size_t need = json.size() + simdjson::SIMDJSON_PADDING;
  if (padded_.size() < need) padded_.resize(std::max(need, padded_.size() * 2));
  std::memcpy(padded_.data(), json.data(), json.size());
  const auto error = parser_.parse(padded_.data(), json.size(), false).get(root);
  if (error == simdjson::SUCCESS && root.is_object()) return true;
  ev.kind = ApiEvent::Kind::kMalformed;
  if (error == simdjson::DEPTH_ERROR) {
    error_ = fmt::format(
        "the reply's JSON is nested deeper than {} levels, the limit of JSON "
        "documents read: ",
        core::kMaxJsonDepth);
  } else {
    error_.assign("unparseable event: ");
  }
  error_.append(core::utf8_prefix(json, 120));
  ev.error_message = error_;
  return false;
}

bool ApiAdapter::error_in(const element& root, ApiEvent& ev) {
  element err;
  if (root["error"].get(err) != simdjson::SUCCESS || err.is_null()) return false;
  std::string_view msg;
  if (err.get(msg) != simdjson::SUCCESS) msg = string_field(err, "message");
  set_error(ev, msg);
  return true;
}

void ApiAdapter::set_error(ApiEvent& ev, std::string_view message) {
  ev.kind = ApiEvent::Kind::kError;
  error_.assign(message.empty() ? std::string_view("error object without message") : message);
  ev.error_message = error_;
}

void ApiAdapter::set_finish(ApiEvent& ev, std::string_view reason) {
  if (reason.empty()) return;
  finish_.assign(reason);
  ev.finish_reason = finish_;
}

std::string OpenAIAdapter::build_body(const core::RequestSpec& spec,
                                      const BodyOptions& options) const {
  nlohmann::json body = nlohmann::json::object();
  if (api_ == core::ApiKind::kOpenAIChat) {
    body["messages"] = chat_messages(spec);
  } else {
    body["prompt"] = spec.prompt;
  }
  if (spec.max_tokens > 0) {
    body[options.max_tokens_field] = spec.max_tokens;
    if (options.ignore_eos) {
      body["ignore_eos"] = true;
      body["min_tokens"] = spec.max_tokens;
    }
  }
  body["stream"] = options.stream;
  if (options.stream) {
    body["stream_options"] = {{"include_usage", true}};
    if (options.continuous_usage) body["stream_options"]["continuous_usage_stats"] = true;
  }
  return finish_body(std::move(body), options);
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
  element root;
  if (!parse_object(json, root, ev) || error_in(root, ev)) return ev;
  // Servers put "id" first (vLLM, SGLang) or third (llama.cpp): a lookup of a few key compares.
  ev.response_id = string_field(root, "id");
  bool has_usage_object = false;
  tool_.clear();
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
          append_tool_calls(msg, tool_);
        }
      } else {
        content = string_field(choice, "text");
      }
      ev.content_bytes += static_cast<std::int64_t>(content.size() + reasoning.size());
      if (ev.content_text.empty()) ev.content_text = content;
      if (ev.reasoning_text.empty()) ev.reasoning_text = reasoning;
      std::string_view finish;
      if (choice["finish_reason"].get(finish) == simdjson::SUCCESS) set_finish(ev, finish);
    }
  }
  ev.content_bytes += static_cast<std::int64_t>(tool_.size());
  ev.tool_text = tool_;
  element usage;
  if (root["usage"].get(usage) == simdjson::SUCCESS && usage.is_object()) {
    has_usage_object = true;
    std::int64_t v = 0;
    if (usage["prompt_tokens"].get(v) == simdjson::SUCCESS) {
      ev.prompt_tokens = v;
      ev.has_usage = true;
    }
    if (usage["completion_tokens"].get(v) == simdjson::SUCCESS) {
      ev.completion_tokens = v;
      ev.has_usage = true;
    }
    if (usage["completion_tokens_details"]["reasoning_tokens"].get(v) == simdjson::SUCCESS) {
      ev.reasoning_tokens = v;
    }
    // OpenAI, vLLM and SGLang (--enable-cache-report) name it so; DeepSeek's API its own way.
    if (usage["prompt_tokens_details"]["cached_tokens"].get(v) == simdjson::SUCCESS ||
        usage["prompt_cache_hit_tokens"].get(v) == simdjson::SUCCESS) {
      ev.cached_tokens = std::max<std::int64_t>(0, v);
    }
  }
  if (!streamed || has_usage_object || !ev.finish_reason.empty()) read_timings(root, ev);
  return ev;
}

namespace {

std::string lower_prefix(std::string_view text, std::size_t n) {
  std::string out(text.substr(0, n));
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace

bool looks_like_html(std::string_view body) {
  const std::size_t start = body.find_first_not_of(" \t\r\n");
  if (start == std::string_view::npos || body[start] != '<') return false;
  const std::string head = lower_prefix(body.substr(start), 512);
  return head.rfind("<!doctype html", 0) == 0 || head.find("<html") != std::string::npos ||
         head.find("<head") != std::string::npos || head.find("<body") != std::string::npos;
}

std::string describe_html(std::string_view body) {
  const std::string lower = lower_prefix(body, 64 * 1024);
  const std::size_t open = lower.find("<title");
  const std::size_t text = open == std::string::npos ? open : lower.find('>', open);
  const std::size_t close = text == std::string::npos ? text : lower.find("</title", text);
  if (close == std::string::npos) return "an HTML page";
  std::string title(body.substr(text + 1, close - text - 1));
  title.erase(0, title.find_first_not_of(" \t\r\n"));
  title.erase(title.find_last_not_of(" \t\r\n") + 1);
  if (title.empty()) return "an HTML page";
  return "an HTML page titled '" + std::string(core::utf8_prefix(title, 120)) + "'";
}

std::string ApiAdapter::error_message_from_body(std::string_view body) {
  if (looks_like_html(body)) return describe_html(body);
  const auto j = core::parse_json_or_discarded(body);
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
  const bool have_bytes =
      std::any_of(chunk_bytes.begin(), chunk_bytes.end(), [](std::int32_t b) { return b > 0; });
  const auto extra = core::apportion(have_bytes ? chunk_bytes : tokens,
                                     total_tokens - static_cast<std::int64_t>(n));
  for (std::size_t i = 0; i < n; ++i) tokens[i] += extra[i];
  return tokens;
}

}  // namespace tokenbench::client
