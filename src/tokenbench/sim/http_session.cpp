#include "tokenbench/sim/http_session.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <boost/asio/buffer.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/buffers_suffix.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/string.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

#include "tokenbench/core/clock.h"
#include "tokenbench/sim/exchange.h"
#include "tokenbench/sim/generation_plan.h"
#include "tokenbench/sim/http_fields.h"
#include "tokenbench/sim/openai_render.h"
#include "tokenbench/sim/reply_renderer.h"
#include "tokenbench/sim/router.h"
#include "tokenbench/sim/token_feed.h"

namespace tokenbench::sim {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;
using core::Clock;
using error_code = boost::system::error_code;

constexpr std::uint32_t kHeaderLimit = 64u << 10;
// Tokens due at the same moment are coalesced into one write of at most about this many bytes.
constexpr std::size_t kMaxBatchBytes = 64u << 10;
constexpr std::string_view kCrlf = "\r\n";
constexpr std::string_view kLastChunk = "0\r\n\r\n";
constexpr std::string_view kRetryAfter = "Retry-After: 1\r\n";
constexpr std::string_view kPrometheusType = "text/plain; version=0.0.4; charset=utf-8";
// Per-connection buffers grown past this by one large request or response are freed once it is
// done, so that an idle connection holds little memory.
constexpr std::size_t kKeepCapacity = 1u << 20;
// While a request is in progress, pipelined bytes are read ahead (to see a disconnect behind
// them) up to this much; beyond it a disconnect is only noticed at the reply's write.
constexpr std::size_t kReadAheadLimit = 1u << 20;
// A connection closed after an error reply sent before its request was read (a body too large,
// an unsupported coding, a malformed request) first reads and discards what the client is still
// sending, for at most this long, so that closing with unread bytes does not reset the connection
// before the client has read the reply (as nginx's lingering_close).
constexpr auto kLingerTime = std::chrono::seconds(2);
constexpr std::size_t kDiscardBytes = 64u << 10;

Clock::duration seconds_to_duration(double s) {
  return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(s));
}

void release_if_large(std::string& s) {
  if (s.capacity() > kKeepCapacity) std::string().swap(s);
}

using Request = http::request<http::string_body>;

