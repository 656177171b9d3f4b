#include "tokenbench/load/nonstream_sample.h"

#include <gtest/gtest.h>

#include <vector>

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

}  // namespace
}  // namespace tokenbench::load
