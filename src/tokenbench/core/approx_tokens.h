#pragma once

#include <cstdint>
#include <string_view>

namespace tokenbench::core {

/// The documented approximation of a text's token count used until a tokenizer is given:
/// one token per whitespace-separated word. The random dataset builds prompts from single-token
/// English words so that the approximation is close for BPE vocabularies; both the client and the
/// simulated server use this rule, so their counts agree.
inline std::int64_t approx_token_count(std::string_view text) {
  std::int64_t words = 0;
  bool in_word = false;
  for (const char c : text) {
    const bool space = c == ' ' || c == '\n' || c == '\t' || c == '\r';
    if (!space && !in_word) ++words;
    in_word = !space;
  }
  return words;
}

}  // namespace tokenbench::core