class HttpSession : public EngineSink,
                    public TimedTask,
                    public std::enable_shared_from_this<HttpSession> {
 public:
  HttpSession(tcp::socket socket, ServerContext& context, std::size_t loop, LoopTimers& timers)
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

  void read_request() {
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

 private:
  // ---- Reading and routing ----

  void on_header(error_code ec) {
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

  void read_body() {
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
  void arm_read_timeout() {
    const double timeout = ctx_.config.idle_timeout_s;
    if (timeout <= 0) return;
    arm_timer(Clock::now() + seconds_to_duration(timeout), [](HttpSession& s) { s.close(); });
  }

  void on_read_error(error_code ec) {
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
  void refuse_unread(int status, std::string_view type, std::string_view message) {
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

  static RoutedRequest route(const Request& req, const RouterConfig& router) {
    const auto view = [](beast::string_view v) { return std::string_view(v.data(), v.size()); };
    const HttpRequestView request{.method = view(req.method_string()),
                                  .target = view(req.target()),
                                  .authorization = view(req[http::field::authorization]),
                                  .x_api_key = view(req["x-api-key"]),
                                  .body = req.body()};
    return route_request(request, router);
  }

  void on_request() {
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
      asio::post(loop, [self = std::move(self), req = std::move(req),
                        routed = std::move(routed)]() mutable {
        self->on_routed(req, std::move(routed));
      });
    });
  }

  void on_routed(const Request& req, RoutedRequest routed) {
    if (auto* err = std::get_if<ErrorReply>(&routed)) return reply_json(err->status, err->body);
    if (const auto* info = std::get_if<InfoEndpoint>(&routed)) {
      switch (*info) {
        case InfoEndpoint::kHealth:
          return reply_json(200, R"({"status":"ok"})");
        case InfoEndpoint::kVersion:
          return reply_json(200, version_body());
        case InfoEndpoint::kModels:
          return reply_json(200, ctx_.models_reply);
        case InfoEndpoint::kMetrics:
          out_.clear();
          append_response(out_, 200, kPrometheusType, metrics_text(), keep_alive_,
                          ctx_.response_headers);
          return write_out();
      }
    }
    echo_request_id(req["X-Request-Id"]);
    start_completion(std::move(std::get<CompletionRequest>(routed)));
  }

  std::string metrics_text() const {
    std::string text = ctx_.metrics.render();
    if (ctx_.lateness) ctx_.lateness->render(text);
    return text;
  }

  // A client's X-Request-Id is echoed in the reply's headers and names the completion
  // ("chatcmpl-<id>", as vLLM does), so that a client's records join the server's; an id that is
  // not a short token of letters, digits and ".:_-" is ignored.
  void echo_request_id(beast::string_view value) {
    client_id_.clear();
    echo_header_.clear();
    const std::string_view id(value.data(), value.size());
    if (!usable_request_id(id)) return;
    client_id_.assign(id);
    echo_header_ = "X-Request-Id: " + client_id_ + "\r\n";
  }

  // ---- Whole replies (errors, models, health, non-streaming completions) ----

  // An error in the shape of the API of the request in progress.
  void reply_error(int status, std::string_view type, std::string_view message,
                   std::string_view extra_headers = {}) {
    reply_json(status, api_error_body(ex_.request.api, status, type, message), extra_headers);
  }

  void reply_json(int status, std::string_view body, std::string_view extra_headers = {}) {
    out_.clear();
    append_json_response(out_, status, body, keep_alive_, ctx_.response_headers, extra_headers);
    write_out();
  }

  // Writes out_, then reads the next request or closes. A `limit` writes only the first `limit`
  // bytes and then closes (the stream_cut fault on a non-streaming reply).
  void write_out(std::size_t limit = std::string::npos) {
    const bool cut = limit != std::string::npos;
    asio::async_write(socket_, asio::buffer(out_.data(), std::min(limit, out_.size())),
                      [self = shared_from_this(), cut](error_code ec, std::size_t) {
                        if (ec || cut) return self->close();
                        self->response_done();
                      });
  }

  void response_done() {
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
  void linger_close() {
    linger_ = false;
    error_code ignored;
    socket_.shutdown(tcp::socket::shutdown_send, ignored);
    discard_.resize(kDiscardBytes);
    arm_timer(Clock::now() + kLingerTime, [](HttpSession& s) { s.close(); });
    discard();
  }

  void discard() {
    socket_.async_read_some(asio::buffer(discard_),
                            [self = shared_from_this()](error_code ec, std::size_t) {
                              if (ec) return self->close();  // the client's end, or closed
                              self->discard();
                            });
  }

  void close() {
    feed_->abandon(ex_.next_token, Clock::now());
    in_completion_ = false;
    error_code ignored;
    timer_.cancel();
    timers_.cancel(*this);
    socket_.shutdown(tcp::socket::shutdown_both, ignored);
    socket_.close(ignored);
  }

  // ---- Generation requests ----

  void start_completion(CompletionRequest&& request) {
    Exchange& ex = ex_;
    ex.request = std::move(request);
    ex.arrival = ctx_.next_arrival.fetch_add(1, std::memory_order_relaxed);
    ++serial_;
    in_completion_ = true;
    ctx_.metrics.count_request(ex.request.api, ex.request.images, ex.request.image_tokens);
    ex.fault = ctx_.faults.decide(ex.arrival);
    switch (ex.fault.kind) {
      case FaultKind::kHttp429:
        return reply_error(429, "rate_limit_error",
                           "Rate limit exceeded (simulated http_429 fault).", kRetryAfter);
      case FaultKind::kHttp500:
        return reply_error(500, "server_error",
                           "Internal server error (simulated http_500 fault).");
      case FaultKind::kHttp503:
        return reply_error(503, "server_error", "Service unavailable (simulated http_503 fault).");
      default:
        break;
    }
    ex.plan = plan_generation(ex.request, ctx_.config.seed, ex.arrival, ctx_.config.eos);
    ex.fault_at = ex.plan.output_tokens / 2;
    ex.fault_done = false;
    ex.id.clear();
    if (client_id_.empty()) {
      append_response_id(ex.id, ex.request.api, ctx_.config.seed, ex.arrival);
    } else {
      ex.id = std::string(response_id_prefix(ex.request.api)) + client_id_;
    }
    ex.identity = {ex.request.api, ex.id, static_cast<std::int64_t>(std::time(nullptr)),
                   ctx_.model_json};
    ex.shape = ReplyShape{
        .seed = ctx_.config.seed,
        .arrival = ex.arrival,
        .prompt_tokens = ex.request.prompt_tokens,
        .output_tokens = ex.plan.output_tokens,
        .reasoning_tokens = ex.request.reasoning
                                ? std::min(ctx_.config.reasoning_tokens, ex.plan.output_tokens)
                                : 0,
        .finish = ex.plan.finish,
        .include_usage = ex.request.include_usage,
        .tool_name = ex.request.tool_name,
        .input_hashes = ex.request.input_hashes,
        .embedding_dim = ctx_.config.embedding_dim,
    };
    renderer_ = &renderer_for(ex.request.api);
    renderer_->reset(ex.identity, ex.shape);
    ex.received = received_;
    ex.start = received_;
    if (ex.fault.kind == FaultKind::kSlowFirstByte)
      ex.start += seconds_to_duration(ex.fault.seconds);
    ex.next_token = 0;
    ex.ended = false;
    ex.cut = false;
    watch_disconnect();

    if (!ctx_.engine) {
      start_feed();
      if (!ex.request.stream) {
        return arm_timer(*feed_->whole_due(), [](HttpSession& s) { s.on_whole_generated(); });
      }
    }
    if (ex.start > Clock::now()) {
      arm_timer(ex.start, [](HttpSession& s) { s.begin(); });
      return;
    }
    begin();
  }

  void start_feed() {
    FeedRequest f;
    f.arrival = ex_.arrival;
    f.prompt_tokens = ex_.request.prompt_tokens;
    f.plan = ex_.plan;
    f.block_hashes = std::move(ex_.request.block_hashes);
    f.stream = ex_.request.stream;
    f.abort_on_finish = ex_.fault_aborts();
    f.received = ex_.received;
    f.start = ex_.start;
    if (ctx_.engine) f.sink = shared_from_this();
    f.loop = loop_;
    feed_->start(std::move(f));
  }

  ReplyRenderer& renderer_for(ApiKind api) {
    auto& slot = renderers_[static_cast<std::size_t>(api)];
    if (!slot) slot = make_reply_renderer(api);
    return *slot;
  }

  // The request starts for real (after a slow_first_byte pause): a stream sends its head, and in
  // engine mode the request enters the engine.
  void begin() {
    if (ctx_.engine) start_feed();
    if (ex_.request.stream) begin_stream();
  }

  // Tokens from the engine thread, delivered on this session's loop.
  void on_engine_tokens(std::uint64_t id, std::int32_t tokens, bool finished) override {
    if (!feed_->deliver(id, tokens, finished, Clock::now())) return;
    if (!ex_.request.stream) {
      if (finished) on_whole_generated();
      return;
    }
    if (!writing_ && !timer_armed_ && !scheduled() && !ex_.ended) pump();
  }

  // A client that goes away mid-request frees its engine resources at once, not at the next
  // write: the socket turns readable with nothing to read (EOF). Bytes of a pipelined request
  // are read ahead into buffer_ (where the next request's read finds them) and the watch goes on,
  // up to kReadAheadLimit. No other read is pending while a request is in progress.
  void watch_disconnect() {
    socket_.async_wait(tcp::socket::wait_read,
                       [self = shared_from_this(), serial = serial_](error_code ec) {
                         if (ec || serial != self->serial_ || !self->in_completion_) return;
                         self->on_readable();
                       });
  }

  void on_readable() {
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
  void cancel_timer() {
    ++timer_generation_;
    timer_armed_ = false;
    timer_.cancel();
  }

  // Runs `then` at `at`. Re-arming cancels the previous wait, whose handler then does nothing.
  template <typename F>
  void arm_timer(Clock::time_point at, F then) {
    timer_armed_ = true;
    const std::uint64_t generation = ++timer_generation_;
    timer_.expires_at(at);
    timer_.async_wait([self = shared_from_this(), then, generation](error_code ec) {
      if (generation != self->timer_generation_) return;
      self->timer_armed_ = false;
      if (!ec) then(*self);
    });
  }

  // A whole (non-streamed) reply's last token is generated: the request ends, and the reply
  // leaves now (or a stall later).
  void on_whole_generated() {
    ex_.generated = ctx_.engine ? Clock::now() : *feed_->whole_due();
    feed_->end(ex_.fault_aborts(), ex_.plan.output_tokens);
    if (ex_.fault.kind == FaultKind::kStall) {
      arm_timer(ex_.generated + seconds_to_duration(ex_.fault.seconds),
                [](HttpSession& s) { s.send_whole_reply(); });
      return;
    }
    send_whole_reply();
  }

  const LlamaTimings* timings_for_reply() {
    if (!ctx_.config.llama_timings) return nullptr;
    timings_ = feed_->timings();
    return &timings_;
  }

  void send_whole_reply() {
    body_.clear();
    out_.clear();
    switch (ex_.fault.kind) {
      case FaultKind::kErrorEvent:
        return reply_error(500, "server_error",
                           "Internal server error (simulated error_event fault).");
      case FaultKind::kMalformed:
        body_ = "{\"choices\":[{\"message\": this is not JSON";
        append_json_response(out_, 200, body_, keep_alive_, ctx_.response_headers);
        return write_out();
      default:
        break;
    }
    renderer_->append_whole(body_, timings_for_reply());
    append_json_response(out_, 200, body_, keep_alive_, ctx_.response_headers, echo_header_);
    if (ex_.fault.kind == FaultKind::kStreamCut) return write_out(out_.size() - body_.size() / 2);
    write_out();
  }

  void begin_stream() {
    head_.clear();
    body_.clear();
    append_stream_head(head_, keep_alive_, ctx_.response_headers, echo_header_);
    renderer_->append_start(body_);
    pump();
  }

  // Renders every event that is due now (up to kMaxBatchBytes) and writes them in one go, or
  // waits for the next token's emit time.
  void pump() { pump(Clock::now()); }

  void pump(Clock::time_point now) {
    Exchange& ex = ex_;
    while (!ex.ended && body_.size() < kMaxBatchBytes) {
      if (!ex.fault_done && ex.next_token == ex.fault_at) {
        apply_stream_fault();
        continue;
      }
      if (ex.next_token == ex.plan.output_tokens) {
        renderer_->append_end(body_, timings_for_reply());
        ex.ended = true;
        feed_->end(/*aborted=*/false, ex.plan.output_tokens);
        break;
      }
      if (!feed_->ready(ex.next_token, now)) break;
      if (ctx_.lateness) {
        if (const auto due = feed_->due(ex.next_token)) ctx_.lateness->record(loop_, *due, now);
      }
      renderer_->append_token(body_, ex.next_token,
                              token_text(ctx_.config.seed, ex.arrival, ex.next_token));
      feed_->emitted(ex.next_token, now);
      ++ex.next_token;
    }
    if (!head_.empty() || !body_.empty() || ex.ended) return write_stream();
    // Wait for the next token: its due time (fixed delays), the end of a stall, or the engine.
    // The loop's timer wheel wakes every session due at the same time in one turn.
    if (const auto wake = feed_->wake_at(now)) timers_.schedule(shared_from_this(), *wake);
  }

  void on_due() override { pump(); }

  // Applies the mid-stream fault due before token fault_at; may end the stream.
  void apply_stream_fault() {
    Exchange& ex = ex_;
    ex.fault_done = true;
    switch (ex.fault.kind) {
      case FaultKind::kStreamCut:
        ex.ended = true;
        ex.cut = true;
        feed_->abandon(ex.next_token, Clock::now());
        return;
      case FaultKind::kMalformed:
        renderer_->append_malformed(body_);
        return;
      case FaultKind::kErrorEvent:
        renderer_->append_error(body_);
        ex.ended = true;
        feed_->end(/*aborted=*/true, ex.next_token);
        return;
      case FaultKind::kStall:
        feed_->stall(seconds_to_duration(ex.fault.seconds), ex.next_token, Clock::now());
        return;
      default:
        return;
    }
  }

  void write_stream() {
    std::array<asio::const_buffer, 5> buffers{};  // unused slots stay empty
    std::size_t n = 0;
    if (!head_.empty()) buffers[n++] = asio::buffer(head_);
    if (!body_.empty()) {
      // A zero-size chunk would end the body, so only non-empty bodies get a chunk.
      size_line_len_ = static_cast<std::size_t>(
          std::snprintf(size_line_.data(), size_line_.size(), "%zx\r\n", body_.size()));
      buffers[n++] = asio::buffer(size_line_.data(), size_line_len_);
      buffers[n++] = asio::buffer(body_);
      buffers[n++] = asio::buffer(kCrlf.data(), kCrlf.size());
    }
    if (ex_.ended && !ex_.cut) buffers[n++] = asio::buffer(kLastChunk.data(), kLastChunk.size());
    if (n == 0) return close();  // a cut with nothing pending
    if (ctx_.lateness) ctx_.lateness->count_write(loop_);
    // Most writes go through at once: written here, they skip the round through the loop that
    // an asynchronous write's completion costs. What the socket does not take is written
    // asynchronously.
    error_code ec;
    const std::size_t written = socket_.write_some(buffers, ec);
    if (ec == asio::error::would_block || ec == asio::error::try_again) ec = {};
    if (ec) return close();
    if (written == asio::buffer_size(buffers)) {
      const auto now = Clock::now();
      if (!ex_.ended && !feed_->ready(ex_.next_token, now)) {
        // Nothing due yet: wait for the next token (pump() finds none ready, so it does not
        // come back here but for a fault's bytes, once).
        head_.clear();
        body_.clear();
        return pump(now);
      }
      // More is due at once (zero delays) or the stream ended: go on after the loop's other
      // work, as an asynchronous write would, so that one stream does not hold the loop.
      writing_ = true;
      asio::post(socket_.get_executor(),
                 [self = shared_from_this()] { self->on_stream_written(error_code{}); });
      return;
    }
    writing_ = true;
    beast::buffers_suffix<decltype(buffers)> rest(buffers);
    rest.consume(written);
    asio::async_write(socket_, rest, [self = shared_from_this()](error_code wec, std::size_t) {
      self->on_stream_written(wec);
    });
  }

  void on_stream_written(error_code ec) {
    writing_ = false;
    if (ec) return close();
    head_.clear();
    body_.clear();
    if (!ex_.ended) return pump();
    if (ex_.cut) return close();
    response_done();
  }

  tcp::socket socket_;
  ServerContext& ctx_;
  std::size_t loop_;
  LoopTimers& timers_;        ///< the loop's wheel: waits for the next token
  asio::steady_timer timer_;  ///< every other wait: read timeouts, slow starts, whole replies
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<Request::body_type>> parser_;
  bool keep_alive_ = true;
  bool linger_ = false;  ///< close with linger_close() after the reply in progress
  std::string discard_;  ///< lingering close: what the client still sends, thrown away
  Clock::time_point received_;

  // The response in progress. Strings keep their capacity from one response to the next, up to
  // kKeepCapacity.
  std::string out_;          ///< a whole reply with Content-Length
  std::string head_;         ///< stream head not yet written
  std::string body_;         ///< SSE bytes not yet written
  std::string client_id_;    ///< the request's X-Request-Id, when usable; else empty
  std::string echo_header_;  ///< "X-Request-Id: <client_id_>\r\n", or empty
  std::array<char, 24> size_line_{};
  std::size_t size_line_len_ = 0;
  bool writing_ = false;
  bool timer_armed_ = false;
  std::uint64_t timer_generation_ = 0;
  bool in_completion_ = false;
  std::uint64_t serial_ = 0;  ///< counts completions, so that stale disconnect watches are ignored

  Exchange ex_;                      ///< the generation request in progress
  std::unique_ptr<TokenFeed> feed_;  ///< its tokens: fixed delays or the engine
  /// One renderer per API, made when first needed; renderer_ is the one in use.
  std::array<std::unique_ptr<ReplyRenderer>, kApiKinds> renderers_;
  ReplyRenderer* renderer_ = nullptr;
  LlamaTimings timings_;
};

}  // namespace

void start_http_session(tcp::socket socket, ServerContext& context, std::size_t loop,
                        LoopTimers& timers) {
  std::make_shared<HttpSession>(std::move(socket), context, loop, timers)->read_request();
}

}  // namespace tokenbench::sim
