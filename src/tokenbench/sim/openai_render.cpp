#include "tokenbench/sim/openai_render.h"

#include <fmt/format.h>

#include <iterator>

#include "tokenbench/core/names.h"
#include "tokenbench/core/version.h"
#include "tokenbench/sim/reply_renderer.h"
#include "tokenbench/sim/sim_rng.h"

namespace tokenbench::sim {
namespace {

std::string_view reason_phrase(int status) {
  switch (status) {
    case 200:
      return "OK";
    case 400:
      return "Bad Request";
    case 401:
      return "Unauthorized";
    case 404:
      return "Not Found";
    case 405:
      return "Method Not Allowed";
    case 413:
      return "Payload Too Large";
    case 429:
      return "Too Many Requests";
    case 500:
      return "Internal Server Error";
    case 503:
      return "Service Unavailable";
    default:
      return "Unknown";
  }
}

// The id of a response starts with its API's prefix ("chatcmpl-<id>", as vLLM writes it).
constexpr auto kResponseIdPrefixes = core::make_names<ApiKind>({{ApiKind::kChat, "chatcmpl-"},
                                                                {ApiKind::kCompletions, "cmpl-"},
                                                                {ApiKind::kMessages, "msg_"},
                                                                {ApiKind::kResponses, "resp_"},
                                                                {ApiKind::kEmbeddings, "embd-"},
                                                                {ApiKind::kRerank, "rerank-"},
                                                                {ApiKind::kScore, "score-"},
                                                                {ApiKind::kGenerate, ""}});

constexpr std::string_view kChatTokenSuffix = "\"},\"finish_reason\":null}]}\n\n";
constexpr std::string_view kTextTokenSuffix = "\",\"logprobs\":null,\"finish_reason\":null}]}\n\n";

constexpr std::string_view kChatReasoningPrefix =
    "{\"index\":0,\"delta\":{\"reasoning_content\":\"";
constexpr std::string_view kToolArgumentsPrefix =
    "{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"";
constexpr std::string_view kToolArgumentsSuffix = "\"}}]},\"finish_reason\":null}]}\n\n";

void append_usage_object(std::string& out, std::int64_t prompt, std::int64_t completion,
                         std::int64_t reasoning = 0, std::int64_t cached = -1) {
  fmt::format_to(std::back_inserter(out),
                 "\"usage\":{{\"prompt_tokens\":{},\"completion_tokens\":{},\"total_tokens\":{}",
                 prompt, completion, prompt + completion);
  if (cached >= 0) {  // vLLM's and SGLang's shape
    fmt::format_to(std::back_inserter(out), ",\"prompt_tokens_details\":{{\"cached_tokens\":{}}}",
                   cached);
  }
  if (reasoning > 0) {
    fmt::format_to(std::back_inserter(out),
                   ",\"completion_tokens_details\":{{\"reasoning_tokens\":{}}}", reasoning);
  }
  out += '}';
}

void append_tokens(std::string& out, const ReplyShape& shape, std::int64_t from, std::int64_t to) {
  for (std::int64_t i = from; i < to; ++i) out += token_text(shape.seed, shape.arrival, i);
}

}  // namespace

void append_json_escaped(std::string& out, std::string_view text) {
  for (const char c : text) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          fmt::format_to(std::back_inserter(out), "\\u{:04x}", static_cast<int>(c));
        } else {
          out += c;
        }
    }
  }
}

std::string error_body(int status, std::string_view type, std::string_view message) {
  std::string out = "{\"error\":{\"message\":\"";
  append_json_escaped(out, message);
  out += "\",\"type\":\"";
  append_json_escaped(out, type);
  fmt::format_to(std::back_inserter(out), "\",\"code\":{}}}}}", status);
  return out;
}

std::string models_body(std::string_view model, std::int64_t created, const SimIdentity& sim) {
  std::string out = "{\"object\":\"list\",\"data\":[{\"id\":\"";
  append_json_escaped(out, model);
  // `{}` writes the shortest text that reads back as the same double: a valid JSON number for
  // every time scale the flag accepts (1e-3 to 1e6).
  fmt::format_to(std::back_inserter(out),
                 "\",\"object\":\"model\",\"created\":{},\"owned_by\":\"tokenbench-sim\",",
                 created);
  if (sim.max_model_len > 0)
    fmt::format_to(std::back_inserter(out), "\"max_model_len\":{},", sim.max_model_len);
  fmt::format_to(std::back_inserter(out), "\"tokenbench_sim\":{{\"time_scale\":{},\"preset\":\"",
                 sim.time_scale);
  append_json_escaped(out, sim.preset);
  out += "\"}}";
  for (std::int64_t i = 0; i < sim.lora_adapters; ++i) {
    fmt::format_to(std::back_inserter(out),
                   ",{{\"id\":\"lora-{}\",\"object\":\"model\",\"created\":{},"
                   "\"owned_by\":\"tokenbench-sim\",\"root\":\"lora-{}\",\"parent\":\"",
                   i, created, i);
    append_json_escaped(out, model);
    out += "\"}";
  }
  out += "]}";
  return out;
}

