#include "tokenbench/tokenizer/pre_tokenizer.h"

#include <utf8proc.h>

#include <cstdint>

#include "tokenbench/tokenizer/regex.h"
#include "tokenbench/tokenizer/scratch.h"
#include "tokenbench/tokenizer/utf8.h"

namespace tokenbench::tokenizer {

void PreTokenized::reset(std::string_view text, bool at_origin) {
  pieces.clear();
  owned.clear();
  if (!text.empty()) pieces.push_back(text);
  first_at_origin = at_origin;
}

std::string_view PreTokenized::own(std::string text) {
  owned.push_back(std::move(text));
  return owned.back();
}

namespace {

struct Part {
  std::size_t start;
  std::size_t end;
  bool match;
};

// Applies HF's delimiter behaviour to `parts`, which cover `piece` left to right, appending the
// kept non-empty sub-pieces to `out`.
void apply_behavior(std::string_view piece, std::vector<Part>& parts, SplitBehavior behavior,
                    std::vector<std::string_view>& out) {
  const auto emit = [&](std::size_t start, std::size_t end) {
    if (end > start) out.push_back(piece.substr(start, end - start));
  };
  switch (behavior) {
    case SplitBehavior::kRemoved:
      for (const Part& p : parts) {
        if (!p.match) emit(p.start, p.end);
      }
      return;
    case SplitBehavior::kIsolated:
      for (const Part& p : parts) emit(p.start, p.end);
      return;
    case SplitBehavior::kMergedWithPrevious: {
      std::vector<Part> merged;
      bool previous_match = false;
      for (const Part& p : parts) {
        if (p.match && !previous_match && !merged.empty()) {
          merged.back().end = p.end;
        } else {
          merged.push_back(p);
        }
        previous_match = p.match;
      }
      for (const Part& p : merged) emit(p.start, p.end);
      return;
    }
    case SplitBehavior::kMergedWithNext: {
      std::vector<Part> merged;
      bool previous_match = false;
      for (auto it = parts.rbegin(); it != parts.rend(); ++it) {
        if (it->match && !previous_match && !merged.empty()) {
          merged.back().start = it->start;
        } else {
          merged.push_back(*it);
        }
        previous_match = it->match;
      }
      for (auto it = merged.rbegin(); it != merged.rend(); ++it) emit(it->start, it->end);
      return;
    }
    case SplitBehavior::kContiguous: {
      std::vector<Part> merged;
      bool previous_match = false;
      for (const Part& p : parts) {
        if (p.match == previous_match && !merged.empty()) {
          merged.back().end = p.end;
        } else {
          merged.push_back(p);
        }
        previous_match = p.match;
      }
      for (const Part& p : merged) emit(p.start, p.end);
      return;
    }
  }
}

// Per-thread parts of the piece being split (by split_one).
thread_local std::vector<Part> t_parts;

// Runs `split_one(piece, out)` over every piece, keeping track of whether pieces[0] still
// starts at the origin.
template <class SplitOne>
void split_all(PreTokenized& text, SplitOne&& split_one) {
  text.next.clear();
  bool first_at_origin = false;
  for (std::size_t i = 0; i < text.pieces.size(); ++i) {
    const std::string_view piece = text.pieces[i];
    const std::size_t before = text.next.size();
    split_one(piece, text.next);
    if (i == 0 && text.first_at_origin && text.next.size() > before) {
      first_at_origin = text.next[before].data() == piece.data();
    }
  }
  text.pieces.swap(text.next);
  text.first_at_origin = first_at_origin;
  release_if_large(t_parts);
}

void regex_parts(const Regex& regex, std::string_view piece, bool invert,
                 std::vector<Part>& parts) {
  parts.clear();
  std::size_t prev = 0;
  regex.for_each_match(piece, [&](std::size_t start, std::size_t end) {
    if (start > prev) parts.push_back({prev, start, invert});
    parts.push_back({start, end, !invert});
    prev = end;
  });
  if (prev < piece.size()) parts.push_back({prev, piece.size(), invert});
}

template <class Predicate>
void char_parts(std::string_view piece, Predicate&& is_delimiter, std::vector<Part>& parts) {
  parts.clear();
  std::size_t pos = 0, run = 0;
  while (pos < piece.size()) {
    const std::size_t start = pos;
    const char32_t cp = next_code_point(piece, pos);
    if (is_delimiter(cp)) {
      if (start > run) parts.push_back({run, start, false});
      parts.push_back({start, pos, true});
      run = pos;
    }
  }
  if (piece.size() > run) parts.push_back({run, piece.size(), false});
}

// Splits `piece` into the matches of `regex` and the gaps between them.
void isolate(const Regex& regex, std::string_view piece, std::vector<std::string_view>& out) {
  std::size_t prev = 0;
  regex.for_each_match(piece, [&](std::size_t start, std::size_t end) {
    if (start > prev) out.push_back(piece.substr(prev, start - prev));
    out.push_back(piece.substr(start, end - start));
    prev = end;
  });
  if (prev < piece.size()) out.push_back(piece.substr(prev));
}

class SplitPreTokenizer final : public PreTokenizer {
 public:
  SplitPreTokenizer(std::unique_ptr<Regex> pattern, SplitBehavior behavior, bool invert)
      : pattern_(std::move(pattern)), behavior_(behavior), invert_(invert) {}
  void pre_tokenize(PreTokenized& text) const override {
    split_all(text, [&](std::string_view piece, std::vector<std::string_view>& out) {
      if (behavior_ == SplitBehavior::kIsolated) {
        // Matches and the gaps between them, each a piece, whatever `invert` says.
        isolate(*pattern_, piece, out);
        return;
      }
      regex_parts(*pattern_, piece, invert_, t_parts);
      apply_behavior(piece, t_parts, behavior_, out);
    });
  }

