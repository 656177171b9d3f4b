#pragma once

#include <curl/curl.h>

#include <cstdint>
#include <string_view>

#include "tokenbench/core/request.h"
#include "tokenbench/core/run_config.h"

namespace tokenbench::client {

/// What a finished reply's token counts depend on beside its record: the server's usage as the
/// transport saw it and the request's own figures. Plain data.
struct ReplyUsage {
  std::int64_t prompt = -1;      ///< usage's prompt tokens (-1: the reply carried none)
  std::int64_t completion = -1;  ///< usage's completion tokens (-1: the reply carried none)
  /// ReplyLimits::usage_tokens: a usage claiming more completion tokens is not believed.
  std::int64_t completion_limit = 0;
  std::int64_t max_tokens = 0;    ///< the request's max_tokens (named in the error message)
  std::int64_t input_tokens = 0;  ///< RequestSpec::input_tokens
  core::TokenSource input_source = core::TokenSource::kUnknown;  ///< RequestSpec::input_source
};

/// Settles a finished reply's token counts on `record`, whose error class, chunks and streamed
/// flag the transport has set (docs/METRICS.md, "Tokens"):
/// - a usage claiming more than `completion_limit` completion tokens is a protocol failure (when
///   the record had no other error, or only empty_reply) and is not believed;
/// - output tokens come from the usage when there is one, its count split over the chunks by
///   their bytes (distribute_tokens) when it exceeds the chunks; else, for a stream, one token
///   per chunk; otherwise the record keeps what the transport set (a whole reply's
///   approximation);
/// - prompt tokens come from a local tokenizer's count when the spec has one, then from the
///   usage, then from the spec's own figure, each with its source.
/// Sets output_tokens, output_source, prompt_tokens, prompt_source, chunk token counts, and
/// error/error_message on an implausible usage. Pure: no clock, no I/O.
void settle_tokens(const ReplyUsage& usage, core::RequestRecord& record);

class ApiAdapter;

/// What a transport saw of a finished reply: all classify_reply needs. Plain data (views into the
/// transfer, valid for the call).
struct ReplyFacts {
  CURLcode transport = CURLE_OK;     ///< how the transfer ended (the native transports map to it)
  const char* transport_error = "";  ///< its words, for a failed transfer
  long status = 0;                   ///< the HTTP status
  std::string_view location;         ///< a redirect's Location ("" when none)
  std::string_view body;             ///< the body kept: an error's, a whole reply's, an HTML page
  bool html = false;                 ///< the reply is an HTML page (Content-Type text/html)
  bool event_stream = false;         ///< the reply was text/event-stream
  bool done_seen = false;            ///< the stream's end ([DONE], message_stop, ...) arrived
  core::ApiKind api = core::ApiKind::kOpenAIChat;
  std::int64_t inputs = 1;   ///< embeddings: the inputs the request sent
  bool keep_text = false;    ///< records keep the output text (--save-detailed)
  bool keep_answer = false;  ///< records keep answer_text (a multi-turn session reads it)
};

/// Classifies a finished reply on `record` (docs/METRICS.md, "Failure classes"): a transport
/// failure, a redirect (naming its Location), an HTTP error with the server's message, an HTML
/// page, a stream cut before its end, a whole JSON reply that is malformed or an error or (for
/// embeddings) carries another number of embeddings than inputs, and a 200 with no output at all
/// (empty_reply). A whole reply also sets the record's text, finish reason, response id and
/// server timings, and `usage`'s prompt and completion when it carries them; a stream's were set
/// as it arrived. Pure but for `adapter`'s parser: no clock, no I/O.
void classify_reply(const ReplyFacts& reply, ApiAdapter& adapter, core::RequestRecord& record,
                    ReplyUsage& usage);

}  // namespace tokenbench::client
