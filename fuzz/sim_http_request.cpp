// serve-sim's request reading: the bytes of a connection go through Boost.Beast's
// http::request_parser<string_body> with the limits sim/http_session.cpp sets, read in pieces as
// a socket delivers them, pipelined requests one after another; each complete request is routed
// as HttpSession::on_request does (target without query, keep-alive, Expect, Authorization) and a
// completion body goes to sim::parse_completion_request.
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
#include "tokenbench/sim/openai_request.h"

namespace {

namespace beast = boost::beast;
namespace http = beast::http;

// The limits of sim/http_session.cpp (kBodyLimit, kHeaderLimit).
constexpr std::uint64_t kBodyLimit = 64ull << 20;
constexpr std::uint32_t kHeaderLimit = 64u << 10;

std::size_t route(const http::request<http::string_body>& req) {
  std::size_t sum = req.keep_alive() ? 1 : 0;
  std::string_view target(req.target().data(), req.target().size());
  if (const auto q = target.find('?'); q != std::string_view::npos) target = target.substr(0, q);
  sum += beast::iequals(req[http::field::expect], "100-continue") ? 1 : 0;
  sum += req[http::field::authorization].size();
  const bool chat = target == "/v1/chat/completions";
  if ((chat || target == "/v1/completions") && req.method() == http::verb::post) {
    using tokenbench::sim::ApiKind;
    const auto parsed = tokenbench::sim::parse_completion_request(
        chat ? ApiKind::kChat : ApiKind::kCompletions, req.body(), "tiny-llama", 16, 16);
    sum += parsed.index();
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
