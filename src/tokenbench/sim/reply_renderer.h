#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "tokenbench/sim/openai_render.h"
#include "tokenbench/sim/openai_request.h"
#include "tokenbench/sim/reply_shape.h"

namespace tokenbench::sim {

/// Renders the body of one API's replies: the SSE events of a stream, in order, or the JSON of a
/// whole reply. The session calls reset() once per reply, then for a stream append_start() once,
/// append_token() for tokens 0, 1, ... in order, and append_end() or append_error() once; or
/// append_whole() alone. Token texts never need JSON escaping (the vocabulary's words).
/// Reusable across replies (storage is kept, so that a warm renderer does not allocate per
/// token); owned by one connection, not thread-safe.
class ReplyRenderer {
 public:
  virtual ~ReplyRenderer() = default;
  /// `identity` and `shape` (and what they view) must stay valid until the reply is rendered.
  virtual void reset(const ResponseIdentity& identity, const ReplyShape& shape) = 0;
  /// The events sent with the stream's head, before any token (may be none).
  virtual void append_start(std::string& out) = 0;
  /// Token `index` (reasoning while index < reasoning_tokens), with any event opening its part.
  virtual void append_token(std::string& out, std::int64_t index, std::string_view text) = 0;
  /// Tokens `first` .. `first + count - 1` leaving together as one delta of `text` (one token,
  /// or a speculative decoding step's); by default append_token of the first.
  virtual void append_tokens(std::string& out, std::int64_t first, std::int64_t count,
                             std::string_view text) {
    (void)count;
    append_token(out, first, text);
  }
  /// Everything after the last token: finish, usage and end events. `timings` (when not null)
  /// is llama.cpp's timings object, for the APIs that carry one.
  virtual void append_end(std::string& out, const LlamaTimings* timings) = 0;
  /// A failure in the middle of the stream (the error_event fault): the API's error event and
  /// whatever ends its stream.
  virtual void append_error(std::string& out) = 0;
  /// An event whose data is not JSON (the malformed fault).
  virtual void append_malformed(std::string& out) = 0;
  /// The whole (non-streamed) reply body.
  virtual void append_whole(std::string& out, const LlamaTimings* timings) = 0;
};

/// A renderer for `api`'s replies.
std::unique_ptr<ReplyRenderer> make_reply_renderer(ApiKind api);

/// Chat and text completions, as OpenAI and vLLM stream them (openai_render.cpp).
std::unique_ptr<ReplyRenderer> make_openai_renderer();
/// Anthropic Messages (anthropic_render.cpp).
std::unique_ptr<ReplyRenderer> make_messages_renderer();
/// OpenAI Responses (responses_render.cpp).
std::unique_ptr<ReplyRenderer> make_responses_renderer();
/// OpenAI embeddings, never streamed (embeddings_render.cpp).
std::unique_ptr<ReplyRenderer> make_embeddings_renderer();
/// Rerank (Cohere's and Jina's shape, as vLLM serves it) and score replies, never streamed
/// (rerank_render.cpp).
std::unique_ptr<ReplyRenderer> make_rerank_renderer();
std::unique_ptr<ReplyRenderer> make_score_renderer();
/// SGLang's native /generate: each event the whole text so far (generate_render.cpp).
std::unique_ptr<ReplyRenderer> make_generate_renderer();

/// The error body in `api`'s shape: Anthropic's {"type":"error","error":{"type":..,
/// "message":..}} for kMessages (its type derived from `status`: authentication_error,
/// not_found_error, rate_limit_error, overloaded_error, ...), else OpenAI's error_body().
std::string api_error_body(ApiKind api, int status, std::string_view type,
                           std::string_view message);

}  // namespace tokenbench::sim
