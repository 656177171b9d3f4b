#include "tokenbench/tokenizer/normalizer.h"

#include <utf8proc.h>

#include <cstdlib>
#include <stdexcept>

#include "tokenbench/tokenizer/regex.h"
#include "tokenbench/tokenizer/utf8.h"

namespace tokenbench::tokenizer {
namespace {

class UnicodeNormalizer final : public Normalizer {
 public:
  explicit UnicodeNormalizer(UnicodeForm form) : form_(form) {
    const int base = UTF8PROC_STABLE;
    switch (form) {
      case UnicodeForm::kNfc:
        options_ = base | UTF8PROC_COMPOSE;
        break;
      case UnicodeForm::kNfd:
        options_ = base | UTF8PROC_DECOMPOSE;
        break;
      case UnicodeForm::kNfkc:
        options_ = base | UTF8PROC_COMPOSE | UTF8PROC_COMPAT;
        break;
      case UnicodeForm::kNfkd:
        options_ = base | UTF8PROC_DECOMPOSE | UTF8PROC_COMPAT;
        break;
    }
  }
  void normalize(std::string& text) const override {
    // Text below U+0300 is already in NFC (combining marks start there); ASCII is in every form.
    const unsigned char limit = form_ == UnicodeForm::kNfc ? 0xCC : 0x80;
    bool trivial = true;
    for (const char c : text) {
      if (static_cast<unsigned char>(c) >= limit) {
        trivial = false;
        break;
      }
    }
    if (trivial) return;
    utf8proc_uint8_t* out = nullptr;
    const utf8proc_ssize_t n = utf8proc_map(reinterpret_cast<const utf8proc_uint8_t*>(text.data()),
                                            static_cast<utf8proc_ssize_t>(text.size()), &out,
                                            static_cast<utf8proc_option_t>(options_));
    if (n < 0) {
      std::free(out);
      throw std::runtime_error(std::string("unicode normalization failed: ") + utf8proc_errmsg(n));
    }
    text.assign(reinterpret_cast<const char*>(out), static_cast<std::size_t>(n));
    std::free(out);
  }

 private:
  UnicodeForm form_;
  int options_ = 0;
};

class PrependNormalizer final : public Normalizer {
 public:
  explicit PrependNormalizer(std::string prefix) : prefix_(std::move(prefix)) {}
  void normalize(std::string& text) const override {
    if (!text.empty()) text.insert(0, prefix_);
  }

 private:
  std::string prefix_;
};

class LiteralReplaceNormalizer final : public Normalizer {
 public:
  LiteralReplaceNormalizer(std::string literal, std::string content)
      : literal_(std::move(literal)), content_(std::move(content)) {}
  void normalize(std::string& text) const override {
    if (literal_.empty()) return;
    std::size_t pos = text.find(literal_);
    if (pos == std::string::npos) return;
    std::string out;
    out.reserve(text.size() + text.size() / 4);
    std::size_t from = 0;
    for (; pos != std::string::npos; pos = text.find(literal_, from)) {
      out.append(text, from, pos - from).append(content_);
      from = pos + literal_.size();
    }
    out.append(text, from);
    text.swap(out);
  }

 private:
  std::string literal_;
  std::string content_;
};

class RegexReplaceNormalizer final : public Normalizer {
 public:
  RegexReplaceNormalizer(std::unique_ptr<Regex> pattern, std::string content)
      : pattern_(std::move(pattern)), content_(std::move(content)) {}
  void normalize(std::string& text) const override {
    std::string out;
    std::size_t from = 0;
    bool any = false;
    pattern_->for_each_match(text, [&](std::size_t start, std::size_t end) {
      out.append(text, from, start - from).append(content_);
      from = end;
      any = true;
    });
    if (!any) return;
    out.append(text, from);
    text.swap(out);
  }

 private:
  std::unique_ptr<Regex> pattern_;
  std::string content_;
};

class LowercaseNormalizer final : public Normalizer {
 public:
  void normalize(std::string& text) const override {
    std::string out;
    out.reserve(text.size());
    std::size_t pos = 0;
    while (pos < text.size()) {
      const char32_t cp = next_code_point(text, pos);
      append_utf8(static_cast<char32_t>(utf8proc_tolower(static_cast<utf8proc_int32_t>(cp))), out);
    }
    text.swap(out);
  }
};

class StripNormalizer final : public Normalizer {
 public:
  StripNormalizer(bool left, bool right) : left_(left), right_(right) {}
  void normalize(std::string& text) const override {
    std::size_t begin = 0, end = text.size();
    if (left_) {
      while (begin < end) {
        std::size_t next = begin;
        if (!is_unicode_whitespace(next_code_point(text, next))) break;
        begin = next;
      }
    }
    if (right_) {
      while (end > begin) {
        std::size_t start = end - 1;
        while (start > begin && (static_cast<unsigned char>(text[start]) & 0xC0) == 0x80) --start;
        std::size_t pos = start;
        if (!is_unicode_whitespace(next_code_point(text, pos))) break;
        end = start;
      }
    }
    text = text.substr(begin, end - begin);
  }

 private:
  bool left_;
  bool right_;
};

class SequenceNormalizer final : public Normalizer {
 public:
  explicit SequenceNormalizer(std::vector<std::unique_ptr<Normalizer>> steps)
      : steps_(std::move(steps)) {}
  void normalize(std::string& text) const override {
    for (const auto& step : steps_) step->normalize(text);
  }

 private:
  std::vector<std::unique_ptr<Normalizer>> steps_;
};

}  // namespace

std::unique_ptr<Normalizer> make_unicode_normalizer(UnicodeForm form) {
  return std::make_unique<UnicodeNormalizer>(form);
}
std::unique_ptr<Normalizer> make_prepend_normalizer(std::string prefix) {
  return std::make_unique<PrependNormalizer>(std::move(prefix));
}
std::unique_ptr<Normalizer> make_replace_normalizer(std::string literal, std::string content) {
  return std::make_unique<LiteralReplaceNormalizer>(std::move(literal), std::move(content));
}
std::unique_ptr<Normalizer> make_replace_normalizer(std::unique_ptr<Regex> pattern,
                                                    std::string content) {
  return std::make_unique<RegexReplaceNormalizer>(std::move(pattern), std::move(content));
}
std::unique_ptr<Normalizer> make_lowercase_normalizer() {
  return std::make_unique<LowercaseNormalizer>();
}
std::unique_ptr<Normalizer> make_strip_normalizer(bool left, bool right) {
  return std::make_unique<StripNormalizer>(left, right);
}
std::unique_ptr<Normalizer> make_sequence_normalizer(
    std::vector<std::unique_ptr<Normalizer>> steps) {
  return std::make_unique<SequenceNormalizer>(std::move(steps));
}

}  // namespace tokenbench::tokenizer
