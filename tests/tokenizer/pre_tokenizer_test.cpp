#include "tokenbench/tokenizer/pre_tokenizer.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tokenbench/tokenizer/normalizer.h"
#include "tokenbench/tokenizer/regex.h"

namespace tokenbench::tokenizer {
namespace {

using Pieces = std::vector<std::string>;

Pieces run(const PreTokenizer& p, std::string_view text, bool at_origin = true) {
  PreTokenized t;
  t.reset(text, at_origin);
  p.pre_tokenize(t);
  return Pieces(t.pieces.begin(), t.pieces.end());
}

Pieces split(SplitBehavior behavior, bool invert = false) {
  return run(*make_split_pre_tokenizer(std::make_unique<Regex>("-"), behavior, invert),
             "the-final--countdown");
}

// The examples of Hugging Face's SplitDelimiterBehavior documentation.
TEST(PreTokenizer, SplitBehaviors) {
  EXPECT_EQ(split(SplitBehavior::kRemoved), (Pieces{"the", "final", "countdown"}));
  EXPECT_EQ(split(SplitBehavior::kIsolated), (Pieces{"the", "-", "final", "-", "-", "countdown"}));
  EXPECT_EQ(split(SplitBehavior::kMergedWithPrevious),
            (Pieces{"the-", "final-", "-", "countdown"}));
  EXPECT_EQ(split(SplitBehavior::kMergedWithNext), (Pieces{"the", "-final", "-", "-countdown"}));
  EXPECT_EQ(split(SplitBehavior::kContiguous), (Pieces{"the", "-", "final", "--", "countdown"}));
  EXPECT_EQ(split(SplitBehavior::kRemoved, true), (Pieces{"-", "-", "-"}));
}

TEST(PreTokenizer, Llama3PatternSplitsLikeTiktoken) {
  const auto p = make_split_pre_tokenizer(
      std::make_unique<Regex>(
          R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)"),
      SplitBehavior::kIsolated, false);
  EXPECT_EQ(run(*p, "Hello world's 12345!!  ok\n\nx"),
            (Pieces{"Hello", " world", "'s", " ", "123", "45", "!!", " ", " ok", "\n\n", "x"}));
  EXPECT_EQ(run(*p, "你好，世界"), (Pieces{"你好", "，世界"}));
}

// PCRE2's own \s matches U+180E; the Rust and Oniguruma engines (and White_Space) do not.
TEST(PreTokenizer, BackslashSIsUnicodeWhiteSpace) {
  const Regex re(R"(\s+|\S+)");
  std::vector<std::string> parts;
  re.for_each_match("a\u180Eb\u3000c", [&](std::size_t s, std::size_t e) {
    parts.push_back(std::string("a\u180Eb\u3000c").substr(s, e - s));
  });
  EXPECT_EQ(parts, (std::vector<std::string>{"a\u180Eb", "\u3000", "c"}));
  EXPECT_EQ(parts.size(), 3u);
  const Regex in_class(R"([^\s]+)");
  std::size_t start = 0, end = 0;
  ASSERT_TRUE(in_class.find("\u180E x", 0, start, end));
  EXPECT_EQ(end - start, 3u);
}

TEST(PreTokenizer, ByteLevelWithGpt2Regex) {
  EXPECT_EQ(run(*make_byte_level_pre_tokenizer(true, true), "Hello world's"),
            (Pieces{" Hello", " world", "'s"}));
  EXPECT_EQ(run(*make_byte_level_pre_tokenizer(false, false), "Hello world"),
            (Pieces{"Hello world"}));
}

TEST(PreTokenizer, Digits) {
  EXPECT_EQ(run(*make_digits_pre_tokenizer(true), "a123b"), (Pieces{"a", "1", "2", "3", "b"}));
  EXPECT_EQ(run(*make_digits_pre_tokenizer(false), "a123b٤٥"), (Pieces{"a", "123", "b", "٤٥"}));
}

TEST(PreTokenizer, Metaspace) {
  const std::string m = "\u2581";
  EXPECT_EQ(run(*make_metaspace_pre_tokenizer(m, PrependScheme::kAlways, true), "Hey friend"),
            (Pieces{m + "Hey", m + "friend"}));
  EXPECT_EQ(run(*make_metaspace_pre_tokenizer(m, PrependScheme::kFirst, false), "a b", false),
            (Pieces{"a" + m + "b"}));
  EXPECT_EQ(run(*make_metaspace_pre_tokenizer(m, PrependScheme::kFirst, false), "a b", true),
            (Pieces{m + "a" + m + "b"}));
}

TEST(PreTokenizer, WhitespaceAndSequence) {
  EXPECT_EQ(run(*make_whitespace_pre_tokenizer(), "Hey, friend!  ok"),
            (Pieces{"Hey", ",", "friend", "!", "ok"}));
  std::vector<std::unique_ptr<PreTokenizer>> steps;
  steps.push_back(make_whitespace_split_pre_tokenizer());
  steps.push_back(make_digits_pre_tokenizer(true));
  EXPECT_EQ(run(*make_sequence_pre_tokenizer(std::move(steps)), " a12 \u3000b "),
            (Pieces{"a", "1", "2", "b"}));
}

TEST(Normalizer, UnicodeFormsPrependReplaceStrip) {
  std::string s = "e\u0301 \uFB01";
  make_unicode_normalizer(UnicodeForm::kNfc)->normalize(s);
  EXPECT_EQ(s, "\u00E9 \uFB01");
  make_unicode_normalizer(UnicodeForm::kNfkc)->normalize(s);
  EXPECT_EQ(s, "\u00E9 fi");
  make_unicode_normalizer(UnicodeForm::kNfd)->normalize(s);
  EXPECT_EQ(s, "e\u0301 fi");

  std::vector<std::unique_ptr<Normalizer>> steps;
  steps.push_back(make_prepend_normalizer("\u2581"));
  steps.push_back(make_replace_normalizer(" ", "\u2581"));
  const auto llama = make_sequence_normalizer(std::move(steps));
  std::string t = "Hi there";
  llama->normalize(t);
  EXPECT_EQ(t, "\u2581Hi\u2581there");
  std::string empty;
  llama->normalize(empty);
  EXPECT_EQ(empty, "");

  std::string r = "a1b22c";
  make_replace_normalizer(std::make_unique<Regex>("[0-9]+"), "#")->normalize(r);
  EXPECT_EQ(r, "a#b#c");
  std::string w = " \u3000 x y \n";
  make_strip_normalizer(true, true)->normalize(w);
  EXPECT_EQ(w, "x y");
  std::string u = "ÀB ΣΑ";
  make_lowercase_normalizer()->normalize(u);
  EXPECT_EQ(u, "àb σα");
}

}  // namespace
}  // namespace tokenbench::tokenizer
