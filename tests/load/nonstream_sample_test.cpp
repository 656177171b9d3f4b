#include "tokenbench/load/nonstream_sample.h"

#include <gtest/gtest.h>

#include <vector>

#include "tokenbench/client/http_engine.h"

namespace tokenbench::load {
namespace {

std::vector<std::size_t> picks(std::size_t n, std::size_t k) {
  std::vector<std::size_t> out;
  for (std::size_t p = 0; p < n; ++p) {
    if (nonstream_pick(p, n, k)) out.push_back(p);
  }
  return out;
}

TEST(NonstreamSampleTest, SpreadsKOfNEvenlyEndingWithTheLast) {
  EXPECT_EQ(picks(40, 5), (std::vector<std::size_t>{7, 15, 23, 31, 39}));
  EXPECT_EQ(picks(10, 4), (std::vector<std::size_t>{2, 4, 7, 9}));
  EXPECT_EQ(picks(3, 3), (std::vector<std::size_t>{0, 1, 2}));
  EXPECT_TRUE(picks(10, 0).empty());
}

TEST(NonstreamSampleTest, ExactlyKForEveryNAndK) {
  for (std::size_t n = 1; n <= 60; ++n) {
    for (std::size_t k = 0; k <= n; ++k) EXPECT_EQ(picks(n, k).size(), k) << n << " " << k;
  }
}

TEST(NonstreamSampleTest, PhaseWorkPicksByPromptSoEveryTargetAgrees) {
  const std::vector<std::string> bodies(80);
  client::PhaseWork work;
  work.nonstream_bodies = &bodies;
  work.sample_count = 5;
  work.sample_prompts = 40;
  work.per_prompt = 2;  // two targets: schedule indices 2p and 2p + 1 are prompt p
  std::vector<std::size_t> indices;
  for (std::size_t i = 0; i < 80; ++i) {
    if (work.nonstream(i)) indices.push_back(i);
  }
  EXPECT_EQ(indices, (std::vector<std::size_t>{14, 15, 30, 31, 46, 47, 62, 63, 78, 79}));
  work.nonstream_bodies = nullptr;
  EXPECT_FALSE(work.nonstream(14));
}

}  // namespace
}  // namespace tokenbench::load
