#include "tokenbench/sim/http_session.h"

#include <fmt/format.h>

#include <algorithm>
#include <boost/asio/buffer.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/read.hpp>
#include <chrono>
#include <initializer_list>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

#include "tokenbench/sim/http_fields.h"
#include "tokenbench/sim/http_session_internal.h"
#include "tokenbench/sim/openai_render.h"

namespace tokenbench::sim {
namespace detail {
namespace {

constexpr std::uint32_t kHeaderLimit = 64u << 10;
constexpr std::string_view kPrometheusType = "text/plain; version=0.0.4; charset=utf-8";
// While a request is in progress, pipelined bytes are read ahead (to see a disconnect behind
// them) up to this much; beyond it a disconnect is only noticed at the reply's write.
constexpr std::size_t kReadAheadLimit = 1u << 20;
// A connection closed after an error reply sent before its request was read (a body too large,
// an unsupported coding, a malformed request) first reads and discards what the client is still
// sending, for at most this long, so that closing with unread bytes does not reset the connection
// before the client has read the reply (as nginx's lingering_close).
constexpr auto kLingerTime = std::chrono::seconds(2);
constexpr std::size_t kDiscardBytes = 64u << 10;

void release_if_large(std::string& s) {
  if (s.capacity() > kKeepCapacity) std::string().swap(s);
}

}  // namespace

HttpSession::HttpSession(tcp::socket socket, ServerContext& context, std::size_t loop,
                         LoopTimers& timers)
    : socket_(std::move(socket)),
      ctx_(context),
      loop_(loop),
      timers_(timers),
      timer_(socket_.get_executor()),
      feed_(make_token_feed(context)) {
  error_code ignored;
  socket_.set_option(tcp::no_delay(true), ignored);
  // Stream events are written at once where the socket takes them (write_stream()).
  socket_.non_blocking(true, ignored);
}

void HttpSession::read_request() {
  parser_.emplace();
  parser_->body_limit(ctx_.body_limit);
  parser_->header_limit(kHeaderLimit);
  arm_read_timeout();
  http::async_read_header(socket_, buffer_, *parser_,
                          [self = shared_from_this()](error_code ec, std::size_t) {
                            self->cancel_timer();
                            self->on_header(ec);
                          });
}

void HttpSession::on_header(error_code ec) {
  if (ec) return on_read_error(ec);
  const auto& req = parser_->get();
  // A body in a coding the server cannot undo is refused before it is read (RFC 9112 6.1: an
  // unknown transfer coding is 501; RFC 9110 15.5.16: an unsupported content coding is 415).
  if (const auto te =
          unsupported_coding(req, http::field::transfer_encoding, {"chunked", "identity"});
      !te.empty()) {
    return refuse_unread(501, "invalid_request_error",
                         "Transfer-Encoding '" + te +
                             "' is not supported: send the body with Content-Length or chunked.");
  }
  if (const auto ce = unsupported_coding(req, http::field::content_encoding, {"identity"});
      !ce.empty()) {
    return refuse_unread(
        415, "invalid_request_error",
        "Content-Encoding '" + ce + "' is not supported: send the body uncompressed.");
  }
  const auto expect = req[http::field::expect];
  if (!parser_->is_done() && beast::iequals(expect, "100-continue")) {
    // Clients such as curl wait up to a second for this before sending a large body.
    static constexpr std::string_view kContinue = "HTTP/1.1 100 Continue\r\n\r\n";
    asio::async_write(socket_, asio::buffer(kContinue.data(), kContinue.size()),
                      [self = shared_from_this()](error_code wec, std::size_t) {
                        if (wec) return self->close();
                        self->read_body();
                      });
    return;
  }
  read_body();
}

void HttpSession::read_body() {
  arm_read_timeout();
  http::async_read(socket_, buffer_, *parser_,
                   [self = shared_from_this()](error_code ec, std::size_t) {
                     self->cancel_timer();
                     if (ec) return self->on_read_error(ec);
                     self->on_request();
                   });
}

// A connection that sends no complete request header within the idle timeout (of its accept
// or of the end of its previous response), or no complete body within the timeout after its
// header, is closed.
void HttpSession::arm_read_timeout() {
  const double timeout = ctx_.config.idle_timeout_s;
  if (timeout <= 0) return;
  arm_timer(Clock::now() + seconds_to_duration(timeout), [](HttpSession& s) { s.close(); });
}

void HttpSession::on_read_error(error_code ec) {
  if (ec == http::error::body_limit) {
    // Beast refuses a Content-Length over the limit before reading the body; the header
    // fields are in the message by then.
    const auto length = parser_->get()[http::field::content_length];
    const std::string size = length.empty()
                                 ? std::string("The request body is too large")
                                 : fmt::format("The request body is {} bytes, too large",
                                               std::string_view(length.data(), length.size()));
    return refuse_unread(
        413, "invalid_request_error",
        fmt::format("{}: this server accepts at most {} bytes ({} per token of its maximum "
                    "context length of {} tokens, plus {} for the rest of the JSON, at most {}).",
                    size, ctx_.body_limit, kBodyBytesPerToken, ctx_.config.max_model_len,
                    kBodySlack, kBodyLimitCap));
  }
  parser_.reset();  // drops a partial body
  // Transport errors and a clean end between requests just close; a malformed request gets 400.
  const bool parse_error =
      ec.category() == http::make_error_code(http::error::bad_target).category();
  if (ec == http::error::end_of_stream || !parse_error) return close();
  refuse_unread(400, "invalid_request_error", "The request is not valid HTTP/1.1.");
}

// Answers an error before the request has been read in full, then closes the connection
// (after discarding, for a while, what the client still sends).
void HttpSession::refuse_unread(int status, std::string_view type, std::string_view message) {
  ApiKind api = ApiKind::kChat;
  if (parser_) {
    const auto target = parser_->get().target();
    api = error_api_of(std::string_view(target.data(), target.size()));
  }
  parser_.reset();  // drops a partial body
  keep_alive_ = false;
  linger_ = true;
  reply_json(status, api_error_body(api, status, type, message));
}

RoutedRequest HttpSession::route(const Request& req, const RouterConfig& router) {
  const auto view = [](beast::string_view v) { return std::string_view(v.data(), v.size()); };
  const HttpRequestView request{.method = view(req.method_string()),
                                .target = view(req.target()),
                                .authorization = view(req[http::field::authorization]),
                                .x_api_key = view(req["x-api-key"]),
                                .body = req.body()};
  return route_request(request, router);
}

void HttpSession::on_request() {
  received_ = Clock::now();
  // The request leaves the parser and dies with the reply's start, so that a large body is not
  // kept until the next request.
  Request req = parser_->release();
  parser_.reset();
  keep_alive_ = req.keep_alive();
  if (req.body().size() <= kInlineRouteBytes) {
    RoutedRequest routed = route(req, ctx_.router);
    return on_routed(req, std::move(routed));
  }
  // A large body is checked and parsed on the route pool, off this loop, whose other streams
  // go on meanwhile; the reply starts back here. Nothing else of this session runs until then
  // (no read is pending and no timer armed).
  auto loop = socket_.get_executor();
  asio::post(*ctx_.route_pool, [self = shared_from_this(), loop, req = std::move(req)]() mutable {
    RoutedRequest routed = route(req, self->ctx_.router);
    asio::post(
        loop, [self = std::move(self), req = std::move(req), routed = std::move(routed)]() mutable {
          self->on_routed(req, std::move(routed));
        });
  });
}

void HttpSession::on_routed(const Request& req, RoutedRequest routed) {
  if (auto* err = std::get_if<ErrorReply>(&routed)) return reply_json(err->status, err->body);
  if (const auto* info = std::get_if<InfoEndpoint>(&routed)) {
    switch (*info) {
      case InfoEndpoint::kHealth:
        return reply_json(200, R"({"status":"ok"})");
      case InfoEndpoint::kVersion:
        return reply_json(200, ctx_.version_reply);
      case InfoEndpoint::kModels:
        return reply_json(200, ctx_.models_reply);
      case InfoEndpoint::kResetPrefixCache:
        if (ctx_.engine) ctx_.engine->reset_prefix_cache();
        return reply_json(200, R"({"status":"ok"})");
      case InfoEndpoint::kStartProfile:
      case InfoEndpoint::kStopProfile:
        // A simulated engine has no kernels to trace: accepted, so that a client's --profile is
        // exercised end to end.
        return reply_json(200, R"({"status":"ok"})");
      case InfoEndpoint::kMetrics:
        out_.clear();
        append_response(out_, 200, kPrometheusType, metrics_text(), keep_alive_,
                        ctx_.response_headers);
        return write_out();
    }
  }
  echo_request_id(req["X-Request-Id"]);
  auto& request = std::get<CompletionRequest>(routed);
  ex_.prefill_body.clear();
  if (ctx_.config.role == Role::kDecode && generates_text(request.api)) {
    // What the prefill worker gets: the same path and the body with max_tokens 1, unstreamed.
    const auto target = req.target();
    ex_.prefill_path.assign(target.data(), target.size());
    ex_.prefill_body = prefill_body(req.body());
    const auto auth = req[http::field::authorization];
    ex_.prefill_auth.assign(auth.data(), auth.size());
  }
  start_completion(std::move(request));
}

std::string HttpSession::metrics_text() const {
  std::string text = ctx_.metrics.render();
  if (ctx_.lateness) ctx_.lateness->render(text);
  return text;
}

// A client's X-Request-Id is echoed in the reply's headers and names the completion
// ("chatcmpl-<id>", as vLLM does), so that a client's records join the server's; an id that is
// not a short token of letters, digits and ".:_-" is ignored.
void HttpSession::echo_request_id(beast::string_view value) {
  client_id_.clear();
  echo_header_.clear();
  const std::string_view id(value.data(), value.size());
  if (!usable_request_id(id)) return;
  client_id_.assign(id);
  echo_header_ = "X-Request-Id: " + client_id_ + "\r\n";
}

// An error in the shape of the API of the request in progress.
void HttpSession::reply_error(int status, std::string_view type, std::string_view message,
                              std::string_view extra_headers) {
  reply_json(status, api_error_body(ex_.request.api, status, type, message), extra_headers);
}

void HttpSession::reply_json(int status, std::string_view body, std::string_view extra_headers) {
  out_.clear();
  append_json_response(out_, status, body, keep_alive_, ctx_.response_headers, extra_headers);
  write_out();
}

// Writes out_, then reads the next request or closes. A `limit` writes only the first `limit`
// bytes and then closes (the stream_cut fault on a non-streaming reply).
void HttpSession::write_out(std::size_t limit) {
  const bool cut = limit != std::string::npos;
  asio::async_write(socket_, asio::buffer(out_.data(), std::min(limit, out_.size())),
                    [self = shared_from_this(), cut](error_code ec, std::size_t) {
                      if (ec || cut) return self->close();
                      self->response_done();
                    });
}

void HttpSession::response_done() {
  in_completion_ = false;
  release_if_large(out_);
  release_if_large(head_);
  release_if_large(body_);
  if (buffer_.capacity() > kKeepCapacity) buffer_.shrink_to_fit();
  if (!keep_alive_) return linger_ ? linger_close() : close();
  read_request();
}

// Stops sending, discards what the client still sends until it closes (or kLingerTime), then
// closes.
void HttpSession::linger_close() {
  linger_ = false;
  error_code ignored;
  socket_.shutdown(tcp::socket::shutdown_send, ignored);
  discard_.resize(kDiscardBytes);
  arm_timer(Clock::now() + kLingerTime, [](HttpSession& s) { s.close(); });
  discard();
}

void HttpSession::discard() {
  socket_.async_read_some(asio::buffer(discard_),
                          [self = shared_from_this()](error_code ec, std::size_t) {
                            if (ec) return self->close();  // the client's end, or closed
                            self->discard();
                          });
}

void HttpSession::close() {
  feed_->abandon(ex_.next_token, Clock::now());
  in_completion_ = false;
  error_code ignored;
  timer_.cancel();
  timers_.cancel(*this);
  socket_.shutdown(tcp::socket::shutdown_both, ignored);
  socket_.close(ignored);
}

// A client that goes away mid-request frees its engine resources at once, not at the next
// write: the socket turns readable with nothing to read (EOF). Bytes of a pipelined request
// are read ahead into buffer_ (where the next request's read finds them) and the watch goes on,
// up to kReadAheadLimit. No other read is pending while a request is in progress.
void HttpSession::watch_disconnect() {
  socket_.async_wait(tcp::socket::wait_read,
                     [self = shared_from_this(), serial = serial_](error_code ec) {
                       if (ec || serial != self->serial_ || !self->in_completion_) return;
                       self->on_readable();
                     });
}

void HttpSession::on_readable() {
  error_code ec;
  const std::size_t available = socket_.available(ec);
  if (ec || available == 0) return close();
  const std::size_t room = kReadAheadLimit - std::min(kReadAheadLimit, buffer_.size());
  if (room == 0) return;  // too much read ahead: a disconnect shows at the reply's write
  // Readable with `available` bytes pending: this read does not block.
  const std::size_t n = socket_.read_some(buffer_.prepare(std::min(available, room)), ec);
  if (ec) return close();
  buffer_.commit(n);
  watch_disconnect();
}

// Cancels a pending arm_timer() wait; its handler then does nothing.
void HttpSession::cancel_timer() {
  ++timer_generation_;
  timer_armed_ = false;
  timer_.cancel();
}

}  // namespace detail

void start_http_session(boost::asio::ip::tcp::socket socket, ServerContext& context,
                        std::size_t loop, LoopTimers& timers) {
  std::make_shared<detail::HttpSession>(std::move(socket), context, loop, timers)->read_request();
}

}  // namespace tokenbench::sim
