#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "tokenbench/sim/generation_plan.h"
#include "tokenbench/sim/openai_request.h"
#include "tokenbench/sim/reply_shape.h"

namespace tokenbench::sim {

/// Appends `text` to `out` as the inside of a JSON string (quotes not included).
void append_json_escaped(std::string& out, std::string_view text);

/// `{"error":{"message":M,"type":T,"code":STATUS}}`, the OpenAI error shape.
std::string error_body(int status, std::string_view type, std::string_view message);

/// What the simulator says about itself in GET /v1/models (`"tokenbench_sim"` of each model).
struct SimIdentity {
  double time_scale = 1.0;         ///< --time-scale
  std::string_view preset;         ///< the engine preset's name, "fixed" or "custom"
  std::int64_t max_model_len = 0;  ///< the longest sequence served (0: not said)
  std::int64_t lora_adapters = 0;  ///< LoRA adapters listed after the model ("lora-0", ...)
};

/// The body of GET /v1/models for one served model: the OpenAI list shape, the model object
/// carrying `"max_model_len":N` (as vLLM's does) and `"tokenbench_sim":{"time_scale":X,
/// "preset":NAME}` besides its usual fields, then one object per LoRA adapter as vLLM lists them
/// ("id" and "root" the adapter's name, "parent" the model).
std::string models_body(std::string_view model, std::int64_t created, const SimIdentity& sim);

/// The body of GET /version, as vLLM has it: {"version":"VERSION"}, VERSION being `version`
/// (--server-version) or "tokenbench-sim <tokenbench's version>".
std::string version_body(const std::string& version);

/// The header lines that every response of a server carries (after "Server"), each ending in
/// "\r\n": `X-Sim-Time-Scale: X`, X formatted as `{:g}` (10, 1, 0.5).
std::string server_headers(double time_scale);

/// Appends a complete HTTP/1.1 response with a JSON body and Content-Length. `server` and
/// `extra_headers` are whole header lines, each ending in "\r\n" (`server`: those of every
/// response, see server_headers(); `extra_headers`: this response's own). Adds
/// "Connection: close" when !keep_alive.
void append_json_response(std::string& out, int status, std::string_view body, bool keep_alive,
                          std::string_view server, std::string_view extra_headers = {});

/// Appends a complete HTTP/1.1 response with any body type and Content-Length.
void append_response(std::string& out, int status, std::string_view content_type,
                     std::string_view body, bool keep_alive, std::string_view server,
                     std::string_view extra_headers = {});

/// Appends the head of a streaming reply: 200, text/event-stream, chunked transfer encoding, the
/// `server` header lines and `extra_headers` (whole lines, each ending in "\r\n").
void append_stream_head(std::string& out, bool keep_alive, std::string_view server,
                        std::string_view extra_headers = {});

/// llama.cpp's per-reply `timings`, as the simulator fills them: prompt_ms from the request's
/// receipt to its first token (queueing included), predicted_ms from its first token to its last.
struct LlamaTimings {
  std::int64_t prompt_n = 0;
  double prompt_ms = 0;
  std::int64_t predicted_n = 0;
  double predicted_ms = 0;
};

/// Appends `"timings":{...}` with llama.cpp's nine fields (cache_n 0, the per-token and
/// per-second figures derived as llama.cpp derives them).
void append_timings(std::string& out, const LlamaTimings& timings);

/// The identity fields every chunk of one response repeats.
struct ResponseIdentity {
  ApiKind api = ApiKind::kChat;
  std::string_view id;  ///< "chatcmpl-..." or "cmpl-..."
  std::int64_t created = 0;
  std::string_view model;  ///< already JSON-safe
};

/// The prefix of `api`'s response ids: "chatcmpl-", "cmpl-", "msg_", "resp_", "embd-".
std::string_view response_id_prefix(ApiKind api);

/// Appends the id of a response (the API's prefix and 16 hex digits) for an arrival index.
void append_response_id(std::string& out, ApiKind api, std::uint64_t seed, std::uint64_t arrival);

/// Renders the SSE events of one streaming response. reset() pre-renders the parts that every
/// event of the response repeats, so that each token costs three appends into the caller's buffer.
/// Reusable across responses (storage is kept); owned by one stream, not thread-safe.
class EventRenderer {
 public:
  void reset(const ResponseIdentity& identity);

  /// The chat role chunk (delta {"role":"assistant","content":""}); chat only.
  void append_role(std::string& out) const;
  /// One token: chat delta.content or completions text. `text` must need no JSON escaping.
  void append_token(std::string& out, std::string_view text) const;
  /// A content token chunk that carries the usage so far (continuous_usage_stats).
  void append_token_with_usage(std::string& out, std::string_view text, std::int64_t prompt_tokens,
                               std::int64_t completion_tokens) const;
  /// The finish chunk: empty delta (chat) or empty text (completions) and the finish_reason;
  /// `timings` (when not null) after the choices.
  void append_finish(std::string& out, FinishReason reason,
                     const LlamaTimings* timings = nullptr) const;
  /// The usage chunk: "choices":[] and the usage object, then `timings` when not null. With
  /// `reasoning_tokens` > 0 the usage carries "completion_tokens_details":{"reasoning_tokens":R},
  /// and with `cached_tokens` >= 0 "prompt_tokens_details":{"cached_tokens":C}.
  void append_usage(std::string& out, std::int64_t prompt_tokens, std::int64_t completion_tokens,
                    const LlamaTimings* timings = nullptr, std::int64_t reasoning_tokens = 0,
                    std::int64_t cached_tokens = -1) const;
  /// One reasoning token: chat delta {"reasoning_content":text}.
  void append_reasoning(std::string& out, std::string_view text) const;
  /// The opening of a tool call: delta {"tool_calls":[{"index":0,"id":ID,"type":"function",
  /// "function":{"name":NAME,"arguments":""}}]}. `name` is JSON-escaped here.
  void append_tool_start(std::string& out, std::string_view call_id, std::string_view name) const;
  /// One token of the tool call's arguments: delta {"tool_calls":[{"index":0,"function":
  /// {"arguments":text}}]}.
  void append_tool_arguments(std::string& out, std::string_view text) const;
  /// The finish chunk with a finish_reason spelled out ("tool_calls").
  void append_finish(std::string& out, std::string_view reason,
                     const LlamaTimings* timings = nullptr) const;

  static void append_done(std::string& out);
  /// An event whose data is not JSON (the malformed fault).
  static void append_malformed(std::string& out);
  /// `data: {"error":{...,"type":"server_error","code":500}}` (the error_event fault).
  static void append_error_event(std::string& out);

 private:
  ApiKind api_ = ApiKind::kChat;
  std::string head_;          ///< `data: {"id":...,"model":M,"choices":[`
  std::string token_prefix_;  ///< head_ plus the choice's opening up to the text's quote
};

/// Appends the body of a non-streaming reply: chat message content or completions text (the
/// request's tokens joined), finish_reason and usage, and `timings` when not null. A chat
/// message carries "reasoning_content" (the first shape.reasoning_tokens tokens) when there are
/// reasoning tokens, and "content":null with "tool_calls" when shape.tool_name is set.
void append_completion_body(std::string& out, const ResponseIdentity& identity,
                            const ReplyShape& shape, const LlamaTimings* timings = nullptr);

/// The id of a chat reply's tool call: "call_" and the 16 hex digits of the response id's hash.
std::string tool_call_id(std::string_view response_id);

}  // namespace tokenbench::sim
