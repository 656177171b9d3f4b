#include "tokenbench/metrics/token_counts.h"

#include <algorithm>
#include <string_view>

#include "tokenbench/core/apportion.h"

namespace tokenbench::metrics {

void count_output_tokens(const tokenizer::Tokenizer& tokenizer, core::RequestRecord& record) {
  if (record.output_text.empty()) return;
  record.tokenizer_output_tokens = static_cast<std::int64_t>(tokenizer.count(record.output_text));
  if (record.output_source != core::TokenSource::kUsage) {
    record.output_tokens = record.tokenizer_output_tokens;
    record.output_source = core::TokenSource::kTokenizer;
  }
  if (record.chunk_usage) return;  // the server counted each chunk's tokens itself
  if (record.chunks.empty() || record.chunk_text_bytes.size() != record.chunks.size()) return;
  // A chunk's text rarely splits a token (servers stream detokenised tokens), so counting each
  // chunk alone is close; apportioning to the total absorbs merges across chunk boundaries.
  std::vector<std::int32_t> weights;
  weights.reserve(record.chunks.size());
  std::size_t offset = 0;
  const std::string_view text(record.output_text);
  for (const std::int32_t bytes : record.chunk_text_bytes) {
    const auto piece = text.substr(std::min(offset, text.size()), static_cast<std::size_t>(bytes));
    offset += static_cast<std::size_t>(bytes);
    weights.push_back(std::max<std::int32_t>(1, static_cast<std::int32_t>(tokenizer.count(piece))));
  }
  const auto parts = core::apportion(weights, record.output_tokens);
  for (std::size_t i = 0; i < parts.size(); ++i) record.chunks[i].tokens = parts[i];
}

}  // namespace tokenbench::metrics
