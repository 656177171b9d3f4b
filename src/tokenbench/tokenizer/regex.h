#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace tokenbench::tokenizer {

/// A compiled PCRE2 pattern for pre-tokenizer splitting: UTF mode with Unicode properties
/// (`\p{L}`, `\p{N}`, ...), JIT-compiled where the platform allows. `\s` and `\S` are rewritten to
/// the Unicode White_Space set so that they agree with the Rust and Oniguruma engines that the
/// reference tokenizers use (PCRE2's own `\s` also matches U+180E).
///
/// Immutable after construction; `find` may be called from several threads at once (match data
/// and JIT stacks are per thread).
class Regex {
 public:
  /// Compiles `pattern`; throws std::invalid_argument naming PCRE2's complaint and its offset.
  explicit Regex(std::string_view pattern);
  ~Regex();
  Regex(const Regex&) = delete;
  Regex& operator=(const Regex&) = delete;

  /// Finds the first match in `text` (valid UTF-8) at or after byte `from`; on success stores its
  /// byte range in [start, end) and returns true.
  bool find(std::string_view text, std::size_t from, std::size_t& start, std::size_t& end) const;

  /// Calls fn(start, end) for each non-overlapping, non-empty match in `text`, left to right.
  template <class Fn>
  void for_each_match(std::string_view text, Fn&& fn) const {
    std::size_t pos = 0, start = 0, end = 0;
    while (pos <= text.size() && find(text, pos, start, end)) {
      if (end == start) {
        // An empty match: step over one character and look again.
        pos = start + 1;
        while (pos < text.size() && (static_cast<unsigned char>(text[pos]) & 0xC0) == 0x80) ++pos;
        continue;
      }
      fn(start, end);
      pos = end;
    }
  }

  /// The pattern as given.
  const std::string& pattern() const { return pattern_; }

 private:
  std::string pattern_;
  void* code_ = nullptr;  // pcre2_code_8*
  bool jit_ = false;
};

/// Escapes `literal` so that it matches itself as a pattern.
std::string regex_escape(std::string_view literal);

}  // namespace tokenbench::tokenizer
