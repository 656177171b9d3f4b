#include "tokenbench/tokenizer/tokenizer.h"

namespace tokenbench::tokenizer {

std::size_t Tokenizer::count(std::string_view text) const {
  thread_local std::vector<std::int32_t> ids;
  ids.clear();
  encode_into(text, false, ids);
  return ids.size();
}

}  // namespace tokenbench::tokenizer
