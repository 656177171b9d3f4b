#pragma once

#include <sstream>
#include <string>
#include <vector>

#include "tokenbench/tokenizer/tokenizer.h"

namespace tokenbench::testing {

/// A tiny tokenizer for tests of code that uses the Tokenizer interface: one token per
/// whitespace-separated word of a fixed vocabulary ("w0" ... "w99"); id 0 is a special "<s>",
/// unknown words count as id 1. decode joins words with single spaces.
class WordTokenizer : public tokenizer::Tokenizer {
 public:
  void encode_into(std::string_view text, bool add_special_tokens,
                   std::vector<std::int32_t>& ids) const override {
    if (add_special_tokens) ids.push_back(0);
    std::istringstream in{std::string(text)};
    std::string word;
    while (in >> word) {
      const auto id = token_to_id(word);
      ids.push_back(id ? *id : 1);
    }
  }
  std::string decode(std::span<const std::int32_t> ids) const override {
    std::string out;
    for (const auto id : ids) {
      if (!out.empty()) out += ' ';
      out += *id_to_token(id);
    }
    return out;
  }
  std::size_t vocab_size() const override { return 100; }
  std::optional<std::string> id_to_token(std::int32_t id) const override {
    if (id < 0 || id >= 100) return std::nullopt;
    return id == 0 ? std::string("<s>") : "w" + std::to_string(id);
  }
  std::optional<std::int32_t> token_to_id(std::string_view token) const override {
    if (token == "<s>") return 0;
    if (token.size() < 2 || token[0] != 'w') return std::nullopt;
    const int v = std::stoi(std::string(token.substr(1)));
    return v > 0 && v < 100 ? std::optional<std::int32_t>(v) : std::nullopt;
  }
  bool is_special(std::int32_t id) const override { return id == 0; }
  std::vector<std::int32_t> special_ids() const override { return {0}; }
  std::optional<std::int32_t> bos_id() const override { return 0; }
  std::optional<std::int32_t> eos_id() const override { return std::nullopt; }
  std::string description() const override { return "words"; }
};

}  // namespace tokenbench::testing
