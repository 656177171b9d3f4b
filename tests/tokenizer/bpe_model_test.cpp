#include "tokenbench/tokenizer/bpe_model.h"

#include <gtest/gtest.h>

#include <climits>
#include <random>
#include <string>
#include <vector>

namespace tokenbench::tokenizer {
namespace {

using Ids = std::vector<std::int32_t>;

Ids encode(const BpeModel& model, std::string_view word) {
  Ids out;
  model.encode_word(word, out);
  return out;
}

// Vocabulary a=0 b=1 c=2 ab=3 bc=4 abc=5 aa=6 aaa=7 aaaa=8.
TokenTable small_vocab() {
  TokenTable t;
  int id = 0;
  for (const char* s : {"a", "b", "c", "ab", "bc", "abc", "aa", "aaa", "aaaa"}) t.add(s, id++);
  t.finish();
  return t;
}

TEST(BpeModel, MergesLowestRankFirst) {
  BpeOptions options;
  // ab before bc: "abc" -> ab c -> abc.
  const BpeModel ab_first(small_vocab(), {{0, 1}, {1, 2}, {3, 2}}, options);
  EXPECT_EQ(encode(ab_first, "abc"), (Ids{5}));
  EXPECT_EQ(encode(ab_first, "bcab"), (Ids{4, 3}));
  // bc before ab, and no (a, bc) merge: "abc" -> a bc.
  const BpeModel bc_first(small_vocab(), {{1, 2}, {0, 1}}, options);
  EXPECT_EQ(encode(bc_first, "abc"), (Ids{0, 4}));
}

TEST(BpeModel, EqualRanksMergeLeftmostFirst) {
  const BpeModel model(small_vocab(), {{0, 0}, {6, 0}, {6, 6}}, BpeOptions{});
  // aaa: (a,a) at 0 merges first -> aa a -> aaa.
  EXPECT_EQ(encode(model, "aaa"), (Ids{7}));
  // aaaaa: aa a a a -> aa aa a (rank 0 beats rank 1) -> aa aaa (no rank for aa+aaa).
  EXPECT_EQ(encode(model, "aaaaa"), (Ids{6, 7}));
}

TEST(BpeModel, IgnoreMergesEmitsWholeWords) {
  BpeOptions options;
  options.ignore_merges = true;
  const BpeModel model(small_vocab(), {{1, 2}, {0, 1}}, options);
  EXPECT_EQ(encode(model, "abc"), (Ids{5}));  // in the vocabulary: no merging
  EXPECT_EQ(encode(model, "abca"), (Ids{0, 4, 0}));
}

TEST(BpeModel, ByteFallbackAndUnknown) {
  TokenTable t;
  t.add("<unk>", 0);
  t.add("<0xC3>", 1);
  t.add("<0xA9>", 2);
  t.add("x", 3);
  t.finish();
  BpeOptions fallback;
  fallback.byte_fallback = true;
  fallback.unk_id = 0;
  const BpeModel with_fallback(t, {}, fallback);
  EXPECT_EQ(encode(with_fallback, "x\xC3\xA9x"), (Ids{3, 1, 2, 3}));
  EXPECT_EQ(encode(with_fallback, "x\xE4\xBD\xA0"), (Ids{3, 0}));  // no byte tokens: <unk>

  BpeOptions fuse;
  fuse.unk_id = 0;
  fuse.fuse_unk = true;
  const BpeModel fused(t, {}, fuse);
  EXPECT_EQ(encode(fused, "yzx\xC3\xA9"), (Ids{0, 3, 0}));
  BpeOptions drop;
  const BpeModel dropping(t, {}, drop);
  EXPECT_EQ(encode(dropping, "yxz"), (Ids{3}));  // no unk token: unknown characters vanish
}

TEST(BpeModel, RankByConcatenationIsTiktokensRule) {
  TokenTable t;
  int id = 0;
  for (const char* s : {"a", "b", "c", "d", "cd", "bcd", "ab", "abcde"}) t.add(s, id++);
  t.finish();
  BpeOptions options;
  options.byte_level = true;
  options.rank_by_concatenation = true;
  const BpeModel model(t, {}, options);
  // cd (4) before ab (6); then b+cd is bcd (5); a+bcd is no token.
  EXPECT_EQ(encode(model, "abcd"), (Ids{0, 5}));
  // abcde is a token that merging cannot reach ("e" alone has none, so it is dropped)...
  EXPECT_EQ(encode(model, "abcde"), (Ids{0, 5}));
  // ...but tiktoken emits a piece that is itself a token directly.
  options.ignore_merges = true;
  const BpeModel whole(t, {}, options);
  EXPECT_EQ(encode(whole, "abcde"), (Ids{7}));
  EXPECT_EQ(encode(whole, "abcd"), (Ids{0, 5}));
}

// The heap merge (long words) and the linear scan (short words) against a naive BPE.
TEST(BpeModel, LongWordsMatchNaiveMerging) {
  TokenTable t;
  std::vector<std::string> tokens = {"a",   "b",   "ab",   "ba",   "aa",   "bb",
                                     "aab", "abb", "abab", "bbaa", "aaaa", "babab"};
  for (std::size_t i = 0; i < tokens.size(); ++i) t.add(tokens[i], static_cast<int>(i));
  t.finish();
  const std::vector<std::pair<int, int>> merges = {{0, 1}, {1, 0}, {0, 0}, {1, 1}, {4, 1},
                                                   {2, 1}, {2, 2}, {5, 4}, {4, 4}, {1, 8}};
  std::vector<std::pair<std::int32_t, std::int32_t>> merge_ids(merges.begin(), merges.end());
  BpeOptions options;
  options.cache_capacity = 0;
  const BpeModel model(t, merge_ids, options);

  const auto naive = [&](const std::string& word) {
    std::vector<std::string> parts;
    for (const char c : word) parts.emplace_back(1, c);
    for (;;) {
      int best_rank = INT_MAX;
      std::size_t best = 0;
      for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
        for (std::size_t r = 0; r < merges.size(); ++r) {
          if (tokens[merges[r].first] == parts[i] && tokens[merges[r].second] == parts[i + 1] &&
              static_cast<int>(r) < best_rank) {
            best_rank = static_cast<int>(r);
            best = i;
          }
        }
      }
      if (best_rank == INT_MAX) break;
      parts[best] += parts[best + 1];
      parts.erase(parts.begin() + static_cast<long>(best) + 1);
    }
    Ids ids;
    for (const auto& p : parts) ids.push_back(t.find(p));
    return ids;
  };
  std::mt19937 rng(7);
  for (int trial = 0; trial < 200; ++trial) {
    std::string word(1 + rng() % 200, 'a');
    for (char& c : word) c = (rng() % 3 == 0) ? 'b' : 'a';
    ASSERT_EQ(encode(model, word), naive(word)) << word;
  }
}

TEST(BpeModel, RejectsMergeOutsideVocabulary) {
  EXPECT_THROW(BpeModel(small_vocab(), {{2, 0}}, BpeOptions{}), std::invalid_argument);  // "ca"
}

TEST(BpeModel, CachedWordsGiveTheSameIds) {
  const BpeModel model(small_vocab(), {{0, 1}, {1, 2}, {3, 2}}, BpeOptions{});
  const Ids first = encode(model, "abcabc");
  EXPECT_EQ(first, (Ids{5, 5}));
  EXPECT_EQ(encode(model, "abcabc"), first);
}

}  // namespace
}  // namespace tokenbench::tokenizer
