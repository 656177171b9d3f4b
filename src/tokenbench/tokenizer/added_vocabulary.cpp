#include "tokenbench/tokenizer/added_vocabulary.h"

#include <utf8proc.h>

#include "tokenbench/tokenizer/utf8.h"

namespace tokenbench::tokenizer {
namespace {

bool is_word_char(char32_t cp) {
  if (cp < 0x80)
    return (cp >= '0' && cp <= '9') || (cp >= 'a' && cp <= 'z') || (cp >= 'A' && cp <= 'Z') ||
           cp == '_';
  const utf8proc_category_t c = utf8proc_category(static_cast<utf8proc_int32_t>(cp));
  return (c >= UTF8PROC_CATEGORY_LU && c <= UTF8PROC_CATEGORY_LO) ||
         (c >= UTF8PROC_CATEGORY_ND && c <= UTF8PROC_CATEGORY_NO);
}

// Start of the code point that ends just before `pos`.
std::size_t previous_start(std::string_view text, std::size_t pos) {
  std::size_t p = pos - 1;
  while (p > 0 && (static_cast<unsigned char>(text[p]) & 0xC0) == 0x80) --p;
  return p;
}

}  // namespace

AddedTokenMatcher::AddedTokenMatcher(const std::vector<AddedToken>& tokens) {
  root_.fill(-1);
  for (const AddedToken& token : tokens) {
    if (token.content.empty()) continue;
    const auto index = static_cast<std::int32_t>(tokens_.size());
    tokens_.push_back(token);
    const auto first = static_cast<unsigned char>(token.content[0]);
    if (root_[first] < 0) {
      root_[first] = static_cast<std::int32_t>(nodes_.size());
      nodes_.emplace_back();
    }
    std::int32_t node = root_[first];
    for (std::size_t i = 1; i < token.content.size(); ++i) {
      const auto byte = static_cast<unsigned char>(token.content[i]);
      std::int32_t child = -1;
      for (const auto& [b, n] : nodes_[node].children) {
        if (b == byte) child = n;
      }
      if (child < 0) {
        child = static_cast<std::int32_t>(nodes_.size());
        nodes_[node].children.emplace_back(byte, child);
        nodes_.emplace_back();
      }
      node = child;
    }
    if (nodes_[node].token < 0) nodes_[node].token = index;
  }
}

std::int32_t AddedTokenMatcher::longest_at(std::string_view text, std::size_t pos) const {
  std::int32_t node = root_[static_cast<unsigned char>(text[pos])];
  std::int32_t best = -1;
  for (std::size_t i = pos + 1; node >= 0; ++i) {
    if (nodes_[node].token >= 0) best = nodes_[node].token;
    if (i >= text.size()) break;
    const auto byte = static_cast<unsigned char>(text[i]);
    std::int32_t child = -1;
    for (const auto& [b, n] : nodes_[node].children) {
      if (b == byte) {
        child = n;
        break;
      }
    }
    node = child;
  }
  return best;
}

void AddedTokenMatcher::split(std::string_view text, std::vector<Segment>& out) const {
  std::size_t emitted = 0;  // end of the last segment written
  std::size_t pos = 0;
  while (pos < text.size()) {
    if (root_[static_cast<unsigned char>(text[pos])] < 0) {
      ++pos;
      continue;
    }
    const std::int32_t index = longest_at(text, pos);
    if (index < 0) {
      ++pos;
      continue;
    }
    const AddedToken& token = tokens_[index];
    std::size_t start = pos;
    std::size_t stop = pos + token.content.size();
    if (token.single_word) {
      std::size_t after = stop;
      const bool word_before = start > 0 && [&] {
        std::size_t p = previous_start(text, start);
        return is_word_char(next_code_point(text, p));
      }();
      const bool word_after = stop < text.size() && is_word_char(next_code_point(text, after));
      if (word_before || word_after) {
        pos = stop;  // matches never overlap, as with HF's Aho-Corasick iterator
        continue;
      }
    }
    if (token.lstrip) {
      while (start > emitted) {
        const std::size_t p = previous_start(text, start);
        std::size_t q = p;
        if (!is_unicode_whitespace(next_code_point(text, q))) break;
        start = p;
      }
    }
    if (token.rstrip) {
      while (stop < text.size()) {
        std::size_t q = stop;
        if (!is_unicode_whitespace(next_code_point(text, q))) break;
        stop = q;
      }
    }
    if (start > emitted) out.push_back(Segment{text.substr(emitted, start - emitted), -1});
    out.push_back(Segment{text.substr(start, stop - start), token.id});
    emitted = stop;
    pos = stop;
  }
  if (emitted < text.size()) out.push_back(Segment{text.substr(emitted), -1});
}

}  // namespace tokenbench::tokenizer
