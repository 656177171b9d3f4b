#include "tokenbench/tokenizer/tokenizer.h"

#include "tokenbench/tokenizer/scratch.h"

namespace tokenbench::tokenizer {

std::size_t Tokenizer::count(std::string_view text) const {
  thread_local std::vector<std::int32_t> ids;
  ids.clear();
  encode_into(text, false, ids);
  const std::size_t n = ids.size();
  release_if_large(ids);
  return n;
}

}  // namespace tokenbench::tokenizer
