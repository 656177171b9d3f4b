#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "tokenbench/core/names.h"

namespace tokenbench::sim {

/// Which generation endpoint a request came to: POST /v1/chat/completions, /v1/completions,
/// /v1/messages (Anthropic), /v1/responses (OpenAI Responses), /v1/embeddings, rerank and score,
/// or SGLang's native /generate.
enum class ApiKind {
  kChat,
  kCompletions,
  kMessages,
  kResponses,
  kEmbeddings,
  kRerank,
  kScore,
  kGenerate
};
inline constexpr std::size_t kApiKinds = 8;
/// Each endpoint's name: the /metrics label.
inline constexpr auto kApiKindNames =
    core::make_names<ApiKind>({{ApiKind::kChat, "chat"},
                               {ApiKind::kCompletions, "completions"},
                               {ApiKind::kMessages, "messages"},
                               {ApiKind::kResponses, "responses"},
                               {ApiKind::kEmbeddings, "embeddings"},
                               {ApiKind::kRerank, "rerank"},
                               {ApiKind::kScore, "score"},
                               {ApiKind::kGenerate, "generate"}});
static_assert(kApiKindNames.rows().size() == kApiKinds);
/// "chat" | "completions" | "messages" | "responses" | "embeddings" | "rerank" | "score" |
/// "generate" (kApiKindNames).
std::string_view to_string(ApiKind api);

/// The fields of an OpenAI-style completion request that the simulator acts on. Plain data.
struct CompletionRequest {
  ApiKind api = ApiKind::kChat;
  bool stream = false;
  bool include_usage = false;  ///< stream_options.include_usage
  /// stream_options.continuous_usage_stats (vLLM's): usage in every content chunk
  bool continuous_usage = false;
  bool ignore_eos = false;         ///< vLLM extension: generate exactly max_tokens
  std::int64_t max_tokens = 0;     ///< max_tokens, else max_completion_tokens, else the default
  std::int64_t min_tokens = 0;     ///< vLLM extension: at least this many tokens
  std::int64_t prompt_tokens = 0;  ///< core::approx_token_count over the prompt / message contents
  /// With prefix caching: the chained hash of each full block of prompt tokens (block i covers
  /// tokens [i*B, (i+1)*B) and its hash identifies every token up to its end). Empty otherwise.
  std::vector<std::uint64_t> block_hashes;
  /// The reply may start with reasoning tokens (--reasoning-tokens): chat and Responses always,
  /// Messages when the request enables "thinking"; never completions or embeddings.
  bool reasoning = false;
  /// Chat: the function name of the first tool when the request carries "tools" and its
  /// tool_choice is not "none"; the reply is then one call to it. Empty otherwise.
  std::string tool_name;
  std::int64_t images = 0;        ///< image parts in the prompt (their tokens are in prompt_tokens)
  std::int64_t image_tokens = 0;  ///< the prompt tokens charged for those images
  /// Embeddings: a hash of each input (its text or its token ids), which seeds its vector.
  /// Rerank and score: a hash of each (query, document) pair, which seeds its score.
  std::vector<std::uint64_t> input_hashes;
  /// Rerank: the documents, in the request's order (returned when return_documents).
  std::vector<std::string> documents;
  std::int64_t top_n = 0;        ///< rerank: results returned; 0: all
  bool return_documents = true;  ///< rerank: results carry their document's text
  /// The LoRA adapter the request's "model" names (--lora-adapters); -1: the base model.
  std::int32_t lora = -1;
};

/// A request the simulator refuses: the HTTP status and the OpenAI error object's fields.
struct RequestError {
  int status = 400;
  std::string type = "invalid_request_error";
  std::string message;
};

/// The largest request body accepted, in bytes, for a server whose longest sequence is
/// `max_model_len` tokens: kBodyBytesPerToken per token (room for JSON-escaped text or token ids)
/// plus kBodySlack for the rest of the JSON, never over kBodyLimitCap. A larger body is refused
/// (413) before it is read or parsed, so that one request cannot hold an I/O thread for long.
inline constexpr std::uint64_t kBodyBytesPerToken = 32;
inline constexpr std::uint64_t kBodySlack = 1ull << 20;
inline constexpr std::uint64_t kBodyLimitCap = 64ull << 20;
std::uint64_t request_body_limit(std::int64_t max_model_len);

/// The most JSON values a request body may hold for a server whose longest sequence is
/// `max_model_len` tokens: one per token (a prompt of token ids) plus kBodyValueSlack for the
/// rest. The body limit bounds bytes; this bounds what parsing them builds (a value costs a parser
/// 16 bytes or more however short its text: "[1,1,1,...]" of 5 MB is 2.5 million of them).
/// Nesting is bounded by core::kMaxJsonDepth. Both are checked before parsing (router.h).
inline constexpr std::uint64_t kBodyValueSlack = 65536;
std::uint64_t request_value_limit(std::int64_t max_model_len);

/// Parses and validates a completion request body. `served_model` is the only model name accepted
/// (a request naming another gets 404); `default_max_tokens` applies when the request sets no
/// limit. With `hash_block_size` > 0 the prompt's block hashes are computed (prefix caching):
/// tokens are the words that core::approx_token_count counts (or the ids of a pre-tokenised
/// prompt), and each chat message's role is mixed in before its content. Pure; any thread.
std::variant<CompletionRequest, RequestError> parse_completion_request(
    ApiKind api, std::string_view body, std::string_view served_model,
    std::int64_t default_max_tokens, std::int64_t hash_block_size = 0);

/// Parses POST /v1/responses: "input" (a string, or messages whose content is a string or
/// input_text / input_image parts, function_call and function_call_output items), "instructions",
/// "max_output_tokens" (else `default_max_tokens`), "stream". With `hash_block_size` > 0 the
/// prompt's block hashes for prefix caching, as the chat parser's. Pure; any thread.
std::variant<CompletionRequest, RequestError> parse_responses_request(
    std::string_view body, std::string_view served_model, std::int64_t default_max_tokens,
    std::int64_t hash_block_size = 0);

/// Parses POST /v1/embeddings: "input" (a string, strings, token ids or arrays of token ids) and
/// "encoding_format" ("float" only). The result is a one-token, non-streamed request whose
/// prompt_tokens is the sum over the inputs and whose input_hashes has one entry per input.
std::variant<CompletionRequest, RequestError> parse_embeddings_request(
    std::string_view body, std::string_view served_model);

}  // namespace tokenbench::sim