std::string version_body(const std::string& version) {
  std::string out = R"({"version":")";
  append_json_escaped(out,
                      version.empty() ? "tokenbench-sim " + std::string(core::kVersion) : version);
  return out + "\"}";
}

std::string server_headers(double time_scale) {
  return fmt::format("X-Sim-Time-Scale: {:g}\r\n", time_scale);
}

void append_json_response(std::string& out, int status, std::string_view body, bool keep_alive,
                          std::string_view server, std::string_view extra_headers) {
  append_response(out, status, "application/json", body, keep_alive, server, extra_headers);
}

void append_response(std::string& out, int status, std::string_view content_type,
                     std::string_view body, bool keep_alive, std::string_view server,
                     std::string_view extra_headers) {
  fmt::format_to(std::back_inserter(out),
                 "HTTP/1.1 {} {}\r\nServer: tokenbench-sim\r\n"
                 "Content-Type: {}\r\nContent-Length: {}\r\n",
                 status, reason_phrase(status), content_type, body.size());
  out += server;
  out += extra_headers;
  if (!keep_alive) out += "Connection: close\r\n";
  out += "\r\n";
  out += body;
}

void append_stream_head(std::string& out, bool keep_alive, std::string_view server,
                        std::string_view extra_headers) {
  out +=
      "HTTP/1.1 200 OK\r\nServer: tokenbench-sim\r\nContent-Type: text/event-stream\r\n"
      "Cache-Control: no-cache\r\nTransfer-Encoding: chunked\r\n";
  out += server;
  out += extra_headers;
  if (!keep_alive) out += "Connection: close\r\n";
  out += "\r\n";
}

std::string_view response_id_prefix(ApiKind api) { return kResponseIdPrefixes.name(api); }

std::string tool_call_id(std::string_view response_id) {
  std::uint64_t h = 0xcbf29ce484222325ULL;  // FNV-1a
  for (const char c : response_id) {
    h ^= static_cast<unsigned char>(c);
    h *= 0x100000001b3ULL;
  }
  return fmt::format("call_{:016x}", h);
}

void append_response_id(std::string& out, ApiKind api, std::uint64_t seed, std::uint64_t arrival) {
  out += response_id_prefix(api);
  fmt::format_to(std::back_inserter(out), "{:016x}", mix_keys(seed, arrival, 0x1d));
}

void EventRenderer::reset(const ResponseIdentity& identity) {
  api_ = identity.api;
  head_.clear();
  head_ += "data: {\"id\":\"";
  head_ += identity.id;
  head_ += api_ == ApiKind::kChat ? "\",\"object\":\"chat.completion.chunk\",\"created\":"
                                  : "\",\"object\":\"text_completion\",\"created\":";
  fmt::format_to(std::back_inserter(head_), "{}", identity.created);
  head_ += ",\"model\":\"";
  head_ += identity.model;
  head_ += "\",\"choices\":[";
  token_prefix_ = head_;
  token_prefix_ += api_ == ApiKind::kChat ? "{\"index\":0,\"delta\":{\"content\":\""
                                          : "{\"index\":0,\"text\":\"";
}

void EventRenderer::append_role(std::string& out) const {
  out += head_;
  out +=
      "{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"},\"finish_reason\":null}]}"
      "\n\n";
}

void EventRenderer::append_token(std::string& out, std::string_view text) const {
  out += token_prefix_;
  out += text;
  out += api_ == ApiKind::kChat ? kChatTokenSuffix : kTextTokenSuffix;
}

void EventRenderer::append_token_with_usage(std::string& out, std::string_view text,
                                            std::int64_t prompt_tokens,
                                            std::int64_t completion_tokens) const {
  out += token_prefix_;
  out += text;
  std::string_view suffix = api_ == ApiKind::kChat ? kChatTokenSuffix : kTextTokenSuffix;
  suffix.remove_suffix(3);  // "}\n\n": the usage goes in the chunk's object
  out += suffix;
  out += ',';
  append_usage_object(out, prompt_tokens, completion_tokens, 0, -1);
  out += "}\n\n";
}

