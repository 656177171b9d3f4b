#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace tokenbench::core {

/// The longest prefix of `s` of at most `max_bytes` bytes that does not end inside a UTF-8
/// sequence (continuation bytes at the cut are dropped), for shortening server text safely.
inline std::string_view utf8_prefix(std::string_view s, std::size_t max_bytes) {
  if (s.size() <= max_bytes) return s;
  std::size_t cut = max_bytes;
  // Back off over continuation bytes (10xxxxxx), then drop the lead byte they belong to.
  while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;
  return s.substr(0, cut);
}

/// `s` on one line: CR, LF and tabs become spaces (for tables and one-line error messages).
inline std::string one_line(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  }
  return out;
}

}  // namespace tokenbench::core
