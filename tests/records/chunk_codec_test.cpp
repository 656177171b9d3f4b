#include "tokenbench/records/chunk_codec.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "tokenbench/records/records_io.h"

namespace tokenbench::records {
namespace {

using core::ChunkStamp;
using core::Nanos;

constexpr Nanos kSent = 5'000'123'456;  // 5 s into the run, not on a microsecond

// A streamed record of `n` one-token chunks `itl_ns` apart, the first `ttft_ns` after kSent, with
// the other fields a real run writes (the ids a server sends, usage counts, derived figures).
core::RequestRecord stream_of(int n, Nanos ttft_ns, Nanos itl_ns) {
  core::RequestRecord r;
  r.id = 1234;
  r.scheduled = kSent - 20'000;
  r.sent = kSent;
  r.headers = kSent + 2'345'678;
  for (int i = 0; i < n; ++i) r.chunks.push_back(ChunkStamp{kSent + ttft_ns + i * itl_ns, 1});
  r.first_token = r.chunks.front().t;
  r.last_token = r.chunks.back().t;
  r.done = r.last_token + 345'678;
  r.prompt_tokens = 512;
  r.prompt_source = core::TokenSource::kUsage;
  r.output_tokens = n;
  r.output_source = core::TokenSource::kUsage;
  r.output_chars = 4 * n;
  r.http_status = 200;
  r.finish_reason = "length";
  r.request_id = "0123456789abcdef0123456789abcdef";
  r.response_id = "chatcmpl-0123456789abcdef0123456789abcdef";
  return r;
}

std::vector<ChunkStamp> round_trip(const std::vector<ChunkStamp>& chunks, Nanos sent) {
  return chunk_stamps_from_field(chunk_stamps_to_field(chunks, sent), sent);
}

TEST(ChunkCodec, StampsComeBackRoundedDownToTheMicrosecond) {
  const std::vector<ChunkStamp> chunks{
      {kSent + 41'999'999, 1}, {kSent + 42'000'000, 1}, {kSent + 43'000'999, 1}};
  const std::vector<ChunkStamp> back = round_trip(chunks, kSent);
  ASSERT_EQ(back.size(), 3u);
  EXPECT_EQ(back[0].t, 5'042'123'000);  // floor(5'042'123'455 / 1000) * 1000
  EXPECT_EQ(back[1].t, 5'042'123'000);
  EXPECT_EQ(back[2].t, 5'043'124'000);
  for (std::size_t i = 0; i < back.size(); ++i) {
    EXPECT_LE(back[i].t, chunks[i].t);
    EXPECT_GT(back[i].t, chunks[i].t - 1000);
    EXPECT_EQ(back[i].t % 1000, 0);
  }
}

TEST(ChunkCodec, NoDriftAlongALongStreamOfSubMicrosecondGaps) {
  // 10,000 chunks 1,234.5 ns apart: rounding each gap would drift by 0.5 us per chunk.
  std::vector<ChunkStamp> chunks;
  for (int i = 0; i < 10'000; ++i) chunks.push_back(ChunkStamp{kSent + 2'469 * i / 2, 1});
  const std::vector<ChunkStamp> back = round_trip(chunks, kSent);
  ASSERT_EQ(back.size(), chunks.size());
  for (std::size_t i = 0; i < back.size(); ++i) {
    ASSERT_EQ(back[i].t, chunks[i].t / 1000 * 1000) << i;
    if (i > 0) {
      ASSERT_GE(back[i].t, back[i - 1].t) << i;
    }
  }
}

TEST(ChunkCodec, TokenCountsOtherThanOneAreKept) {
  const std::vector<ChunkStamp> chunks{{kSent + 1'000'000, 3},
                                       {kSent + 2'000'000, 1},
                                       {kSent + 2'000'000, 0},
                                       {kSent + 9'000'000, 70000}};
  const std::vector<ChunkStamp> back = round_trip(chunks, kSent);
  ASSERT_EQ(back.size(), 4u);
  for (std::size_t i = 0; i < back.size(); ++i) {
    EXPECT_EQ(back[i].tokens, chunks[i].tokens) << i;
    EXPECT_EQ(back[i].t, chunks[i].t / 1000 * 1000) << i;
  }
}

TEST(ChunkCodec, EmptyChunksAreAnEmptyField) {
  EXPECT_EQ(chunk_stamps_to_field({}, kSent), "");
  EXPECT_TRUE(chunk_stamps_from_field("", kSent).empty());
}

TEST(ChunkCodec, AChunkBeforeSendOrWithoutASendIsKept) {
  // Stamps from another clock (the kernel's) may precede the user-space send stamp.
  EXPECT_EQ(round_trip({{kSent - 7'000, 1}}, kSent)[0].t, kSent / 1000 * 1000 - 7'000);
  EXPECT_EQ(round_trip({{3'000'500, 2}}, core::kNever)[0].t, 3'000'000);
  EXPECT_EQ(round_trip({{0, 1}}, kSent)[0].t, 0);
}

TEST(ChunkCodec, WhatItWritesIsWhatQuantizeKeeps) {
  const std::vector<ChunkStamp> chunks{{kSent + 5'500, 1}, {kSent + 5'400, 2}, {kSent + 4'000, -1}};
  const std::vector<ChunkStamp> kept = quantize_chunk_stamps(chunks);
  const std::vector<ChunkStamp> back = round_trip(chunks, kSent);
  ASSERT_EQ(kept.size(), back.size());
  for (std::size_t i = 0; i < kept.size(); ++i) {
    EXPECT_EQ(kept[i].t, back[i].t) << i;
    EXPECT_EQ(kept[i].tokens, back[i].tokens) << i;
    if (i > 0) {
      EXPECT_GE(back[i].t, back[i - 1].t) << i;  // never decreasing
    }
  }
  EXPECT_EQ(back[2].tokens, 0);
}

TEST(ChunkCodec, KnownBytes) {
  // sent at 0; chunks at 1 ms (1 token) and 2 ms (3 tokens): d = zigzag(1000) = 2000, then a
  // count of 3 and d = 1000. In base 46, least significant first: 2000 = 22 + 43 x 46, digits
  // 'g' (22, more to follow) and 'M' (43, the last); 3 is '%'; 1000 = 34 + 21 x 46, 's' and '7'.
  EXPECT_EQ(chunk_stamps_to_field({{{1'000'000, 1}, {2'000'000, 3}}}, 0), "~gM!%s7");
  // The same chunks in the form written before it (LEB128 varints 4000, 2001 and 3 as base64)
  // read the same.
  for (const char* field : {"~gM!%s7", "oB/RDwM"}) {
    const auto back = chunk_stamps_from_field(field, 0);
    ASSERT_EQ(back.size(), 2u) << field;
    EXPECT_EQ(back[0].t, 1'000'000) << field;
    EXPECT_EQ(back[0].tokens, 1) << field;
    EXPECT_EQ(back[1].t, 2'000'000) << field;
    EXPECT_EQ(back[1].tokens, 3) << field;
  }
}

TEST(ChunkCodec, BadFieldsAreRefusedWithOneLine) {
  struct Case {
    const char* field;
    const char* problem;
  };
  const Case cases[] = {
      {"oB/RDw==", "not a base64 character"},
      {"oB*R", "not a base64 character"},
      {"oB/RD", "not a length base64 can have"},
      {"gA", "cut short in chunk 0"},      // 80: a continuation with nothing after it
      {"oB/RDw", "cut short in chunk 1"},  // 2001's token count is missing
      {"/////////////w", "over 64 bits"},
      {"Ag", "outside 0 to 2^62 ns"},  // zigzag -1 us before a sent of 0
      {"AYCAgIAI", "carries 2147483648 tokens"},
      {"~g", "cut short in chunk 0"},      // a digit with more to follow, and nothing after it
      {"~gM!%", "cut short in chunk 1"},   // a count, and no gap after it
      {"~gM\\", "not one of its digits"},  // JSON's escape is not a digit
      {"~gM\x01", "not one of its digits"},
      {"~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~ ", "over 64 bits"},
      {"~\x22", "not one of its digits"},
      {"~#", "outside 0 to 2^62 ns"},  // zigzag -1 us before a sent of 0
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.field);
    try {
      chunk_stamps_from_field(c.field, 0);
      ADD_FAILURE() << "accepted";
    } catch (const std::runtime_error& e) {
      const std::string message = e.what();
      EXPECT_NE(message.find(c.problem), std::string::npos) << message;
      EXPECT_EQ(message.find('\n'), std::string::npos) << message;
    }
  }
}

TEST(ChunkCodec, StampsPast2To62AreRefused) {
  // A first chunk at 2^62 ns is the last allowed; a gap past it is not.
  const Nanos last = (Nanos{1} << 62) / 1000 * 1000;
  const std::string field = chunk_stamps_to_field({{{last, 1}}}, 0);
  EXPECT_EQ(chunk_stamps_from_field(field, 0)[0].t, last);
  const std::string over = chunk_stamps_to_field({{{last, 1}, {last + 1'000'000, 1}}}, 0);
  EXPECT_THROW(chunk_stamps_from_field(over, 0), std::runtime_error);
}

// The issue's budget: a stream of one-token chunks 1 ms apart costs at most 4 bytes per token.
TEST(ChunkCodec, A256TokenRecordAt1MsItlCostsAtMost4BytesPerToken) {
  const core::RequestRecord r = stream_of(256, 40'000'000, 1'000'000);
  const std::string field = chunk_stamps_to_field(r.chunks, r.sent);
  const std::string line = record_to_jsonl_line(r);
  const double field_per_token = static_cast<double>(field.size()) / 256;
  const double line_per_token = static_cast<double>(line.size()) / 256;
  std::printf("chunks field: %zu bytes, %.2f per token; whole line: %zu bytes, %.2f per token\n",
              field.size(), field_per_token, line.size(), line_per_token);
  // The mark, 3 characters for the first chunk (40 ms after the send), then 2 a gap.
  EXPECT_EQ(field.size(), 1 + 3 + 2 * 255u);
  EXPECT_LE(field_per_token, 4.0);
  // The rest of the line is fixed: its share falls as the stream grows.
  EXPECT_LE(line_per_token, 6.0);
  // With jitter (0.9 to 1.1 ms gaps) the cost stays the same: each gap fits two digits.
  core::RequestRecord jitter = r;
  for (std::size_t i = 1; i < jitter.chunks.size(); ++i) {
    jitter.chunks[i].t = jitter.chunks[i - 1].t + 900'000 + static_cast<Nanos>(i % 7) * 33'333;
  }
  EXPECT_EQ(chunk_stamps_to_field(jitter.chunks, jitter.sent).size(), field.size());
}

}  // namespace
}  // namespace tokenbench::records
