#pragma once

#include <cstdint>
#include <vector>

#include "tokenbench/core/request.h"
#include "tokenbench/tokenizer/tokenizer.h"

namespace tokenbench::metrics {

/// Counts a finished record's output tokens with a local tokenizer, from record.output_text and
/// record.chunk_text_bytes:
///  - tokenizer_output_tokens becomes the token count of the whole text (always, for the
///    consistency check against the server's usage);
///  - when the server sent no usage, output_tokens becomes the token count of the whole text
///    (source kTokenizer);
///  - each content chunk's token count (for itl_per_token) becomes its text's count, apportioned
///    so that the chunks sum to output_tokens.
/// Records without text are left as they are. Thread-safe for distinct records.
void count_output_tokens(const tokenizer::Tokenizer& tokenizer, core::RequestRecord& record);

}  // namespace tokenbench::metrics
