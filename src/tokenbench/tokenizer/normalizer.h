#pragma once

#include <memory>
#include <string>
#include <vector>

namespace tokenbench::tokenizer {

class Regex;

/// One step of a tokenizer.json `normalizer`: rewrites a stretch of text (valid UTF-8) before
/// pre-tokenization. Implementations are immutable; normalize() is safe from several threads.
class Normalizer {
 public:
  virtual ~Normalizer() = default;
  /// Rewrites `text` in place.
  virtual void normalize(std::string& text) const = 0;
};

/// Unicode normalization forms (through utf8proc).
enum class UnicodeForm { kNfc, kNfd, kNfkc, kNfkd };

std::unique_ptr<Normalizer> make_unicode_normalizer(UnicodeForm form);
/// `Prepend`: puts `prefix` before non-empty text.
std::unique_ptr<Normalizer> make_prepend_normalizer(std::string prefix);
/// `Replace` with a String pattern: every occurrence of `literal` becomes `content`.
std::unique_ptr<Normalizer> make_replace_normalizer(std::string literal, std::string content);
/// `Replace` with a Regex pattern; takes ownership of `pattern`.
std::unique_ptr<Normalizer> make_replace_normalizer(std::unique_ptr<Regex> pattern,
                                                    std::string content);
/// `Lowercase` (simple case mapping per code point).
std::unique_ptr<Normalizer> make_lowercase_normalizer();
/// `Strip`: removes Unicode whitespace at the left and/or right end.
std::unique_ptr<Normalizer> make_strip_normalizer(bool left, bool right);
/// `Sequence`: applies `steps` in order.
std::unique_ptr<Normalizer> make_sequence_normalizer(
    std::vector<std::unique_ptr<Normalizer>> steps);

}  // namespace tokenbench::tokenizer
