// The native transport's response reader: framing by chunks, by length and by the end of the
// connection, in pieces of any size; broken replies are errors, not hangs.

#include "tokenbench/client/http1_reader.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace tokenbench::client {
namespace {

struct Collect final : ResponseSink {
  int status = 0;
  std::vector<std::string> fields;
  bool header_end = false;
  std::string body;
  std::size_t stop_after = std::string::npos;
  void on_status(int s, int) override { status = s; }
  void on_field(std::string_view n, std::string_view v) override {
    fields.push_back(std::string(n) + "=" + std::string(v));
  }
  void on_header_end() override { header_end = true; }
  bool on_body(std::string_view d) override {
    body.append(d);
    return body.size() < stop_after;
  }
};

// Feeds `reply` in pieces of `step` bytes, keeping what the reader did not consume as a
// connection would; returns the last result.
Http1Reader::Result feed_in_steps(Http1Reader& reader, const std::string& reply, std::size_t step) {
  std::string pending;
  Http1Reader::Result result = Http1Reader::Result::kMore;
  for (std::size_t at = 0; at < reply.size(); at += step) {
    pending += reply.substr(at, step);
    std::size_t consumed = 0;
    result = reader.feed(pending, consumed);
    pending.erase(0, consumed);
    if (result != Http1Reader::Result::kMore) return result;
  }
  return result;
}

const std::string kChunked =
    "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"
    "f\r\ndata: {\"a\":1}\n\n\r\n"
    "F;ext=1\r\ndata: {\"b\":2}\n\n\r\n"
    "0\r\n\r\n";

TEST(Http1Reader, ChunkedBodyInPiecesOfEverySize) {
  for (std::size_t step = 1; step <= kChunked.size(); ++step) {
    Collect sink;
    Http1Reader reader;
    reader.reset(&sink, 8192);
    ASSERT_EQ(feed_in_steps(reader, kChunked, step), Http1Reader::Result::kDone) << step;
    EXPECT_EQ(sink.status, 200);
    EXPECT_TRUE(sink.header_end);
    EXPECT_EQ(sink.body, "data: {\"a\":1}\n\ndata: {\"b\":2}\n\n") << step;
    EXPECT_TRUE(reader.keep_alive());
    ASSERT_EQ(sink.fields.size(), 2u);
    EXPECT_EQ(sink.fields[0], "Content-Type=text/event-stream");
  }
}

TEST(Http1Reader, ContentLengthAndConnectionClose) {
  Collect sink;
  Http1Reader reader;
  reader.reset(&sink, 8192);
  const std::string reply =
      "HTTP/1.1 429 Too Many\r\nConnection: close\r\nContent-Length: 5\r\n\r\nslow!";
  EXPECT_EQ(feed_in_steps(reader, reply, 7), Http1Reader::Result::kDone) << reader.error();
  EXPECT_EQ(sink.status, 429);
  EXPECT_EQ(sink.body, "slow!");
  EXPECT_FALSE(reader.keep_alive());
}

TEST(Http1Reader, BodyToTheEndOfTheConnection) {
  Collect sink;
  Http1Reader reader;
  reader.reset(&sink, 8192);
  const std::string reply = "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\ndata: x\n\n";
  EXPECT_EQ(feed_in_steps(reader, reply, 4), Http1Reader::Result::kMore);
  EXPECT_EQ(reader.end_of_stream(), Http1Reader::Result::kDone);
  EXPECT_EQ(sink.body, "data: x\n\n");
}

TEST(Http1Reader, CutChunkedBodyIsAnErrorAtTheEnd) {
  Collect sink;
  Http1Reader reader;
  reader.reset(&sink, 8192);
  const std::string cut = kChunked.substr(0, kChunked.find("F;ext"));
  EXPECT_EQ(feed_in_steps(reader, cut, 9), Http1Reader::Result::kMore);
  EXPECT_EQ(reader.end_of_stream(), Http1Reader::Result::kError);
  EXPECT_FALSE(reader.error().empty());
  EXPECT_EQ(sink.body, "data: {\"a\":1}\n\n");  // what arrived was delivered
}

TEST(Http1Reader, GarbageAndOversizedHeadersAreErrors) {
  Collect sink;
  Http1Reader reader;
  reader.reset(&sink, 8192);
  std::size_t consumed = 0;
  EXPECT_EQ(reader.feed("SSH-2.0-OpenSSH_9.2\r\n\r\n", consumed), Http1Reader::Result::kError);
  EXPECT_FALSE(reader.header_too_large());

  reader.reset(&sink, 64);
  const std::string big = "HTTP/1.1 200 OK\r\nX-Big: " + std::string(200, 'a') + "\r\n\r\n";
  EXPECT_EQ(reader.feed(big, consumed), Http1Reader::Result::kError);
  EXPECT_TRUE(reader.header_too_large());
}

TEST(Http1Reader, TheSinkCanStopTheRead) {
  Collect sink;
  sink.stop_after = 3;
  Http1Reader reader;
  reader.reset(&sink, 8192);
  EXPECT_EQ(feed_in_steps(reader, kChunked, kChunked.size()), Http1Reader::Result::kStopped);
}

}  // namespace
}  // namespace tokenbench::client
