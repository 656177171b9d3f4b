#include "tokenbench/client/sse_parser.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "test_files.h"

namespace tokenbench::client {
namespace {

std::vector<std::string> parse_in_pieces(const std::string& bytes,
                                         const std::vector<std::size_t>& cuts) {
  SseParser parser;
  std::vector<std::string> events;
  auto sink = [&](std::string_view e) { events.emplace_back(e); };
  std::size_t prev = 0;
  for (std::size_t cut : cuts) {
    parser.feed(std::string_view(bytes).substr(prev, cut - prev), sink);
    prev = cut;
  }
  parser.feed(std::string_view(bytes).substr(prev), sink);
  return events;
}

std::vector<std::string> parse_whole(const std::string& bytes) {
  return parse_in_pieces(bytes, {});
}

std::string to_crlf(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '\n')
      out += "\r\n";
    else
      out += c;
  }
  return out;
}

TEST(SseParser, LlamaServerChatStreamHasEveryEvent) {
  const auto events = parse_whole(testing::read_fixture("llama-server-chat-usage.sse"));
  ASSERT_EQ(events.size(), 16u);  // role, 12 content, finish, usage, [DONE]
  EXPECT_NE(events[0].find("\"role\":\"assistant\""), std::string::npos);
  EXPECT_NE(events[1].find("\"content\":\".),\""), std::string::npos);
  EXPECT_NE(events[14].find("\"usage\""), std::string::npos);
  EXPECT_EQ(events[15], "[DONE]");
}

TEST(SseParser, EverySplitOffsetGivesTheSameEvents) {
  const std::string bytes = testing::read_fixture("llama-server-chat-usage.sse");
  const auto expected = parse_whole(bytes);
  for (std::size_t cut = 0; cut <= bytes.size(); ++cut) {
    ASSERT_EQ(parse_in_pieces(bytes, {cut}), expected) << "split at byte " << cut;
  }
}

TEST(SseParser, OneByteAtATimeGivesTheSameEvents) {
  for (const char* name : {"llama-server-chat-usage.sse", "llama-server-completions.sse"}) {
    const std::string bytes = testing::read_fixture(name);
    std::vector<std::size_t> cuts;
    for (std::size_t i = 1; i < bytes.size(); ++i) cuts.push_back(i);
    EXPECT_EQ(parse_in_pieces(bytes, cuts), parse_whole(bytes)) << name;
  }
}

TEST(SseParser, CrlfAndCrLineEndsAreEquivalent) {
  const std::string lf = testing::read_fixture("llama-server-completions.sse");
  const std::string crlf = to_crlf(lf);
  std::string cr = lf;
  for (char& c : cr) {
    if (c == '\n') c = '\r';
  }
  const auto expected = parse_whole(lf);
  ASSERT_EQ(expected.size(), 10u);
  EXPECT_EQ(parse_whole(crlf), expected);
  EXPECT_EQ(parse_whole(cr), expected);
  // A CRLF split between its CR and LF must not produce an extra blank line.
  for (std::size_t cut = 0; cut <= crlf.size(); ++cut) {
    ASSERT_EQ(parse_in_pieces(crlf, {cut}), expected) << "split at byte " << cut;
  }
}

TEST(SseParser, CommentsAndOtherFieldsAreSkipped) {
  const auto events = parse_whole(
      ": ping\n\n"
      "event: message\nid: 7\nretry: 100\ndata: {\"a\":1}\n\n"
      ":keep-alive\n\n"
      "data:{\"b\":2}\n\n");
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0], "{\"a\":1}");
  EXPECT_EQ(events[1], "{\"b\":2}");  // "data:" without the space
}

TEST(SseParser, MultiLineDataIsJoinedWithNewlines) {
  const auto events = parse_whole("data: {\"a\":\ndata: 1}\n\ndata:\ndata: x\n\n");
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0], "{\"a\":\n1}");
  EXPECT_EQ(events[1], "\nx");
}

TEST(SseParser, OnlyTheFirstSpaceAfterTheColonIsRemoved) {
  const auto events = parse_whole("data:  two spaces\n\n");
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0], " two spaces");
}

TEST(SseParser, ErrorEventIsDeliveredLikeAnyOther) {
  const auto events = parse_whole(
      "data: {\"choices\":[{\"delta\":{\"content\":\"a\"}}]}\n\n"
      "data: {\"error\":{\"message\":\"boom\",\"code\":500}}\n\n");
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[1], "{\"error\":{\"message\":\"boom\",\"code\":500}}");
}

TEST(SseParser, TruncatedStreamKeepsItsPartialEventUnreported) {
  SseParser parser;
  std::vector<std::string> events;
  parser.feed("data: {\"x\":1}\n\ndata: {\"y\":",
              [&](std::string_view e) { events.emplace_back(e); });
  EXPECT_EQ(events.size(), 1u);
  EXPECT_TRUE(parser.has_partial());
  parser.feed("2}\n", [&](std::string_view e) { events.emplace_back(e); });
  EXPECT_EQ(events.size(), 1u);  // no blank line yet: the event is not complete
  EXPECT_TRUE(parser.has_partial());
  parser.reset();
  EXPECT_FALSE(parser.has_partial());
}

TEST(SseParser, FinishReportsALastEventWithoutItsBlankLine) {
  for (const char* tail : {"data: [DONE]", "data: [DONE]\n", "data: [DONE]\r"}) {
    SseParser parser;
    std::vector<std::string> events;
    auto sink = [&](std::string_view e) { events.emplace_back(e); };
    parser.feed(std::string("data: a\n\n") + tail, sink);
    ASSERT_EQ(events.size(), 1u) << tail;
    parser.finish(sink);
    ASSERT_EQ(events.size(), 2u) << tail;
    EXPECT_EQ(events[1], "[DONE]");
    EXPECT_FALSE(parser.has_partial());
  }
}

TEST(SseParser, EmptyInputAndBlankLinesProduceNothing) {
  EXPECT_TRUE(parse_whole("").empty());
  EXPECT_TRUE(parse_whole("\n\n\r\n\n").empty());
}

}  // namespace
}  // namespace tokenbench::client
