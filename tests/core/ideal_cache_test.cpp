// The ideal prefix cache (core/ideal_cache.h) on hand-made prompt sets whose answers are known.

#include "tokenbench/core/ideal_cache.h"

#include <gtest/gtest.h>

namespace tokenbench::core {
namespace {

RequestSpec prompt(const std::string& text) {
  RequestSpec s;
  s.prompt = text;
  return s;
}

RequestSpec chat(const std::string& messages) {
  RequestSpec s;
  s.messages_json = messages;
  return s;
}

// What the cache held of each prompt, in order, in blocks of `block` words.
std::vector<std::int64_t> hits(const std::vector<RequestSpec>& prompts, std::int64_t block,
                               std::int64_t* tokens = nullptr) {
  IdealCache cache(block);
  std::vector<std::int64_t> out;
  for (const RequestSpec& p : prompts) {
    const PromptBlocks b = prompt_blocks(p, block);
    if (tokens != nullptr) *tokens += b.tokens;
    out.push_back(cache.observe(b.hashes));
  }
  return out;
}

TEST(IdealCache, EachPromptFindsItsLongestPrefixSharedWithAnyEarlierOneInWholeBlocks) {
  std::int64_t tokens = 0;
  EXPECT_EQ(hits({prompt("a b c d"), prompt("a b c d e f"), prompt("a b x y"), prompt("a"),
                  prompt("x y a b"), prompt("a b c d e f g")},
                 2, &tokens),
            (std::vector<std::int64_t>{0, 4, 2, 0, 0, 6}));
  EXPECT_EQ(tokens, 4 + 6 + 4 + 1 + 4 + 7);
  // Blocks of 3: "a b c" is one block; "a b x" is another; the tail short of a block is never
  // cached.
  EXPECT_EQ(hits({prompt("a b c d"), prompt("a b c d"), prompt("a b x")}, 3),
            (std::vector<std::int64_t>{0, 3, 0}));
  // A whole prompt found again is found whole.
  EXPECT_EQ(hits({prompt("a b c d"), prompt("a b c d")}, 2), (std::vector<std::int64_t>{0, 4}));
}

TEST(IdealCache, AChatIsReadInOrderWithItsRolesAndToolCalls) {
  const std::string system = R"({"role":"system","content":"s1 s2 s3 s4"})";
  const auto a = chat("[" + system + R"(,{"role":"user","content":"u1 u2"}])");
  const auto b = chat("[" + system + R"(,{"role":"user","content":"v1 v2"}])");
  // The same words said by the user are another prefix: a role starts its message.
  const auto c = chat(R"([{"role":"user","content":"s1 s2 s3 s4"}])");
  const auto tool =
      chat("[" + system +
           R"(,{"role":"assistant","content":null,"tool_calls":[{"id":"t","type":"function",)"
           R"("function":{"name":"search","arguments":"q1"}}]},{"role":"tool","tool_call_id":"t",)"
           R"("content":[{"type":"text","text":"r1 r2"}]}])");
  std::int64_t tokens = 0;
  EXPECT_EQ(hits({a, b, c, tool}, 2, &tokens), (std::vector<std::int64_t>{0, 4, 0, 4}));
  EXPECT_EQ(tokens, 6 + 6 + 4 + 8);  // the tool call: its name and arguments; the result's text
  EXPECT_EQ(prompt_blocks(tool, 2).hashes.size(), 4U);
  // Without messages, a prompt is one user message.
  EXPECT_EQ(hits({prompt("s1 s2"), chat(R"([{"role":"user","content":"s1 s2"}])")}, 2),
            (std::vector<std::int64_t>{0, 2}));
}

TEST(IdealCache, PastItsLimitItRemembersNoNewBlockAndSaysSo) {
  IdealCache cache(1, 3);
  EXPECT_EQ(cache.observe(prompt_blocks(prompt("a b"), 1).hashes), 0);
  EXPECT_FALSE(cache.capped());
  EXPECT_EQ(cache.observe(prompt_blocks(prompt("x y"), 1).hashes), 0);  // y is not kept
  EXPECT_TRUE(cache.capped());
  EXPECT_EQ(cache.observe(prompt_blocks(prompt("a b"), 1).hashes), 2);
  EXPECT_EQ(cache.observe(prompt_blocks(prompt("x y"), 1).hashes), 1);
  // Many distinct blocks: the table grows and still finds every one.
  IdealCache big(1);
  RequestSpec many;
  for (int i = 0; i < 5000; ++i) many.prompt += "w" + std::to_string(i) + " ";
  const auto blocks = prompt_blocks(many, 1).hashes;
  EXPECT_EQ(big.observe(blocks), 0);
  EXPECT_EQ(big.observe(blocks), 5000);
  EXPECT_TRUE(prompt_blocks(many, 0).hashes.empty());
}

}  // namespace
}  // namespace tokenbench::core
