#include "tokenbench/tokenizer/byte_level.h"

#include "tokenbench/tokenizer/utf8.h"

namespace tokenbench::tokenizer {

ByteLevelAlphabet::ByteLevelAlphabet() {
  char32_t next = 256;
  for (int b = 0; b < 256; ++b) {
    const bool printable = (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE);
    byte_to_char_[b] = printable ? static_cast<char32_t>(b) : next++;
  }
  char_to_byte_.fill(-1);
  for (int b = 0; b < 256; ++b) char_to_byte_[byte_to_char_[b]] = static_cast<short>(b);
}

const ByteLevelAlphabet& ByteLevelAlphabet::get() {
  static const ByteLevelAlphabet alphabet;
  return alphabet;
}

std::optional<std::string> ByteLevelAlphabet::to_bytes(std::string_view token) const {
  std::string out;
  out.reserve(token.size());
  std::size_t pos = 0;
  while (pos < token.size()) {
    const char32_t cp = next_code_point(token, pos);
    if (cp >= char_to_byte_.size() || char_to_byte_[cp] < 0) return std::nullopt;
    out.push_back(static_cast<char>(char_to_byte_[cp]));
  }
  return out;
}

}  // namespace tokenbench::tokenizer
