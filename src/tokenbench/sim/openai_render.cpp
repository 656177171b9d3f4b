#include "tokenbench/sim/openai_render.h"

#include <fmt/format.h>

#include <iterator>

#include "tokenbench/core/version.h"
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

constexpr std::string_view kChatTokenSuffix = "\"},\"finish_reason\":null}]}\n\n";
constexpr std::string_view kTextTokenSuffix = "\",\"logprobs\":null,\"finish_reason\":null}]}\n\n";

void append_usage_object(std::string& out, std::int64_t prompt, std::int64_t completion) {
  fmt::format_to(std::back_inserter(out),
                 "\"usage\":{{\"prompt_tokens\":{},\"completion_tokens\":{},\"total_tokens\":{}}}",
                 prompt, completion, prompt + completion);
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
  out += "\"}}]}";
  return out;
}

std::string version_body() {
  return fmt::format("{{\"version\":\"tokenbench-sim {}\"}}", core::kVersion);
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

void append_response_id(std::string& out, ApiKind api, std::uint64_t seed, std::uint64_t arrival) {
  out += api == ApiKind::kChat ? "chatcmpl-" : "cmpl-";
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

void EventRenderer::append_finish(std::string& out, FinishReason reason,
                                  const LlamaTimings* timings) const {
  out += head_;
  out += api_ == ApiKind::kChat
             ? "{\"index\":0,\"delta\":{},\"finish_reason\":\""
             : "{\"index\":0,\"text\":\"\",\"logprobs\":null,\"finish_reason\":\"";
  out += to_string(reason);
  out += "\"}]";
  if (timings != nullptr) {
    out += ',';
    append_timings(out, *timings);
  }
  out += "}\n\n";
}

void EventRenderer::append_usage(std::string& out, std::int64_t prompt_tokens,
                                 std::int64_t completion_tokens,
                                 const LlamaTimings* timings) const {
  out += head_;
  out += "],";
  append_usage_object(out, prompt_tokens, completion_tokens);
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

void append_completion_body(std::string& out, const ResponseIdentity& identity, std::uint64_t seed,
                            std::uint64_t arrival, const GenerationPlan& plan,
                            std::int64_t prompt_tokens, const LlamaTimings* timings) {
  const bool chat = identity.api == ApiKind::kChat;
  out += "{\"id\":\"";
  out += identity.id;
  out += chat ? "\",\"object\":\"chat.completion\",\"created\":"
              : "\",\"object\":\"text_completion\",\"created\":";
  fmt::format_to(std::back_inserter(out), "{}", identity.created);
  out += ",\"model\":\"";
  out += identity.model;
  out += chat ? "\",\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":\""
              : "\",\"choices\":[{\"index\":0,\"text\":\"";
  for (std::int64_t i = 0; i < plan.output_tokens; ++i) out += token_text(seed, arrival, i);
  out += chat ? "\"},\"finish_reason\":\"" : "\",\"logprobs\":null,\"finish_reason\":\"";
  out += to_string(plan.finish);
  out += "\"}],";
  append_usage_object(out, prompt_tokens, plan.output_tokens);
  if (timings != nullptr) {
    out += ',';
    append_timings(out, *timings);
  }
  out += "}";
}

}  // namespace tokenbench::sim
