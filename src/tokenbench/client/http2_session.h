#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tokenbench/client/http1_reader.h"

struct nghttp2_session;

namespace tokenbench::client {

/// One request's stream on an Http2Session. The reply's status (version 20), fields, end of
/// headers and DATA reach `sink` as they are parsed; the session's owner learns of the stream's
/// end from Http2Session::take_closed. Owned by the caller, which must keep it alive until the
/// stream is closed or cancelled.
struct Http2Stream {
  ResponseSink* sink = nullptr;
  std::int32_t id = -1;               ///< the stream id; -1 before submit
  const std::string* body = nullptr;  ///< the request body, sent as DATA
  std::size_t body_sent = 0;          ///< how much of it the session has framed
  bool final_headers = false;         ///< a HEADERS block with a final (non-1xx) status ended
  bool remote_ended = false;          ///< the server ended its side (END_STREAM)
  bool stopped = false;               ///< the sink refused DATA: the stream was reset
  bool informational = false;         ///< the HEADERS block being read has a 1xx status
  std::uint32_t error_code = 0;       ///< the close's HTTP/2 error code (0: NO_ERROR)
  /// Set when this client reset the stream itself because of what the server sent ("the server
  /// sent ...; tokenbench reset the stream with PROTOCOL_ERROR"); "" when the server reset it or
  /// the stream ended normally.
  std::string local_error;
};

/// A client HTTP/2 session (libnghttp2) over bytes its owner moves: received bytes go in through
/// receive(), and what the session has to send comes out of pull_output(). It knows nothing of
/// sockets, TLS or clocks, so one class serves h2c with prior knowledge and h2 over TLS, and the
/// owner stamps each read before passing it in. Streams multiplex up to the smaller of the local
/// limit and the server's SETTINGS_MAX_CONCURRENT_STREAMS. Windows are 2^30-1 bytes for each
/// stream and for the connection (h2load's defaults), so flow control never paces a stream.
/// Not thread-safe.
class Http2Session {
 public:
  struct Header {
    std::string_view name;  ///< lower case, as HTTP/2 requires
    std::string_view value;
  };

  /// `max_streams`: the most streams this client keeps open at once on the session.
  explicit Http2Session(std::uint32_t max_streams);
  ~Http2Session();
  Http2Session(const Http2Session&) = delete;
  Http2Session& operator=(const Http2Session&) = delete;

  /// Opens `stream` with a request of `headers` (pseudo-headers first) and `body` as its DATA;
  /// false with `error` set when the session refuses it.
  bool submit(Http2Stream& stream, const std::vector<Header>& headers, const std::string& body,
              std::string& error);
  /// Parses received bytes, calling the streams' sinks. False on a connection error (error()
  /// says which): the connection must close and its open streams fail.
  bool receive(std::string_view bytes);
  /// Appends the bytes the session has to send (preface, settings, requests, acknowledgements,
  /// window updates) to `out`. False on a fatal error.
  bool pull_output(std::string& out);
  /// Abandons `stream`: RST_STREAM CANCEL goes out with the next output; its sink hears nothing
  /// more, and it is not reported closed.
  void cancel(Http2Stream& stream);
  /// Moves the streams closed since the last call into `out` (emptied first), each with
  /// remote_ended, stopped and error_code set.
  void take_closed(std::vector<Http2Stream*>& out);
  /// A stream the server refused (REFUSED_STREAM: it came after a GOAWAY's last stream, or over
  /// the server's limit) never reached the application and may be sent again elsewhere.
  static bool refused(const Http2Stream& stream);
  /// An HTTP/2 error code's name ("PROTOCOL_ERROR", ...).
  static std::string error_name(std::uint32_t error_code);

  /// Streams open now (submitted and not yet closed or cancelled).
  std::size_t open_streams() const { return open_; }
  /// Whether another stream may open: below both limits and no GOAWAY received.
  bool can_open() const;
  /// Nothing more will be read or sent: the server said GOAWAY and every stream ended, or a
  /// fatal error happened.
  bool finished() const;
  /// What libnghttp2 last found wrong in the server's bytes (a connection or a stream error), or
  /// why the session failed; "" when nothing. take_error() also clears it.
  const std::string& error() const { return error_; }
  std::string take_error() { return std::exchange(error_, std::string()); }
  /// The server answered the preface in HTTP/1.x (its bytes begin "HTTP/1."): it does not speak
  /// HTTP/2 there. receive() returned false.
  bool http1_answer() const { return http1_answer_; }
  /// The server's GOAWAY with an error code, as a message ("" when none, or NO_ERROR).
  const std::string& goaway_error() const { return goaway_error_; }
  /// Set when this client closed the connection (its own GOAWAY with an error code) because of
  /// what the server sent: "the server sent ...; tokenbench closed the connection with
  /// COMPRESSION_ERROR". "" when it did not.
  const std::string& local_close() const { return local_close_; }
  /// What the server sent that made this client close the connection or reset a stream with
  /// `error_code`, in words: from libnghttp2's `reason` (a GOAWAY's debug data or its error
  /// message, may be "") and the type of the invalid frame (`frame_type`, -1 when unknown).
  static std::string describe_violation(std::uint32_t error_code, std::string_view reason,
                                        int frame_type);

 private:
  friend struct Http2Callbacks;  // nghttp2's callbacks (http2_session.cpp)

  nghttp2_session* session_ = nullptr;
  std::uint32_t max_streams_ = 1;
  std::size_t open_ = 0;
  bool goaway_ = false;
  bool http1_answer_ = false;
  std::string head_;  // the first 7 bytes received (to tell an HTTP/1.x answer)
  std::string error_;
  std::string goaway_error_;
  std::string local_close_;
  std::string reason_;  // libnghttp2's words for the last thing it refused ("" when none)
  int bad_frame_ = -1;  // the type of the last invalid frame received (-1: none)
  std::vector<Http2Stream*> closed_;
};

}  // namespace tokenbench::client
