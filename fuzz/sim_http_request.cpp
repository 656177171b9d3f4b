// serve-sim's request reading: the bytes of a connection go through Boost.Beast's
// http::request_parser<string_body> with the limits sim/http_session.cpp sets, read in pieces as
// a socket delivers them, pipelined requests one after another; each complete request is routed
// as HttpSession does: the coding checks of sim/http_fields.h, then sim::route_request (path,
// method, API key, each API's request parser, the context length).
//
// Input: one byte choosing how the rest is split into reads, then the connection's bytes.

#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/string.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/string_body.hpp>
#include <cstring>
#include <optional>
#include <variant>

#include "fuzz_support.h"
#include "tokenbench/sim/http_fields.h"
#include "tokenbench/sim/router.h"

namespace {

namespace beast = boost::beast;
namespace http = beast::http;

// The limits of sim/http_session.cpp (kBodyLimit, kHeaderLimit).
constexpr std::uint64_t kBodyLimit = 64ull << 20;
constexpr std::uint32_t kHeaderLimit = 64u << 10;

// Routes a complete request as HttpSession::on_header and on_request do: the coding checks, then
// sim::route_request, once without an API key (so that bodies reach their parsers) and once
// with one.
std::size_t route(const http::request<http::string_body>& req) {
  using namespace tokenbench::sim;
  std::size_t sum = req.keep_alive() ? 1 : 0;
  sum += beast::iequals(req[http::field::expect], "100-continue") ? 1 : 0;
  sum += unsupported_coding(req, http::field::transfer_encoding, {"chunked", "identity"}).size();
  sum += unsupported_coding(req, http::field::content_encoding, {"identity"}).size();
  sum += usable_request_id(std::string_view(req["X-Request-Id"].data(), req["X-Request-Id"].size()))
             ? 1
             : 0;
  const auto view = [](beast::string_view v) { return std::string_view(v.data(), v.size()); };
  const HttpRequestView request{.method = view(req.method_string()),
                                .target = view(req.target()),
                                .authorization = view(req[http::field::authorization]),
                                .x_api_key = view(req["x-api-key"]),
                                .body = req.body()};
  for (const std::string_view key : {std::string_view(), std::string_view("k")}) {
    const RouterConfig config{.model = "tiny-llama",
                              .default_max_tokens = 16,
                              .hash_block_size = 16,
                              .context_limit = 4096,
                              .max_body_values = request_value_limit(4096),
                              .api_key = key};
    const RoutedRequest routed = route_request(request, config);
    sum += routed.index();
    if (const auto* error = std::get_if<ErrorReply>(&routed)) {
      if (error->status < 400 || error->status > 599 || error->body.empty()) {
        tokenbench::fuzz::fail("an error reply without an error status and body");
      }
      sum += error->body.size();
    }
  }
  return sum;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  tokenbench::fuzz::Splitter splitter(data[0]);
  std::string_view input = tokenbench::fuzz::as_view(data + 1, size - 1);
  beast::flat_buffer buffer;
  std::optional<http::request_parser<http::string_body>> parser;
  volatile std::size_t sink = 0;
  auto fresh_parser = [&] {
    parser.emplace();
    parser->body_limit(kBodyLimit);
    parser->header_limit(kHeaderLimit);
  };
  fresh_parser();
  bool eof = false;
  while (true) {
    beast::error_code ec;
    if (buffer.size() > 0) {
      const std::size_t used = parser->put(buffer.data(), ec);
      buffer.consume(used);
    } else {
      ec = http::error::need_more;
    }
    if (ec == http::error::need_more) {
      if (input.empty()) {
        // A connection closed between requests is a clean end (end_of_stream in the session).
        if (eof || !parser->got_some()) break;
        parser->put_eof(ec);
        eof = true;
        if (ec || !parser->is_done()) break;
      } else {
        const std::size_t n = std::min(splitter.next(), input.size());
        const auto room = buffer.prepare(n);
        std::memcpy(room.data(), input.data(), n);
        buffer.commit(n);
        input.remove_prefix(n);
        continue;
      }
    } else if (ec) {
      break;  // serve-sim answers 400 or 413 and closes
    }
    if (parser->is_done()) {
      const auto req = parser->release();
      sink = sink + route(req);
      if (!req.keep_alive() || eof) break;
      fresh_parser();
    }
  }
  return 0;
}
