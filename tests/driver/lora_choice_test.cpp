#include <gtest/gtest.h>

#include <set>
#include <vector>

#include "tokenbench/driver/benchmark.h"

namespace tokenbench::driver {
namespace {

std::vector<std::size_t> choices(core::LoraAssignment how, std::uint64_t seed, std::size_t n) {
  std::vector<std::size_t> out;
  for (std::uint64_t i = 0; i < n; ++i) out.push_back(lora_choice(3, how, seed, i));
  return out;
}

TEST(LoraChoice, RoundRobinFollowsTheRequestIndex) {
  EXPECT_EQ(choices(core::LoraAssignment::kRoundRobin, 7, 7),
            (std::vector<std::size_t>{0, 1, 2, 0, 1, 2, 0}));
}

TEST(LoraChoice, RandomIsTheSeedsAndReachesEveryAdapter) {
  const auto a = choices(core::LoraAssignment::kRandom, 1, 300);
  EXPECT_EQ(a, choices(core::LoraAssignment::kRandom, 1, 300));  // the same run repeats it
  EXPECT_NE(a, choices(core::LoraAssignment::kRandom, 2, 300));  // another seed draws others
  EXPECT_NE(a, choices(core::LoraAssignment::kRoundRobin, 1, 300));
  const std::set<std::size_t> seen(a.begin(), a.end());
  EXPECT_EQ(seen, (std::set<std::size_t>{0, 1, 2}));
  // Each request's draw depends on its index alone, not on the order requests are built in.
  EXPECT_EQ(lora_choice(3, core::LoraAssignment::kRandom, 1, 299), a[299]);
}

}  // namespace
}  // namespace tokenbench::driver