void append_timings(std::string& out, const LlamaTimings& t) {
  const auto per = [](double ms, std::int64_t n) {
    return n > 0 ? ms / static_cast<double>(n) : 0;
  };
  const auto rate = [](double ms, std::int64_t n) {
    return ms > 0 ? 1e3 * static_cast<double>(n) / ms : 0;
  };
  fmt::format_to(std::back_inserter(out),
                 "\"timings\":{{\"cache_n\":0,\"prompt_n\":{},\"prompt_ms\":{},"
                 "\"prompt_per_token_ms\":{},\"prompt_per_second\":{},\"predicted_n\":{},"
                 "\"predicted_ms\":{},\"predicted_per_token_ms\":{},\"predicted_per_second\":{}}}",
                 t.prompt_n, t.prompt_ms, per(t.prompt_ms, t.prompt_n),
                 rate(t.prompt_ms, t.prompt_n), t.predicted_n, t.predicted_ms,
                 per(t.predicted_ms, t.predicted_n), rate(t.predicted_ms, t.predicted_n));
}

void EventRenderer::append_reasoning(std::string& out, std::string_view text) const {
  out += head_;
  out += kChatReasoningPrefix;
  out += text;
  out += kChatTokenSuffix;
}

void EventRenderer::append_tool_start(std::string& out, std::string_view call_id,
                                      std::string_view name) const {
  out += head_;
  out += "{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"";
  out += call_id;
  out += "\",\"type\":\"function\",\"function\":{\"name\":\"";
  append_json_escaped(out, name);
  out += "\",\"arguments\":\"\"}}]},\"finish_reason\":null}]}\n\n";
}

void EventRenderer::append_tool_arguments(std::string& out, std::string_view text) const {
  out += head_;
  out += kToolArgumentsPrefix;
  out += text;
  out += kToolArgumentsSuffix;
}

void EventRenderer::append_finish(std::string& out, FinishReason reason,
                                  const LlamaTimings* timings) const {
  append_finish(out, to_string(reason), timings);
}

void EventRenderer::append_finish(std::string& out, std::string_view reason,
                                  const LlamaTimings* timings) const {
  out += head_;
  out += api_ == ApiKind::kChat
             ? "{\"index\":0,\"delta\":{},\"finish_reason\":\""
             : "{\"index\":0,\"text\":\"\",\"logprobs\":null,\"finish_reason\":\"";
  out += reason;
  out += "\"}]";
  if (timings != nullptr) {
    out += ',';
    append_timings(out, *timings);
  }
  out += "}\n\n";
}

void EventRenderer::append_usage(std::string& out, std::int64_t prompt_tokens,
                                 std::int64_t completion_tokens, const LlamaTimings* timings,
                                 std::int64_t reasoning_tokens, std::int64_t cached_tokens) const {
  out += head_;
  out += "],";
  append_usage_object(out, prompt_tokens, completion_tokens, reasoning_tokens, cached_tokens);
  if (timings != nullptr) {
    out += ',';
    append_timings(out, *timings);
  }
  out += "}\n\n";
}

void EventRenderer::append_done(std::string& out) { out += "data: [DONE]\n\n"; }

void EventRenderer::append_malformed(std::string& out) {
  out += "data: {\"choices\":[{\"delta\":{\"content\": this is not JSON\n\n";
}

void EventRenderer::append_error_event(std::string& out) {
  out +=
      "data: {\"error\":{\"message\":\"Simulated server error in the middle of the stream "
      "(error_event fault).\",\"type\":\"server_error\",\"code\":500}}\n\n";
}

