#include "tokenbench/client/http1_reader.h"

#include <boost/asio/buffer.hpp>
#include <boost/beast/http/basic_parser.hpp>
#include <boost/beast/http/error.hpp>
#include <limits>

namespace tokenbench::client {

namespace http = boost::beast::http;
using boost::beast::error_code;

class Http1Reader::Parser final : public http::basic_parser<false> {
 public:
  explicit Parser(ResponseSink* sink) : sink_(sink) {}
  bool stopped = false;

 private:
  void on_request_impl(http::verb, boost::beast::string_view, boost::beast::string_view, int,
                       error_code&) override {}
  void on_response_impl(int code, boost::beast::string_view, int version, error_code&) override {
    sink_->on_status(code, version);
  }
  void on_field_impl(http::field, boost::beast::string_view name, boost::beast::string_view value,
                     error_code&) override {
    sink_->on_field(std::string_view(name.data(), name.size()),
                    std::string_view(value.data(), value.size()));
  }
  void on_header_impl(error_code&) override { sink_->on_header_end(); }
  void on_body_init_impl(const boost::optional<std::uint64_t>&, error_code&) override {}
  std::size_t on_body_impl(boost::beast::string_view body, error_code& ec) override {
    return deliver(body, ec);
  }
  void on_chunk_header_impl(std::uint64_t, boost::beast::string_view, error_code&) override {}
  std::size_t on_chunk_body_impl(std::uint64_t, boost::beast::string_view body,
                                 error_code& ec) override {
    return deliver(body, ec);
  }
  void on_finish_impl(error_code&) override {}

  std::size_t deliver(boost::beast::string_view body, error_code& ec) {
    if (!sink_->on_body(std::string_view(body.data(), body.size()))) {
      stopped = true;
      ec = http::error::end_of_stream;  // any error: the parse stops here
    }
    return body.size();
  }

  ResponseSink* sink_;
};

Http1Reader::Http1Reader() = default;
Http1Reader::~Http1Reader() = default;
Http1Reader::Http1Reader(Http1Reader&&) noexcept = default;
Http1Reader& Http1Reader::operator=(Http1Reader&&) noexcept = default;

void Http1Reader::reset(ResponseSink* sink, std::uint32_t header_limit) {
  parser_ = std::make_unique<Parser>(sink);
  parser_->header_limit(header_limit);
  // The engine bounds replies itself (ReplyLimits). Not boost::none: Boost 1.74 compares a
  // Content-Length with the empty optional and refuses every body.
  parser_->body_limit(std::numeric_limits<std::uint64_t>::max());
  parser_->eager(true);
  error_.clear();
  header_too_large_ = false;
}

Http1Reader::Result Http1Reader::feed(std::string_view data, std::size_t& consumed) {
  consumed = 0;
  while (!parser_->is_done()) {
    if (consumed == data.size()) return Result::kMore;
    error_code ec;
    const std::size_t n =
        parser_->put(boost::asio::const_buffer(data.data() + consumed, data.size() - consumed), ec);
    consumed += n;
    if (parser_->stopped) return Result::kStopped;
    if (ec == http::error::need_more) return Result::kMore;
    if (ec) {
      header_too_large_ = ec == http::error::header_limit;
      error_ = ec.message();
      return Result::kError;
    }
    if (n == 0) return Result::kMore;
  }
  return Result::kDone;
}

Http1Reader::Result Http1Reader::end_of_stream() {
  if (parser_->is_done()) return Result::kDone;
  if (!parser_->got_some()) {
    // Beast would complete an empty message here (it asserts this never happens).
    error_ = "the connection ended before any byte of a reply";
    return Result::kError;
  }
  error_code ec;
  parser_->put_eof(ec);
  if (parser_->stopped) return Result::kStopped;
  if (!ec && parser_->is_done()) return Result::kDone;
  error_ = ec ? ec.message() : "the connection ended before the response did";
  return Result::kError;
}

bool Http1Reader::header_done() const { return parser_ && parser_->is_header_done(); }

bool Http1Reader::keep_alive() const { return parser_ && parser_->keep_alive(); }

}  // namespace tokenbench::client
