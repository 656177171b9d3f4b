#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>

namespace tokenbench::tokenizer {

/// GPT-2's byte-level alphabet: each of the 256 byte values is shown as one printable code point
/// (printable Latin-1 bytes as themselves, the others from U+0100 on), so that a byte string can
/// be written as text in a vocabulary. Byte-level BPE models (GPT-2, Llama-3, Qwen, o200k as
/// tokenizer.json) store their tokens in this alphabet; tokenbench converts them back to raw bytes
/// when it loads them and runs BPE on bytes.
class ByteLevelAlphabet {
 public:
  /// The shared instance; immutable, safe from any thread.
  static const ByteLevelAlphabet& get();

  /// The code point that stands for byte `b`.
  char32_t to_char(unsigned char b) const { return byte_to_char_[b]; }

  /// Converts a token written in the alphabet back to raw bytes; nullopt when a character of it
  /// is outside the alphabet (such a token is not a byte string, e.g. an added token's text).
  std::optional<std::string> to_bytes(std::string_view token) const;

 private:
  ByteLevelAlphabet();
  std::array<char32_t, 256> byte_to_char_{};
  std::array<short, 0x144> char_to_byte_{};  // -1 where a code point is outside the alphabet
};

}  // namespace tokenbench::tokenizer
