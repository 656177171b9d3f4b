#pragma once

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <cstdio>
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

/// `name` made safe as one path component: every character but letters, digits, '.', '-' and
/// '_' becomes '_' (so "org/name" never becomes a subfolder), a name of dots only ("." or "..")
/// becomes underscores, an empty one becomes `fallback`, and a long one is cut to `max_bytes`
/// (a file name has a length limit, 255 bytes on most file systems).
inline std::string file_name_part(std::string name, std::string_view fallback,
                                  std::size_t max_bytes = 64) {
  if (name.size() > max_bytes) name.resize(max_bytes);
  bool only_dots = true;
  for (char& ch : name) {
    const auto c = static_cast<unsigned char>(ch);
    if (!std::isalnum(c) && ch != '.' && ch != '-' && ch != '_') ch = '_';
    only_dots = only_dots && ch == '.';
  }
  if (only_dots) {
    for (char& ch : name) ch = '_';
  }
  return name.empty() ? std::string(fallback) : name;
}

/// `s` on one line and safe for a terminal: CR, LF and tabs become spaces, and every other
/// control character (ESC, BEL, backspace, DEL, and the C1 controls U+0080..U+009F) is written as
/// `\xNN`, so that text from a server can neither forge a line nor drive the terminal (clear the
/// screen, set its title). For tables, stderr lines and report.txt; JSON escapes on its own.
/// "2.5 s", "30 s": a duration in seconds for messages.
inline std::string format_seconds(double seconds) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g s", seconds);
  return buf;
}

/// The Unicode bidirectional control (U+061C, U+200E, U+200F, U+202A..U+202E, U+2066..U+2069)
/// whose UTF-8 encoding starts at s[i], or 0.
inline int bidi_control_at(std::string_view s, std::size_t i) {
  const auto at = [&s](std::size_t k) {
    return k < s.size() ? static_cast<unsigned char>(s[k]) : 0u;
  };
  if (at(i) == 0xd8 && at(i + 1) == 0x9c) return 0x061c;
  if (at(i) != 0xe2) return 0;
  const unsigned b1 = at(i + 1);
  const unsigned b2 = at(i + 2);
  if (b1 == 0x80 && (b2 == 0x8e || b2 == 0x8f || (b2 >= 0xaa && b2 <= 0xae))) {
    return static_cast<int>(0x2000 + (b2 - 0x80));
  }
  if (b1 == 0x81 && b2 >= 0xa6 && b2 <= 0xa9) return static_cast<int>(0x2040 + (b2 - 0x80));
  return 0;
}

/// `s` with control characters (C0 but newline, DEL, C1, and the bidirectional controls)
/// written as \xNN or \uNNNN, so that text
/// from a server cannot move the cursor, recolour or retitle a terminal; newlines kept or made
/// spaces (with tabs and carriage returns) as `keep_newlines` says.
inline std::string neutralised(std::string_view s, bool keep_newlines) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (keep_newlines && (c == '\n' || c == '\t')) {
      out += static_cast<char>(c);
    } else if (!keep_newlines && (c == '\n' || c == '\r' || c == '\t')) {
      out += ' ';
    } else if (c < 0x20 || c == 0x7f) {
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 0xf];
    } else if (c == 0xc2 && i + 1 < s.size() && static_cast<unsigned char>(s[i + 1]) >= 0x80 &&
               static_cast<unsigned char>(s[i + 1]) <= 0x9f) {
      const auto c1 = static_cast<unsigned char>(s[++i]);
      out += "\\u00";
      out += kHex[c1 >> 4];
      out += kHex[c1 & 0xf];
    } else if (const int bidi = bidi_control_at(s, i); bidi != 0) {
      // Bidirectional overrides and isolates reorder what the terminal shows (a line can read
      // other than what it runs: "Trojan Source"), so they are written as escapes too.
      out += "\\u";
      for (int shift = 12; shift >= 0; shift -= 4) out += kHex[(bidi >> shift) & 0xf];
      i += bidi == 0x061c ? 1 : 2;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

/// `s` as one word of a POSIX shell command line: as it is when it holds only characters no
/// shell treats specially (letters, digits and _ . / : @ % + = , -), else in single quotes, each
/// ' inside written '\''. A value from a server or a user pasted from a printed command then runs
/// nothing ("m1;touch${IFS}/tmp/x" becomes 'm1;touch${IFS}/tmp/x').
inline std::string shell_quoted(std::string_view s) {
  const bool plain = !s.empty() && std::all_of(s.begin(), s.end(), [](char ch) {
    const auto c = static_cast<unsigned char>(ch);
    return std::isalnum(c) || std::string_view("_./:@%+=,-").find(ch) != std::string_view::npos;
  });
  if (plain) return std::string(s);
  std::string out = "'";
  for (const char ch : s) out += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
  return out + "'";
}

/// Server text for one line of a terminal: controls neutralised, line breaks made spaces.
inline std::string one_line(std::string_view s) { return neutralised(s, false); }

/// `s` without its closing full stops and spaces, so that it reads inside a longer sentence.
inline std::string without_full_stop(std::string s) {
  while (!s.empty() && (s.back() == '.' || s.back() == ' ')) s.pop_back();
  return s;
}

/// A block of text for a terminal (tables that may quote a server): controls neutralised,
/// newlines and tabs kept.
inline std::string terminal_safe(std::string_view s) { return neutralised(s, true); }

}  // namespace tokenbench::core
