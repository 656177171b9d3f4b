// The models a run's requests are spread over: --lora-modules (with --lora-weights) and
// --model-mix, and which member each request names.

#include "tokenbench/core/request_mix.h"

#include <gtest/gtest.h>

#include <set>
#include <vector>

#include "tokenbench/core/config_check.h"

namespace tokenbench::core {
namespace {

RequestMix lora(std::vector<std::string> names, std::vector<std::string> weights = {}) {
  RunConfig c;
  c.lora_modules = std::move(names);
  c.lora_weights = std::move(weights);
  return request_mix(c);
}

std::vector<std::size_t> choices(const RequestMix& mix, LoraAssignment how, std::uint64_t seed,
                                 std::size_t n) {
  std::vector<std::size_t> out;
  for (std::uint64_t i = 0; i < n; ++i) out.push_back(mix_choice(mix, how, seed, i));
  return out;
}

TEST(RequestMix, UniformRoundRobinFollowsTheRequestIndex) {
  const RequestMix mix = lora({"a", "b", "c"});
  EXPECT_TRUE(mix.lora);
  EXPECT_FALSE(mix.weighted);
  EXPECT_EQ(choices(mix, LoraAssignment::kRoundRobin, 7, 7),
            (std::vector<std::size_t>{0, 1, 2, 0, 1, 2, 0}));
}

TEST(RequestMix, UniformRandomIsTheSeedsAndReachesEveryMember) {
  const RequestMix mix = lora({"a", "b", "c"});
  const auto a = choices(mix, LoraAssignment::kRandom, 1, 300);
  EXPECT_EQ(a, choices(mix, LoraAssignment::kRandom, 1, 300));  // the same run repeats it
  EXPECT_NE(a, choices(mix, LoraAssignment::kRandom, 2, 300));  // another seed draws others
  const std::set<std::size_t> seen(a.begin(), a.end());
  EXPECT_EQ(seen, (std::set<std::size_t>{0, 1, 2}));
  // Each request's draw depends on its index alone, not on the order requests are built in.
  EXPECT_EQ(mix_choice(mix, LoraAssignment::kRandom, 1, 299), a[299]);
}

TEST(RequestMix, WeightsGiveEachMemberItsShare) {
  const RequestMix mix = lora({"a", "b", "c"}, {"a=6", "b=3", "c=1"});
  ASSERT_TRUE(mix.weighted);
  EXPECT_DOUBLE_EQ(mix.shares[0], 0.6);
  EXPECT_DOUBLE_EQ(mix.shares[2], 0.1);
  for (const auto how : {LoraAssignment::kRoundRobin, LoraAssignment::kRandom}) {
    std::vector<int> counts(3, 0);
    for (const std::size_t m : choices(mix, how, 3, 10'000)) ++counts[m];
    // Round-robin's golden-ratio walk is within a few requests of the shares; random within
    // four standard deviations (sqrt(10000 x 0.6 x 0.4) = 49).
    const int slack = how == LoraAssignment::kRoundRobin ? 5 : 200;
    EXPECT_NEAR(counts[0], 6000, slack);
    EXPECT_NEAR(counts[1], 3000, slack);
    EXPECT_NEAR(counts[2], 1000, slack);
  }
  // Round-robin interleaves: the first ten requests already hold every member.
  const auto first = choices(mix, LoraAssignment::kRoundRobin, 0, 10);
  EXPECT_EQ(std::set<std::size_t>(first.begin(), first.end()), (std::set<std::size_t>{0, 1, 2}));
}

TEST(RequestMix, ModelMixTakesWeightsInline) {
  RunConfig c;
  c.model_mix = {"llama=0.75", "qwen=0.25"};
  const RequestMix mix = request_mix(c);
  EXPECT_FALSE(mix.lora);
  EXPECT_EQ(mix.names, (std::vector<std::string>{"llama", "qwen"}));
  EXPECT_DOUBLE_EQ(mix.shares[0], 0.75);
  c.model_mix = {"llama", "qwen"};
  EXPECT_DOUBLE_EQ(request_mix(c).shares[1], 0.5);
  EXPECT_TRUE(request_mix(RunConfig{}).empty());
}

TEST(RequestMix, BadWeightsAreRefusedNamingTheProblem) {
  const auto refusal = [](RunConfig c) {
    try {
      request_mix(c);
    } catch (const ConfigError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  RunConfig c;
  c.lora_modules = {"a", "b"};
  c.lora_weights = {"a=0.5", "z=0.5"};
  EXPECT_EQ(refusal(c), "--lora-weights names 'z', which is not one of --lora-modules");
  c.lora_weights = {"a=0.5"};
  EXPECT_EQ(refusal(c),
            "--lora-weights gives a weight to some of its names and not to others: give every "
            "name one, or none (uniform)");
  c.lora_weights = {"a=-1", "b=1"};
  EXPECT_EQ(refusal(c),
            "--lora-weights 'a=-1': the weight '-1' is not a positive number (give "
            "name=0.6,other=0.4)");
  c.lora_weights = {"a"};
  EXPECT_EQ(refusal(c), "--lora-weights 'a' has no weight: give a=0.5");
  c.lora_weights = {};
  c.lora_modules = {"a", "a"};
  EXPECT_EQ(refusal(c), "--lora-modules names 'a' twice");
  RunConfig w;
  w.lora_weights = {"a=1"};
  EXPECT_EQ(refusal(w), "--lora-weights weighs --lora-modules's adapters: add --lora-modules");
  RunConfig both;
  both.lora_modules = {"a"};
  both.model_mix = {"m"};
  EXPECT_EQ(refusal(both),
            "--lora-modules and --model-mix both name each request's model: give one");
}

}  // namespace
}  // namespace tokenbench::core
