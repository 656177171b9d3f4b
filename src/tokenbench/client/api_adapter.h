#pragma once

#include <simdjson.h>

#include <cstdint>
#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "tokenbench/core/request.h"
#include "tokenbench/core/run_config.h"

namespace tokenbench::client {

/// What one SSE event (or one whole non-streamed reply) said, as far as the benchmark cares.
struct ApiEvent {
  enum class Kind {
    kData,       ///< a normal chunk (may carry content, finish_reason and/or usage)
    kDone,       ///< `[DONE]`
    kError,      ///< an error object sent by the server
    kMalformed,  ///< not parseable as the API's JSON
  };
  Kind kind = Kind::kData;
  /// content_text is the whole text generated so far, not this event's part (SGLang's
  /// /generate): the worker takes what follows the text it already has.
  bool cumulative_text = false;
  /// A kData event after which the API sends nothing more (Anthropic's message_stop, the
  /// Responses API's response.completed): the stream ended cleanly, as with [DONE].
  bool last = false;
  /// Bytes of generated text this event carried (content, reasoning and tool calls' names and
  /// arguments). 0: not a token.
  std::int64_t content_bytes = 0;
  /// The generated text itself: reasoning (reasoning_content or reasoning) and content of the
  /// first choice; views valid until the next parse call.
  std::string_view reasoning_text;
  std::string_view content_text;
  /// Tool calls' function names and arguments, concatenated; valid until the next parse call.
  std::string_view tool_text;
  bool has_usage = false;
  std::int64_t prompt_tokens = -1;
  std::int64_t completion_tokens = -1;
  /// Reasoning tokens among completion_tokens (usage.completion_tokens_details.reasoning_tokens,
  /// or the Responses API's output_tokens_details); -1 when absent.
  std::int64_t reasoning_tokens = -1;
  /// Prompt tokens the server took from its prefix cache (prompt_tokens_details.cached_tokens,
  /// input_tokens_details.cached_tokens, Anthropic's cache_read_input_tokens, DeepSeek's
  /// prompt_cache_hit_tokens), and those it wrote to it (Anthropic's
  /// cache_creation_input_tokens); -1 when absent.
  std::int64_t cached_tokens = -1;
  std::int64_t cache_write_tokens = -1;
  /// Embeddings: the vectors the reply carried.
  std::int32_t embeddings = 0;
  std::string_view finish_reason;  ///< empty when absent; valid until the next parse call
  /// The reply's `id` (a string; empty when absent); valid until the next parse call.
  std::string_view response_id;
  /// llama.cpp's `timings` object, looked up only in an event with a finish_reason or usage and
  /// in a whole reply (where llama.cpp puts it), so that other servers pay nothing for it.
  bool has_timings = false;
  core::ServerTimings timings;
  std::string_view error_message;  ///< for kError / kMalformed; valid until the next parse call
};

/// Options that shape every request body.
struct BodyOptions {
  std::string model;
  bool stream = true;
  bool ignore_eos =
      false;  ///< add `ignore_eos: true` and `min_tokens: max_tokens` (vLLM, llama.cpp)
  std::string extra_body;  ///< JSON object merged into the body last (RFC 7386 merge patch)
  /// The output limit's field for chat and completions (max_tokens or max_completion_tokens).
  std::string max_tokens_field = "max_tokens";
  /// Chat and completions, streamed: ask for usage in every chunk
  /// (stream_options.continuous_usage_stats, vLLM's), so that each chunk's tokens are exact.
  bool continuous_usage = false;
};

/// The output limit sent to Anthropic's Messages API when the workload sets none: that API
/// requires one.
inline constexpr std::int64_t kAnthropicDefaultMaxTokens = 4096;

/// The anthropic-version header sent unless --header gives one.
inline constexpr const char* kAnthropicVersion = "2023-06-01";

/// Turns RequestSpecs into request bodies of one API and the server's replies into ApiEvents.
/// The engine knows nothing of the APIs beyond this interface. Body building runs before the
/// run (allocates freely); parse_event runs on the hot path and reuses its buffers. Not
/// thread-safe: one adapter per worker thread.
class ApiAdapter {
 public:
  /// Its parser refuses JSON nested deeper than core::kMaxJsonDepth (an event or reply too deep
  /// is kMalformed).
  ApiAdapter();
  virtual ~ApiAdapter() = default;