void append_completion_body(std::string& out, const ResponseIdentity& identity,
                            const ReplyShape& shape, const LlamaTimings* timings) {
  const bool chat = identity.api == ApiKind::kChat;
  const std::int64_t reasoning = chat ? shape.reasoning_tokens : 0;
  const bool tool = chat && !shape.tool_name.empty();
  out += "{\"id\":\"";
  out += identity.id;
  out += chat ? "\",\"object\":\"chat.completion\",\"created\":"
              : "\",\"object\":\"text_completion\",\"created\":";
  fmt::format_to(std::back_inserter(out), "{}", identity.created);
  out += ",\"model\":\"";
  out += identity.model;
  if (!chat) {
    out += "\",\"choices\":[{\"index\":0,\"text\":\"";
    append_tokens(out, shape, 0, shape.output_tokens);
    out += "\",\"logprobs\":null,\"finish_reason\":\"";
  } else {
    out += "\",\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\",";
    if (reasoning > 0) {
      out += "\"reasoning_content\":\"";
      append_tokens(out, shape, 0, reasoning);
      out += "\",";
    }
    if (tool) {
      out += "\"content\":null,\"tool_calls\":[{\"id\":\"";
      out += tool_call_id(identity.id);
      out += "\",\"type\":\"function\",\"function\":{\"name\":\"";
      append_json_escaped(out, shape.tool_name);
      out += "\",\"arguments\":\"";
      append_tokens(out, shape, reasoning, shape.output_tokens);
      out += "\"}}]},\"finish_reason\":\"";
    } else {
      out += "\"content\":\"";
      append_tokens(out, shape, reasoning, shape.output_tokens);
      out += "\"},\"finish_reason\":\"";
    }
  }
  out += tool && shape.finish == FinishReason::kStop ? std::string_view("tool_calls")
                                                     : to_string(shape.finish);
  out += "\"}],";
  append_usage_object(out, shape.prompt_tokens, shape.output_tokens, reasoning,
                      shape.cached_tokens);
  if (timings != nullptr) {
    out += ',';
    append_timings(out, *timings);
  }
  out += "}";
}

namespace {

// Chat and completions streams: the role chunk (chat), one chunk per token (reasoning_content
// deltas first; a tool call's arguments instead of content when the request offered tools), the
// finish chunk, the usage chunk when asked, then [DONE].
class OpenAIReplyRenderer final : public ReplyRenderer {
 public:
  void reset(const ResponseIdentity& identity, const ReplyShape& shape) override {
    identity_ = identity;
    shape_ = &shape;
    events_.reset(identity);
    chat_ = identity.api == ApiKind::kChat;
    tool_ = chat_ && !shape.tool_name.empty();
    call_id_ = tool_ ? tool_call_id(identity.id) : std::string();
  }

  void append_start(std::string& out) override {
    if (chat_) events_.append_role(out);
  }

  void append_token(std::string& out, std::int64_t index, std::string_view text) override {
    if (chat_ && index < shape_->reasoning_tokens) return events_.append_reasoning(out, text);
    if (!tool_) return events_.append_token(out, text);
    if (index == shape_->reasoning_tokens)
      events_.append_tool_start(out, call_id_, shape_->tool_name);
    events_.append_tool_arguments(out, text);
  }

  void append_tokens(std::string& out, std::int64_t first, std::int64_t count,
                     std::string_view text) override {
    // vLLM's continuous usage: every content chunk says the tokens generated so far.
    if (shape_->continuous_usage && !tool_ && first >= shape_->reasoning_tokens) {
      return events_.append_token_with_usage(out, text, shape_->prompt_tokens, first + count);
    }
    append_token(out, first, text);
  }

  void append_end(std::string& out, const LlamaTimings* timings) override {
    const std::string_view reason = tool_ && shape_->finish == FinishReason::kStop
                                        ? std::string_view("tool_calls")
                                        : to_string(shape_->finish);
    // llama.cpp's timings go in the last JSON event: the usage event, else the finish event.
    events_.append_finish(out, reason, shape_->include_usage ? nullptr : timings);
    if (shape_->include_usage) {
      events_.append_usage(out, shape_->prompt_tokens, shape_->output_tokens, timings,
                           chat_ ? shape_->reasoning_tokens : 0, shape_->cached_tokens);
    }
    EventRenderer::append_done(out);
  }

  void append_error(std::string& out) override {
    EventRenderer::append_error_event(out);
    EventRenderer::append_done(out);
  }

  void append_malformed(std::string& out) override { EventRenderer::append_malformed(out); }

  void append_whole(std::string& out, const LlamaTimings* timings) override {
    append_completion_body(out, identity_, *shape_, timings);
  }

 private:
  EventRenderer events_;
  ResponseIdentity identity_;
  const ReplyShape* shape_ = nullptr;
  std::string call_id_;
  bool chat_ = true;
  bool tool_ = false;
};

}  // namespace

std::unique_ptr<ReplyRenderer> make_openai_renderer() {
  return std::make_unique<OpenAIReplyRenderer>();
}

}  // namespace tokenbench::sim
