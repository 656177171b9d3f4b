// HTTP/2 frames that break the protocol, sent raw by a hostile h2c server: libnghttp2 answers
// them with this client's own GOAWAY or RST_STREAM, and the record says so (class protocol,
// "the server sent ...; tokenbench closed the connection with COMPRESSION_ERROR"), never that
// the server ended the connection or reset the stream. (An HTTP/1.1 answer to the preface:
// http2_test.cpp, Http2.AnHttp1ReplyIsNotHttp2.)

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "fake_server.h"
#include "run_engine.h"
#include "tokenbench/client/http2_session.h"

namespace tokenbench::client {
namespace {

using namespace std::chrono_literals;
using testing::FakeServer;
using testing::Piece;

// One HTTP/2 frame: its 9-byte header (`length` when given, else the payload's) and payload.
std::string frame(std::uint8_t type, std::uint8_t flags, std::uint32_t stream,
                  const std::string& payload, std::int64_t length = -1) {
  const auto n = static_cast<std::uint32_t>(length < 0 ? payload.size() : length);
  std::string f;
  f += static_cast<char>((n >> 16) & 0xff);
  f += static_cast<char>((n >> 8) & 0xff);
  f += static_cast<char>(n & 0xff);
  f += static_cast<char>(type);
  f += static_cast<char>(flags);
  for (int shift = 24; shift >= 0; shift -= 8) f += static_cast<char>((stream >> shift) & 0xff);
  return f + payload;
}

constexpr std::uint8_t kData = 0, kHeaders = 1, kSettings = 4, kPushPromise = 5, kWindowUpdate = 8;
constexpr std::uint8_t kEndStream = 0x1, kAck = 0x1, kEndHeaders = 0x4, kPadded = 0x8;

// The server's SETTINGS (none) and its acknowledgement of the client's.
std::string server_start() { return frame(kSettings, 0, 0, "") + frame(kSettings, kAck, 0, ""); }
// Stream 1's response headers: ":status: 200" (HPACK static index 8).
std::string status_200() { return frame(kHeaders, kEndHeaders, 1, "\x88"); }

struct Violation {
  const char* name;
  std::string frames;  // after server_start()
  const char* what;    // in the message: what the server sent
  const char* action;  // in the message: what this client did
};

void PrintTo(const Violation& v, std::ostream* os) { *os << v.name; }

std::vector<Violation> violations() {
  return {
      // Indexed field 255: beyond the static table, and the dynamic table is empty.
      {"BadHpack", frame(kHeaders, kEndHeaders, 1, std::string("\xff\x80\x01", 3)),
       "a header block that does not decode (bad HPACK)",
       "closed the connection with COMPRESSION_ERROR"},
      // Promises stream 2 (":method: GET"); the client's SETTINGS disable push.
      {"PushPromise", frame(kPushPromise, kEndHeaders, 1, std::string("\x00\x00\x00\x02\x82", 5)),
       "a PUSH_PROMISE, though tokenbench disables server push",
       "closed the connection with PROTOCOL_ERROR"},
      // Response headers on stream 3, which the client never opened.
      {"UnopenedStream", frame(kHeaders, kEndHeaders | kEndStream, 3, "\x88"),
       "a frame on a stream tokenbench never opened", "closed the connection with PROTOCOL_ERROR"},
      // DATA whose pad length (10) is more than its payload holds.
      {"BadPadding",
       status_200() + frame(kData, kPadded, 1,
                            "\x0a"
                            "ab"),
       "a frame with bad padding", "closed the connection with PROTOCOL_ERROR"},
      // A DATA frame of 20000 bytes: over the 16384 the client allows.
      {"OversizedFrame", status_200() + frame(kData, 0, 1, std::string(100, 'x'), 20000),
       "a frame larger than the 16384-byte SETTINGS_MAX_FRAME_SIZE",
       "closed the connection with FRAME_SIZE_ERROR"},
      // A window update that takes the connection's send window past 2^31-1.
      {"FlowControl", frame(kWindowUpdate, 0, 0, std::string("\x7f\xff\xff\xff", 4)),
       "more than HTTP/2 flow control allows", "closed the connection with FLOW_CONTROL_ERROR"},
      // A header name in upper case ("A: b", a literal without indexing): a stream error.
      {"UpperCaseHeader",
       frame(kHeaders, kEndHeaders, 1,
             std::string("\x88\x00\x01"
                         "A"
                         "\x01"
                         "b",
                         6)),
       "a HEADERS frame that breaks HTTP/2", "reset the stream with PROTOCOL_ERROR"},
  };
}

class Http2Violation : public ::testing::TestWithParam<Violation> {};

// The session alone: the server's bytes in, this client's GOAWAY or RST_STREAM out, and the
// words for what happened.
TEST_P(Http2Violation, TheSessionNamesWhatTheServerSentAndWhatItDid) {
  const Violation& v = GetParam();
  Http2Session session(10);
  Http2Stream stream;
  struct : ResponseSink {
    void on_status(int, int) override {}
    void on_field(std::string_view, std::string_view) override {}
    void on_header_end() override {}
    bool on_body(std::string_view) override { return true; }
  } sink;
  stream.sink = &sink;
  const std::string body = "{}";
  std::string error;
  ASSERT_TRUE(session.submit(stream,
                             {{":method", "POST"},
                              {":scheme", "http"},
                              {":authority", "127.0.0.1"},
                              {":path", "/v1/chat/completions"}},
                             body, error))
      << error;
  std::string out;
  ASSERT_TRUE(session.pull_output(out));
  session.receive(server_start() + v.frames);
  out.clear();
  session.pull_output(out);
  std::vector<Http2Stream*> closed;
  session.take_closed(closed);
  const std::string said = !stream.local_error.empty() ? stream.local_error : session.local_close();
  EXPECT_NE(said.find(std::string("the server sent ") + v.what), std::string::npos) << said;
  EXPECT_NE(said.find(std::string("; tokenbench ") + v.action), std::string::npos) << said;
  EXPECT_TRUE(session.goaway_error().empty());  // the server sent no GOAWAY
}

// Through the engine against a raw h2c server: the record is a protocol failure that names both.
TEST_P(Http2Violation, TheRecordBlamesTheFramesNotAServerClose) {
  const Violation& v = GetParam();
  // The pause keeps the connection open while the client reads and answers the frames.
  FakeServer server({{server_start() + v.frames, 500ms}});
  client::EngineConfig config;
  config.endpoints = {{server.url() + "/v1/chat/completions", {}}};
  config.http2 = true;
  config.timeout_s = 10;
  const auto records = tokenbench::testing::run_engine(config, 1);
  ASSERT_EQ(records.size(), 1u);
  const core::RequestRecord& r = records[0];
  EXPECT_EQ(r.error, core::ErrorClass::kProtocol) << r.error_message;
  EXPECT_NE(r.error_message.find(std::string("the server sent ") + v.what), std::string::npos)
      << r.error_message;
  EXPECT_NE(r.error_message.find("; tokenbench "), std::string::npos) << r.error_message;
  EXPECT_EQ(r.error_message.find("the server ended"), std::string::npos) << r.error_message;
  EXPECT_EQ(r.error_message.find("the server reset"), std::string::npos) << r.error_message;
}

INSTANTIATE_TEST_SUITE_P(HostileFrames, Http2Violation, ::testing::ValuesIn(violations()),
                         [](const auto& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace tokenbench::client