  /// The JSON body for `spec`. Throws std::invalid_argument when extra_body is not a JSON object
  /// or a spec's messages_json is not a JSON array.
  virtual std::string build_body(const core::RequestSpec& spec,
                                 const BodyOptions& options) const = 0;

  /// Interprets the data of one SSE event of a streamed reply.
  virtual ApiEvent parse_event(std::string_view data) = 0;

  /// Interprets a whole non-streamed reply body.
  virtual ApiEvent parse_response(std::string_view body) = 0;

  /// Extracts a readable message from an HTTP error body ({"error":{"message":...}} or
  /// {"message":...} or {"detail":...}); falls back to the body's first line, at most 200 bytes.
  static std::string error_message_from_body(std::string_view body);

 protected:
  /// Parses `json` as an object into `root`. False, with `ev` made kMalformed, when it is not.
  bool parse_object(std::string_view json, simdjson::dom::element& root, ApiEvent& ev);
  /// True, with `ev` made kError, when `root` carries a non-null "error" (a string, or an object
  /// with a "message").
  bool error_in(const simdjson::dom::element& root, ApiEvent& ev);
  /// Makes `ev` a kError event carrying `message` (copied).
  void set_error(ApiEvent& ev, std::string_view message);
  /// Makes `ev` carry the finish reason `reason` (copied).
  void set_finish(ApiEvent& ev, std::string_view reason);
  /// `body` with "model" set (when options name one), then extra_body merged.
  static nlohmann::json merged_body(nlohmann::json body, const BodyOptions& options);
  /// merged_body, serialised.
  static std::string finish_body(nlohmann::json body, const BodyOptions& options);

  simdjson::dom::parser parser_;
  std::vector<char> padded_;  // the event copied with simdjson's padding
  std::string error_;         // owns ApiEvent::error_message
  std::string finish_;        // owns ApiEvent::finish_reason
  std::string tool_;          // owns ApiEvent::tool_text
};

/// OpenAI's chat completions and (legacy) completions, as vLLM, SGLang, TGI, llama.cpp and
/// Ollama serve them.
class OpenAIAdapter : public ApiAdapter {
 public:
  explicit OpenAIAdapter(core::ApiKind api) : api_(api) {}
  std::string build_body(const core::RequestSpec& spec, const BodyOptions& options) const override;
  ApiEvent parse_event(std::string_view data) override;
  ApiEvent parse_response(std::string_view body) override;

 private:
  ApiEvent parse(std::string_view json, bool streamed);

  core::ApiKind api_;
};

/// The adapter of `api` (client/*_adapter.cpp).
std::unique_ptr<ApiAdapter> make_adapter(core::ApiKind api);

/// The chat messages of `spec`: messages_json parsed, or one user message holding the prompt.
/// Throws std::invalid_argument when messages_json is not a JSON array.
nlohmann::json chat_messages(const core::RequestSpec& spec);

/// True when `body` is an HTML document (a web page, a proxy's or a login page), not the API.
bool looks_like_html(std::string_view body);

/// "an HTML page titled '502 Bad Gateway'" (or "an HTML page" without a title), for messages.
std::string describe_html(std::string_view body);

/// Splits a request's output token count over its content chunks in proportion to the bytes each
/// chunk carried (largest remainder), every chunk getting at least one token when total >= chunks.
/// Used when the server's usage says more tokens than chunks arrived (several tokens per chunk).
std::vector<std::int32_t> distribute_tokens(const std::vector<std::int32_t>& chunk_bytes,
                                            std::int64_t total_tokens);

}  // namespace tokenbench::client
