// --prefix-hit-rate (issue 28, SGLang #37359): random prompts whose hit rate in an ideal prefix
// cache is the one asked for, within 1 %, for every seed.

#include <gtest/gtest.h>

#include <cmath>

#include "tokenbench/core/ideal_cache.h"
#include "tokenbench/workload/dataset.h"

namespace tokenbench::workload {
namespace {

// The ideal cache's hit rate over `count` prompts of `options`, sent in order.
double ideal_rate(const RandomDatasetOptions& options, std::size_t count) {
  core::IdealCache cache(options.hit_block);
  PromptGenerator next = random_generator(options);
  std::int64_t hit = 0;
  std::int64_t tokens = 0;
  for (std::size_t i = 0; i < count; ++i) {
    const core::PromptBlocks b = core::prompt_blocks(next(), options.hit_block);
    hit += cache.observe(b.hashes);
    tokens += b.tokens;
  }
  return static_cast<double>(hit) / static_cast<double>(tokens);
}

TEST(PrefixHitRate, AnIdealCacheHoldsTheShareAskedForWithinOnePercentOverFiveSeeds) {
  for (const double rate : {0.0, 0.25, 0.6, 0.9}) {
    for (std::uint64_t seed = 1; seed <= 5; ++seed) {
      RandomDatasetOptions o;
      o.input_len = 512;
      o.range_ratio = 0.5;  // lengths from 256 to 768: blocks of 16 do not divide them
      o.output_len = 8;
      o.seed = seed;
      o.hit_rate = rate;
      o.hit_block = 16;
      EXPECT_NEAR(ideal_rate(o, 200), rate, 0.01) << "rate " << rate << " seed " << seed;
    }
  }
  // 1 is out of reach: the first prompt finds nothing, and no prompt's tail short of a block is
  // ever held; asked for, the prompts are all prefix.
  RandomDatasetOptions all;
  all.input_len = 512;
  all.range_ratio = 0.5;
  all.hit_rate = 1.0;
  EXPECT_GT(ideal_rate(all, 200), 0.97);
  // Short prompts in blocks of 64: far from a whole number of blocks each, still within 1 %.
  RandomDatasetOptions o;
  o.input_len = 100;
  o.range_ratio = 0.3;
  o.hit_rate = 0.45;
  o.hit_block = 64;
  EXPECT_NEAR(ideal_rate(o, 400), 0.45, 0.01);
}

TEST(PrefixHitRate, TheSameSeedMakesTheSamePromptsAndTheLengthsAreKept) {
  RandomDatasetOptions o;
  o.input_len = 300;
  o.range_ratio = 0.2;
  o.hit_rate = 0.5;
  o.seed = 9;
  PromptGenerator a = random_generator(o);
  PromptGenerator b = random_generator(o);
  for (int i = 0; i < 20; ++i) {
    const core::RequestSpec x = a();
    const core::RequestSpec y = b();
    EXPECT_EQ(x.prompt, y.prompt);
    EXPECT_GE(x.input_tokens, 240);
    EXPECT_LE(x.input_tokens, 360);
  }
}

}  // namespace
}  // namespace tokenbench::workload
