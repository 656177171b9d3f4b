// Token counts of a finished reply (client/outcome.h): no sockets, a record and usage figures.

#include "tokenbench/client/outcome.h"

#include <gtest/gtest.h>

namespace tokenbench::client {
namespace {

// A streamed record with one chunk per entry of `bytes`.
core::RequestRecord streamed(const std::vector<std::int32_t>& bytes) {
  core::RequestRecord rec;
  rec.streamed = true;
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    rec.chunks.push_back(core::ChunkStamp{static_cast<core::Nanos>(i + 1) * 1000, 1});
  }
  rec.chunk_text_bytes = bytes;
  return rec;
}

ReplyUsage usage(std::int64_t prompt, std::int64_t completion) {
  ReplyUsage u;
  u.prompt = prompt;
  u.completion = completion;
  u.completion_limit = 1000;
  u.max_tokens = 64;
  u.input_tokens = 10;
  u.input_source = core::TokenSource::kDataset;
  return u;
}

TEST(Outcome, UsageWins) {
  core::RequestRecord rec = streamed({4, 4, 4});
  settle_tokens(usage(12, 3), rec);
  EXPECT_EQ(rec.output_tokens, 3);
  EXPECT_EQ(rec.output_source, core::TokenSource::kUsage);
  EXPECT_EQ(rec.prompt_tokens, 12);
  EXPECT_EQ(rec.prompt_source, core::TokenSource::kUsage);
  EXPECT_TRUE(rec.ok());
  for (const auto& c : rec.chunks) EXPECT_EQ(c.tokens, 1);
}

TEST(Outcome, ChunksWhenNoUsage) {
  core::RequestRecord rec = streamed({4, 4, 4, 4});
  settle_tokens(usage(-1, -1), rec);
  EXPECT_EQ(rec.output_tokens, 4);
  EXPECT_EQ(rec.output_source, core::TokenSource::kChunks);
  EXPECT_EQ(rec.prompt_tokens, 10);
  EXPECT_EQ(rec.prompt_source, core::TokenSource::kDataset);
}

TEST(Outcome, WholeReplyWithoutUsageKeepsTheTransportsCount) {
  core::RequestRecord rec;
  rec.streamed = false;
  rec.output_tokens = 7;
  rec.output_source = core::TokenSource::kApproximate;
  settle_tokens(usage(-1, -1), rec);
  EXPECT_EQ(rec.output_tokens, 7);
  EXPECT_EQ(rec.output_source, core::TokenSource::kApproximate);
}

TEST(Outcome, ImplausibleUsageIsAProtocolFailureAndChunksCount) {
  core::RequestRecord rec = streamed({4, 4});
  settle_tokens(usage(12, 5000), rec);
  EXPECT_EQ(rec.error, core::ErrorClass::kProtocol);
  EXPECT_NE(rec.error_message.find("5000 completion tokens for max_tokens 64"), std::string::npos)
      << rec.error_message;
  EXPECT_EQ(rec.output_tokens, 2);
  EXPECT_EQ(rec.output_source, core::TokenSource::kChunks);

  // An empty reply with an implausible usage is a protocol failure too; an earlier failure stays.
  core::RequestRecord empty;
  empty.error = core::ErrorClass::kEmptyReply;
  settle_tokens(usage(-1, 5000), empty);
  EXPECT_EQ(empty.error, core::ErrorClass::kProtocol);
  core::RequestRecord cut = streamed({4});
  cut.error = core::ErrorClass::kStreamCut;
  settle_tokens(usage(-1, 5000), cut);
  EXPECT_EQ(cut.error, core::ErrorClass::kStreamCut);
}

TEST(Outcome, SeveralTokensPerChunkSplitByUsage) {
  core::RequestRecord rec = streamed({30, 10});
  settle_tokens(usage(-1, 6), rec);
  EXPECT_EQ(rec.output_tokens, 6);
  ASSERT_EQ(rec.chunks.size(), 2u);
  // One token each, and the other four split 3:1 as the chunks' bytes.
  EXPECT_EQ(rec.chunks[0].tokens, 4);
  EXPECT_EQ(rec.chunks[1].tokens, 2);
}

TEST(Outcome, TokenizerInputSourceWinsOverUsage) {
  core::RequestRecord rec = streamed({4});
  ReplyUsage u = usage(12, 1);
  u.input_tokens = 11;
  u.input_source = core::TokenSource::kTokenizer;
  settle_tokens(u, rec);
  EXPECT_EQ(rec.prompt_tokens, 11);
  EXPECT_EQ(rec.prompt_source, core::TokenSource::kTokenizer);
}

}  // namespace
}  // namespace tokenbench::client
