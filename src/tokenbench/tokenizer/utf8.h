#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace tokenbench::tokenizer {

/// The replacement character U+FFFD in UTF-8.
inline constexpr std::string_view kReplacementChar = "\xEF\xBF\xBD";

/// True when `text` is well-formed UTF-8 (no overlongs, surrogates or code points past U+10FFFF).
bool is_valid_utf8(std::string_view text);

/// Replaces each ill-formed subsequence of `text` with U+FFFD, one per maximal subpart, as the
/// WHATWG decoder (JavaScript's TextDecoder), Python's `errors="replace"` and Rust's
/// `from_utf8_lossy` do. Valid text comes back unchanged.
std::string sanitize_utf8(std::string_view text);

/// Length in bytes of the UTF-8 sequence that starts with `lead` (1 for a stray byte).
inline std::size_t utf8_length(unsigned char lead) {
  if (lead < 0x80) return 1;
  if (lead >= 0xF0) return 4;
  if (lead >= 0xE0) return 3;
  if (lead >= 0xC0) return 2;
  return 1;
}

/// Decodes the code point at `text[pos]` of valid UTF-8 and advances `pos` past it.
char32_t next_code_point(std::string_view text, std::size_t& pos);

/// Appends the UTF-8 encoding of `cp` to `out`.
void append_utf8(char32_t cp, std::string& out);

/// Unicode White_Space, the set that Rust's `char::is_whitespace` uses.
bool is_unicode_whitespace(char32_t cp);

}  // namespace tokenbench::tokenizer
