#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tokenbench::tokenizer {

/// An entry of tokenizer.json's `added_tokens`, or a tiktoken special token.
struct AddedToken {
  std::string content;
  std::int32_t id = -1;
  bool special = false;
  bool single_word = false;  ///< only matches where no word character touches it
  bool lstrip = false;       ///< takes the whitespace before it
  bool rstrip = false;       ///< takes the whitespace after it
  bool normalized = false;   ///< matched in normalized text, not in the raw input
};

/// A stretch of text after added tokens are split out: either text to tokenize (`id` < 0) or
/// one added token.
struct Segment {
  std::string_view text;
  std::int32_t id = -1;
};

/// Finds added tokens in text, leftmost first and longest among those that start at the same
/// place (as Hugging Face's AddedVocabulary does with Aho-Corasick), through a byte trie.
/// Immutable after construction; split() is safe from several threads.
class AddedTokenMatcher {
 public:
  AddedTokenMatcher() = default;
  explicit AddedTokenMatcher(const std::vector<AddedToken>& tokens);

  bool empty() const { return tokens_.empty(); }

  /// Appends the segments of `text` to `out`; text segments are never empty.
  void split(std::string_view text, std::vector<Segment>& out) const;

 private:
  struct Node {
    std::vector<std::pair<unsigned char, std::int32_t>> children;
    std::int32_t token = -1;  // index in tokens_ of the token ending here
  };
  std::int32_t longest_at(std::string_view text, std::size_t pos) const;

  std::vector<AddedToken> tokens_;
  std::vector<Node> nodes_;
  std::array<std::int32_t, 256> root_{};  // node for each first byte, -1 when none
};

}  // namespace tokenbench::tokenizer
