#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <variant>

#include "tokenbench/sim/openai_request.h"

namespace tokenbench::sim {

/// The parts of one HTTP request that routing reads. Views into the session's request.
struct HttpRequestView {
  std::string_view method;         ///< "GET", "POST", ...
  std::string_view target;         ///< the request target; a query string is ignored
  std::string_view authorization;  ///< the Authorization header, or empty
  std::string_view x_api_key;      ///< the x-api-key header (Anthropic's), or empty
  std::string_view body;
};

/// What routing needs to know of the server. Plain data; views into the server's config.
struct RouterConfig {
  std::string_view model;                 ///< the served model name
  std::int64_t default_max_tokens = 256;  ///< --default-max-tokens
  std::int64_t hash_block_size = 0;       ///< > 0: compute prefix-cache block hashes (chat, text)
  std::int64_t context_limit = 0;         ///< the longest sequence (prompt + output) served
  /// The most JSON values a body may hold (request_value_limit); 0: no bound. Its nesting is
  /// bounded by core::kMaxJsonDepth either way.
  std::uint64_t max_body_values = 0;
  std::string_view api_key;  ///< when not empty, /v1/* requires it
  /// LoRA adapters served beside the model ("lora-0" ...); a request naming one uses it.
  std::int64_t lora_adapters = 0;
};

/// The endpoints answered without generation.
/// kResetPrefixCache: POST /reset_prefix_cache (vLLM) or /flush_cache (SGLang); kStartProfile
/// and kStopProfile: POST /start_profile and /stop_profile (both engines' paths).
enum class InfoEndpoint {
  kHealth,
  kVersion,
  kMetrics,
  kModels,
  kResetPrefixCache,
  kStartProfile,
  kStopProfile
};

/// A request refused: the status and the error body, in the shape of the API its path belongs to.
struct ErrorReply {
  int status = 400;
  std::string body;
};

/// A routed request: an info endpoint, a generation request (chat, completions, Messages,
/// Responses, embeddings) that passed every check, or the error reply to send.
using RoutedRequest = std::variant<InfoEndpoint, CompletionRequest, ErrorReply>;

/// Routes and validates one request: path and method (404, 405), the API key (401; accepted as
/// `Authorization: Bearer KEY` or `x-api-key: KEY`), the body's shape before it is parsed
/// (fields::check_body_shape: nesting and the number of values, 400), the body (each API's
/// parser) and the context length (400). /health, /version and /metrics need no key. Errors on
/// /v1/messages are in Anthropic's shape, every other in OpenAI's. Pure and socket-free; any
/// thread.
RoutedRequest route_request(const HttpRequestView& request, const RouterConfig& config);

/// The API whose error shape applies to a request for `target` (kMessages for /v1/messages,
/// else kChat), for errors sent before the body is read.
ApiKind error_api_of(std::string_view target);

}  // namespace tokenbench::sim
