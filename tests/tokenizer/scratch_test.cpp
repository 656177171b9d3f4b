// Per-thread scratch buffers free what one huge input grew (tokenizer/scratch.h).

#include "tokenbench/tokenizer/scratch.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

namespace tokenbench::tokenizer {
namespace {

TEST(TokenizerScratch, KeepsSmallBuffers) {
  std::vector<std::int32_t> ids(1000, 7);
  const auto* data = ids.data();
  release_if_large(ids);
  EXPECT_EQ(ids.size(), 1000u);  // left as it is
  EXPECT_EQ(ids.data(), data);
  std::string text(kScratchKeepBytes, 'a');  // exactly the limit is kept
  release_if_large(text);
  EXPECT_EQ(text.size(), kScratchKeepBytes);
}

TEST(TokenizerScratch, FreesBuffersAboveTheLimitInBytes) {
  std::vector<std::int32_t> ids(kScratchKeepBytes / sizeof(std::int32_t) + 1);
  release_if_large(ids);
  EXPECT_TRUE(ids.empty());
  EXPECT_EQ(ids.capacity(), 0u);
  std::string text(kScratchKeepBytes + 1, 'a');
  release_if_large(text);
  EXPECT_TRUE(text.empty());
  EXPECT_LE(text.capacity(), 15u);  // at most the small-string buffer
  std::vector<char> bytes(64);
  release_if_large(bytes, 32);
  EXPECT_EQ(bytes.capacity(), 0u);
}

}  // namespace
}  // namespace tokenbench::tokenizer
