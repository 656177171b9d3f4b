#include "tokenbench/client/outcome.h"

#include <string>

#include "tokenbench/client/api_adapter.h"

namespace tokenbench::client {

void settle_tokens(const ReplyUsage& usage, core::RequestRecord& rec) {
  std::int64_t completion = usage.completion;
  if (completion > usage.completion_limit) {
    if (rec.error == core::ErrorClass::kNone || rec.error == core::ErrorClass::kEmptyReply) {
      rec.error = core::ErrorClass::kProtocol;
      rec.error_message = "the server's usage claims " + std::to_string(completion) +
                          " completion tokens for max_tokens " + std::to_string(usage.max_tokens) +
                          " (at most " + std::to_string(usage.completion_limit) + " believed)";
    }
    completion = -1;  // not believed: the chunks count instead
  }

  if (completion >= 0) {
    rec.output_tokens = completion;
    rec.output_source = core::TokenSource::kUsage;
    if (completion > static_cast<std::int64_t>(rec.chunks.size())) {
      const auto tokens = distribute_tokens(rec.chunk_text_bytes, completion);
      for (std::size_t i = 0; i < tokens.size(); ++i) rec.chunks[i].tokens = tokens[i];
    }
  } else if (rec.streamed) {
    rec.output_tokens = static_cast<std::int64_t>(rec.chunks.size());
    rec.output_source = core::TokenSource::kChunks;
  }
  // Input counts: a local tokenizer's count of the prompt wins (it is what the user asked to
  // measure with), then the server's usage, then the workload's own figure.
  if (usage.prompt >= 0 && usage.input_source != core::TokenSource::kTokenizer) {
    rec.prompt_tokens = usage.prompt;
    rec.prompt_source = core::TokenSource::kUsage;
  } else {
    rec.prompt_tokens = usage.input_tokens;
    rec.prompt_source = usage.input_source;
  }
}

}  // namespace tokenbench::client
