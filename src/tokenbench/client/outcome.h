#pragma once

#include <cstdint>

#include "tokenbench/core/request.h"

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

}  // namespace tokenbench::client