 private:
  std::unique_ptr<Regex> pattern_;
  SplitBehavior behavior_;
  bool invert_;
};

constexpr std::string_view kGpt2Pattern =
    R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)";

class ByteLevelPreTokenizer final : public PreTokenizer {
 public:
  ByteLevelPreTokenizer(bool add_prefix_space, bool use_regex)
      : add_prefix_space_(add_prefix_space),
        regex_(use_regex ? std::make_unique<Regex>(kGpt2Pattern) : nullptr) {}
  void pre_tokenize(PreTokenized& text) const override {
    if (add_prefix_space_) {
      for (auto& piece : text.pieces) {
        if (!piece.starts_with(' ')) piece = text.own(" " + std::string(piece));
      }
      text.first_at_origin = false;
    }
    if (regex_ != nullptr) {
      split_all(text, [&](std::string_view piece, std::vector<std::string_view>& out) {
        isolate(*regex_, piece, out);
      });
    }
  }

 private:
  bool add_prefix_space_;
  std::unique_ptr<Regex> regex_;
};

bool is_numeric(char32_t cp) {
  if (cp < 0x80) return cp >= '0' && cp <= '9';
  const utf8proc_category_t c = utf8proc_category(static_cast<utf8proc_int32_t>(cp));
  return c == UTF8PROC_CATEGORY_ND || c == UTF8PROC_CATEGORY_NL || c == UTF8PROC_CATEGORY_NO;
}

class DigitsPreTokenizer final : public PreTokenizer {
 public:
  explicit DigitsPreTokenizer(bool individual) : individual_(individual) {}
  void pre_tokenize(PreTokenized& text) const override {
    split_all(text, [&](std::string_view piece, std::vector<std::string_view>& out) {
      char_parts(piece, is_numeric, t_parts);
      apply_behavior(piece, t_parts,
                     individual_ ? SplitBehavior::kIsolated : SplitBehavior::kContiguous, out);
    });
  }

