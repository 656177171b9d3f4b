#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace tokenbench::client {

/// What a response being read reports, in order: its status line, each header field, the end of
/// the header, then the body's bytes (chunked framing already removed) as they arrive.
class ResponseSink {
 public:
  virtual ~ResponseSink() = default;
  virtual void on_status(int status, int version) = 0;
  virtual void on_field(std::string_view name, std::string_view value) = 0;
  virtual void on_header_end() = 0;
  /// False stops the read: the response is abandoned (the sink has recorded why).
  virtual bool on_body(std::string_view data) = 0;
};

/// Reads one HTTP/1.1 response at a time from the bytes a connection receives: status line,
/// fields, and a body framed by Content-Length, chunked transfer encoding or the end of the
/// connection. Boost.Beast's parser does the parsing; this class only adapts it to a sink.
/// Not thread-safe; one per connection in use.
class Http1Reader {
 public:
  Http1Reader();
  ~Http1Reader();
  Http1Reader(Http1Reader&&) noexcept;
  Http1Reader& operator=(Http1Reader&&) noexcept;

  /// Ready for a new response delivered to `sink`; a header beyond `header_limit` bytes is an
  /// error.
  void reset(ResponseSink* sink, std::uint32_t header_limit);

  enum class Result {
    kMore,     ///< the response goes on: present the unconsumed bytes again with more
    kDone,     ///< the response is complete
    kStopped,  ///< the sink stopped it
    kError,    ///< the bytes are not an HTTP/1.1 response; error() says why
  };
  /// Parses `data`; `consumed` is how many bytes it used (with kMore the rest, an incomplete
  /// header or chunk header, must be presented again, followed by later bytes).
  Result feed(std::string_view data, std::size_t& consumed);
  /// The connection ended: completes a response whose body runs to the end of the connection,
  /// otherwise kError (a cut response).
  Result end_of_stream();

  bool header_done() const;
  /// The connection may carry another request after this complete response.
  bool keep_alive() const;
  /// Why the last kError happened, in words.
  const std::string& error() const { return error_; }
  /// The last kError was an oversized header.
  bool header_too_large() const { return header_too_large_; }

 private:
  class Parser;
  std::unique_ptr<Parser> parser_;
  std::string error_;
  bool header_too_large_ = false;
};

}  // namespace tokenbench::client
