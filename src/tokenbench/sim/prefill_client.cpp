#include "tokenbench/sim/prefill_client.h"

#include <fmt/format.h>

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "tokenbench/core/json_parse.h"

namespace tokenbench::sim {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

}  // namespace

PrefillTarget parse_prefill_url(std::string_view url) {
  constexpr std::string_view kScheme = "http://";
  const auto bad = [&](std::string_view why) {
    return std::invalid_argument("--prefill-url '" + std::string(url) + "': " + std::string(why) +
                                 " (expected http://HOST[:PORT][/PREFIX])");
  };
  if (!url.starts_with(kScheme)) throw bad("only plain http:// is supported");
  PrefillTarget t;
  t.url = std::string(url);
  std::string_view rest = url.substr(kScheme.size());
  const auto slash = rest.find('/');
  std::string_view authority = rest.substr(0, slash);
  if (slash != std::string_view::npos) t.prefix = std::string(rest.substr(slash));
  while (!t.prefix.empty() && t.prefix.back() == '/') t.prefix.pop_back();
  std::string_view port;
  if (authority.starts_with('[')) {  // an IPv6 literal
    const auto close = authority.find(']');
    if (close == std::string_view::npos) throw bad("unclosed '['");
    t.host = std::string(authority.substr(1, close - 1));
    const std::string_view after = authority.substr(close + 1);
    if (!after.empty() && !after.starts_with(':')) throw bad("junk after the host");
    if (!after.empty()) port = after.substr(1);
  } else {
    const auto colon = authority.rfind(':');
    t.host = std::string(authority.substr(0, colon));
    if (colon != std::string_view::npos) port = authority.substr(colon + 1);
  }
  if (t.host.empty()) throw bad("no host");
  if (port.empty()) port = "80";
  for (const char c : port) {
    if (c < '0' || c > '9') throw bad("the port is not a number");
  }
  t.port = std::string(port);
  return t;
}

std::string prefill_body(std::string_view body) {
  nlohmann::json j = core::parse_json_or_discarded(body);
  if (j.is_discarded() || !j.is_object()) return std::string(body);  // the router took it
  j["max_tokens"] = 1;
  if (j.contains("max_completion_tokens")) j["max_completion_tokens"] = 1;
  j.erase("min_tokens");  // a client's min_tokens (with ignore_eos) would exceed 1
  j["stream"] = false;
  j.erase("stream_options");
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

PrefillResult call_prefill(const PrefillTarget& target, std::string_view path,
                           std::string_view body, std::string_view authorization,
                           std::chrono::milliseconds timeout, const std::atomic<bool>& stopping) {
  asio::io_context ioc;
  beast::tcp_stream stream(ioc);
  beast::flat_buffer buffer;
  http::request<http::string_body> req{http::verb::post, target.prefix + std::string(path), 11};
  req.set(http::field::host, target.host + ":" + target.port);
  req.set(http::field::content_type, "application/json");
  if (!authorization.empty()) req.set(http::field::authorization, std::string(authorization));
  req.keep_alive(false);
  req.body() = std::string(body);
  req.prepare_payload();
  http::response<http::string_body> res;
  boost::system::error_code result = asio::error::would_block;
  bool done = false;
  const auto finish = [&](boost::system::error_code ec) {
    result = ec;
    done = true;
  };

  tcp::resolver resolver(ioc);
  boost::system::error_code ec;
  const auto endpoints = resolver.resolve(target.host, target.port, ec);
  if (ec) {
    return {false, fmt::format("prefill worker {}: cannot resolve: {}", target.url, ec.message())};
  }
  stream.expires_after(timeout);
  stream.async_connect(endpoints, [&](boost::system::error_code cec, const tcp::endpoint&) {
    if (cec) return finish(cec);
    http::async_write(stream, req, [&](boost::system::error_code wec, std::size_t) {
      if (wec) return finish(wec);
      http::async_read(stream, buffer, res,
                       [&](boost::system::error_code rec, std::size_t) { finish(rec); });
    });
  });
  // Run in slices, so that a server stopping does not wait for a slow prefill worker.
  while (!done && !ioc.stopped()) {
    ioc.run_for(std::chrono::milliseconds(100));
    if (!done && stopping.load(std::memory_order_relaxed)) {
      stream.cancel();
      ioc.run_for(std::chrono::milliseconds(100));
      if (!done) return {false, fmt::format("prefill worker {}: server stopping", target.url)};
    }
  }
  if (result) {
    return {false, fmt::format("prefill worker {} failed: {}", target.url, result.message())};
  }
  if (res.result_int() != 200) {
    return {false, fmt::format("prefill worker {} answered {}", target.url, res.result_int())};
  }
  return {true, {}};
}

}  // namespace tokenbench::sim
