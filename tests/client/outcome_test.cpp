// Token counts of a finished reply (client/outcome.h): no sockets, a record and usage figures.

#include "tokenbench/client/outcome.h"

#include <gtest/gtest.h>

#include "tokenbench/client/api_adapter.h"

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

// classify_reply: the outcome of a finished reply from what the transport saw, no sockets.
class ClassifyReply : public ::testing::Test {
 protected:
  core::RequestRecord classify(const ReplyFacts& reply, ReplyUsage& u,
                               core::RequestRecord rec = {}) {
    classify_reply(reply, *adapter_, rec, u);
    return rec;
  }
  std::unique_ptr<ApiAdapter> adapter_ = make_adapter(core::ApiKind::kOpenAIChat);
};

TEST_F(ClassifyReply, TransportRedirectHttpErrorAndHtmlEachHaveTheirClass) {
  ReplyUsage u;
  ReplyFacts reply;
  reply.transport = CURLE_OPERATION_TIMEDOUT;
  reply.transport_error = "Operation timed out after 1000 milliseconds";
  EXPECT_EQ(classify(reply, u).error, core::ErrorClass::kTimeout);

  reply = {};
  reply.status = 302;
  reply.location = "https://login.example/sso";
  auto rec = classify(reply, u);
  EXPECT_EQ(rec.error, core::ErrorClass::kRedirect);
  EXPECT_EQ(rec.error_message, "HTTP 302: the URL redirects to https://login.example/sso");

  reply = {};
  reply.status = 429;
  reply.body = R"({"error":{"message":"slow down"}})";
  rec = classify(reply, u);
  EXPECT_EQ(rec.error, core::ErrorClass::kRateLimited);
  EXPECT_NE(rec.error_message.find("slow down"), std::string::npos) << rec.error_message;

  reply = {};
  reply.status = 200;
  reply.html = true;
  reply.body = "<html><head><title>Sign in</title></head></html>";
  rec = classify(reply, u);
  EXPECT_EQ(rec.error, core::ErrorClass::kMalformed);
  EXPECT_NE(rec.error_message.find("Sign in"), std::string::npos) << rec.error_message;
}

TEST_F(ClassifyReply, AStreamEndsWithItsMarkerOrIsCut) {
  ReplyUsage u;
  ReplyFacts reply;
  reply.status = 200;
  reply.event_stream = true;
  core::RequestRecord rec = streamed({5, 5});
  rec.output_chars = 10;
  EXPECT_EQ(classify(reply, u, rec).error, core::ErrorClass::kStreamCut);
  reply.done_seen = true;
  EXPECT_EQ(classify(reply, u, rec).error, core::ErrorClass::kNone);
  // A stream with its end but nothing in it is no answer.
  const auto empty = classify(reply, u, core::RequestRecord{});
  EXPECT_EQ(empty.error, core::ErrorClass::kEmptyReply);
  EXPECT_EQ(empty.error_message, "the stream carried no content, reasoning or tool call");
}

TEST_F(ClassifyReply, AWholeReplySetsItsTextAndUsage) {
  ReplyUsage u;
  ReplyFacts reply;
  reply.status = 200;
  reply.keep_text = true;
  reply.body = R"({"id":"r1","object":"chat.completion","choices":[{"index":0,"message":{"role":)"
               R"("assistant","content":"Hello there."},"finish_reason":"stop"}],)"
               R"("usage":{"prompt_tokens":7,"completion_tokens":3,"total_tokens":10}})";
  const auto rec = classify(reply, u);
  EXPECT_EQ(rec.error, core::ErrorClass::kNone);
  EXPECT_FALSE(rec.streamed);
  EXPECT_EQ(rec.output_text, "Hello there.");
  EXPECT_EQ(rec.finish_reason, "stop");
  EXPECT_EQ(rec.response_id, "r1");
  EXPECT_EQ(u.prompt, 7);
  EXPECT_EQ(u.completion, 3);

  ReplyUsage none;
  reply.body = R"({"choices":[{"index":0,"message":{"role":"assistant","content":""}}]})";
  EXPECT_EQ(classify(reply, none).error, core::ErrorClass::kEmptyReply);
  reply.body = "{not json";
  EXPECT_EQ(classify(reply, none).error, core::ErrorClass::kMalformed);
}

}  // namespace
}  // namespace tokenbench::client