 private:
  bool individual_;
};

class MetaspacePreTokenizer final : public PreTokenizer {
 public:
  MetaspacePreTokenizer(std::string replacement, PrependScheme scheme, bool split)
      : replacement_(std::move(replacement)), scheme_(scheme), split_(split) {}
  void pre_tokenize(PreTokenized& text) const override {
    for (std::size_t i = 0; i < text.pieces.size(); ++i) {
      const std::string_view piece = text.pieces[i];
      std::string rewritten;
      rewritten.reserve(piece.size() + 8);
      const bool prepend = (scheme_ == PrependScheme::kAlways ||
                            (scheme_ == PrependScheme::kFirst && i == 0 && text.first_at_origin));
      for (const char c : piece) {
        if (c == ' ') {
          rewritten.append(replacement_);
        } else {
          rewritten.push_back(c);
        }
      }
      if (prepend && !rewritten.starts_with(replacement_)) rewritten.insert(0, replacement_);
      text.pieces[i] = text.own(std::move(rewritten));
    }
    text.first_at_origin = false;
    if (!split_) return;
    split_all(text, [&](std::string_view piece, std::vector<std::string_view>& out) {
      t_parts.clear();
      std::size_t run = 0;
      for (std::size_t pos = piece.find(replacement_); pos != std::string_view::npos;
           pos = piece.find(replacement_, pos + replacement_.size())) {
        if (pos > run) t_parts.push_back({run, pos, false});
        t_parts.push_back({pos, pos + replacement_.size(), true});
        run = pos + replacement_.size();
      }
      if (piece.size() > run) t_parts.push_back({run, piece.size(), false});
      apply_behavior(piece, t_parts, SplitBehavior::kMergedWithNext, out);
    });
  }

 private:
  std::string replacement_;
  PrependScheme scheme_;
  bool split_;
};

class WhitespaceSplitPreTokenizer final : public PreTokenizer {
 public:
  void pre_tokenize(PreTokenized& text) const override {
    split_all(text, [&](std::string_view piece, std::vector<std::string_view>& out) {
      char_parts(piece, is_unicode_whitespace, t_parts);
      apply_behavior(piece, t_parts, SplitBehavior::kRemoved, out);
    });
  }
};

class SequencePreTokenizer final : public PreTokenizer {
 public:
  explicit SequencePreTokenizer(std::vector<std::unique_ptr<PreTokenizer>> steps)
      : steps_(std::move(steps)) {}
  void pre_tokenize(PreTokenized& text) const override {
    for (const auto& step : steps_) step->pre_tokenize(text);
  }

 private:
  std::vector<std::unique_ptr<PreTokenizer>> steps_;
};

}  // namespace

std::unique_ptr<PreTokenizer> make_split_pre_tokenizer(std::unique_ptr<Regex> pattern,
                                                       SplitBehavior behavior, bool invert) {
  return std::make_unique<SplitPreTokenizer>(std::move(pattern), behavior, invert);
}
std::unique_ptr<PreTokenizer> make_byte_level_pre_tokenizer(bool add_prefix_space, bool use_regex) {
  return std::make_unique<ByteLevelPreTokenizer>(add_prefix_space, use_regex);
}
std::unique_ptr<PreTokenizer> make_digits_pre_tokenizer(bool individual_digits) {
  return std::make_unique<DigitsPreTokenizer>(individual_digits);
}
std::unique_ptr<PreTokenizer> make_metaspace_pre_tokenizer(std::string replacement,
                                                           PrependScheme scheme, bool split) {
  return std::make_unique<MetaspacePreTokenizer>(std::move(replacement), scheme, split);
}
std::unique_ptr<PreTokenizer> make_whitespace_pre_tokenizer() {
  return std::make_unique<SplitPreTokenizer>(std::make_unique<Regex>(R"(\w+|[^\w\s]+)"),
                                             SplitBehavior::kRemoved, true);
}
std::unique_ptr<PreTokenizer> make_whitespace_split_pre_tokenizer() {
  return std::make_unique<WhitespaceSplitPreTokenizer>();
}
std::unique_ptr<PreTokenizer> make_sequence_pre_tokenizer(
    std::vector<std::unique_ptr<PreTokenizer>> steps) {
  return std::make_unique<SequencePreTokenizer>(std::move(steps));
}

}  // namespace tokenbench::tokenizer
