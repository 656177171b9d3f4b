#include "tokenbench/metrics/token_counts.h"

#include <gtest/gtest.h>

#include <numeric>

#include "../support/word_tokenizer.h"
#include "tokenbench/core/apportion.h"

namespace tokenbench::metrics {
namespace {

TEST(Apportion, ExactWhenWeightsSumToTheTotal) {
  using core::apportion;
  EXPECT_EQ(apportion({1, 3, 2}, 6), (std::vector<std::int32_t>{1, 3, 2}));
  const auto p = apportion({1, 1, 1}, 7);
  EXPECT_EQ(std::accumulate(p.begin(), p.end(), 0), 7);
  EXPECT_EQ(p, (std::vector<std::int32_t>{3, 2, 2}));
  EXPECT_EQ(apportion({}, 4), std::vector<std::int32_t>{});
  EXPECT_EQ(apportion({2, 2}, 0), (std::vector<std::int32_t>{0, 0}));
}

// A server whose usage said 10^18 completion tokens over two chunks hung the worker: the parts
// overflowed int32 and the remainder loop ran about 10^18 times. The total is now capped.
TEST(Apportion, HugeTotalIsCappedAndReturns) {
  using core::apportion;
  const auto p = apportion({1, 1}, 1'000'000'000'000'000'000);
  EXPECT_EQ(std::accumulate(p.begin(), p.end(), std::int64_t{0}), core::kMaxApportionTotal);
  const auto q = apportion({2'000'000'000, 1}, std::int64_t{1} << 62);
  EXPECT_EQ(std::accumulate(q.begin(), q.end(), std::int64_t{0}), core::kMaxApportionTotal);
}

core::RequestRecord record_with_text(const std::vector<std::string>& chunks) {
  core::RequestRecord r;
  core::Nanos t = 100;
  for (const auto& c : chunks) {
    r.chunks.push_back({t, 1});
    t += 10;
    r.chunk_text_bytes.push_back(static_cast<std::int32_t>(c.size()));
    r.output_text += c;
  }
  r.output_tokens = static_cast<std::int64_t>(chunks.size());
  r.output_source = core::TokenSource::kChunks;
  return r;
}

TEST(CountOutputTokens, WithoutUsageTheTokenizerCountsTheText) {
  testing::WordTokenizer tok;
  auto r = record_with_text({"w1 w2", " w3", " w4 w5 w6"});
  count_output_tokens(tok, r);
  EXPECT_EQ(r.output_tokens, 6);
  EXPECT_EQ(r.output_source, core::TokenSource::kTokenizer);
  EXPECT_EQ(r.chunks[0].tokens, 2);
  EXPECT_EQ(r.chunks[1].tokens, 1);
  EXPECT_EQ(r.chunks[2].tokens, 3);
}

TEST(CountOutputTokens, UsageTotalIsKeptAndSplitByTheTokenizer) {
  testing::WordTokenizer tok;
  auto r = record_with_text({"w1 w2", " w3 w4"});
  r.output_tokens = 8;  // the server says so
  r.output_source = core::TokenSource::kUsage;
  count_output_tokens(tok, r);
  EXPECT_EQ(r.output_tokens, 8);
  EXPECT_EQ(r.output_source, core::TokenSource::kUsage);
  EXPECT_EQ(r.chunks[0].tokens + r.chunks[1].tokens, 8);
  EXPECT_EQ(r.chunks[0].tokens, 4);
}

TEST(CountOutputTokens, RecordsWithoutTextAreUntouched) {
  testing::WordTokenizer tok;
  core::RequestRecord r;
  r.output_tokens = 5;
  r.output_source = core::TokenSource::kUsage;
  count_output_tokens(tok, r);
  EXPECT_EQ(r.output_tokens, 5);
}

}  // namespace
}  // namespace tokenbench::metrics
