#include "tokenbench/sim/http_session.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <boost/asio/buffer.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/write.hpp>
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
#include "tokenbench/sim/generation_plan.h"
#include "tokenbench/sim/openai_render.h"
#include "tokenbench/sim/openai_request.h"
#include "tokenbench/sim/sim_metrics.h"
#include "tokenbench/sim/token_timeline.h"

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

double seconds_between(Clock::time_point from, Clock::time_point to) {
  return std::chrono::duration<double>(to - from).count();
}

void release_if_large(std::string& s) {
  if (s.capacity() > kKeepCapacity) std::string().swap(s);
}

// The first coding named in the request's `field` (a comma-separated list, possibly over several
// header lines) that is not one of `allowed`; empty when every coding is allowed.
std::string unsupported_coding(const http::request_header<>& req, http::field field,
                               std::initializer_list<std::string_view> allowed) {
  const auto [first, last] = req.equal_range(field);
  for (auto f = first; f != last; ++f) {
    const std::string_view value(f->value().data(), f->value().size());
    std::size_t pos = 0;
    while (pos <= value.size()) {
      std::size_t end = value.find(',', pos);
      if (end == std::string_view::npos) end = value.size();
      std::string_view coding = value.substr(pos, end - pos);
      coding = coding.substr(0, coding.find(';'));  // drop parameters
      while (!coding.empty() && (coding.front() == ' ' || coding.front() == '\t')) {
        coding.remove_prefix(1);
      }
      while (!coding.empty() && (coding.back() == ' ' || coding.back() == '\t')) {
        coding.remove_suffix(1);
      }
      const bool ok = coding.empty() || std::any_of(allowed.begin(), allowed.end(), [&](auto a) {
                        return beast::iequals(beast::string_view(coding.data(), coding.size()),
                                              beast::string_view(a.data(), a.size()));
                      });
      if (!ok) return std::string(coding);
      pos = end + 1;
    }
  }
  return {};
}

class HttpSession : public EngineSink, public std::enable_shared_from_this<HttpSession> {
 public:
  HttpSession(tcp::socket socket, ServerContext& context, std::size_t loop)
      : socket_(std::move(socket)), ctx_(context), loop_(loop), timer_(socket_.get_executor()) {
    error_code ignored;
    socket_.set_option(tcp::no_delay(true), ignored);
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
    parser_.reset();  // drops a partial body
    keep_alive_ = false;
    linger_ = true;
    reply_error(status, type, message);
  }

  void on_request() {
    received_ = Clock::now();
    // The request leaves the parser and dies with this call, so that a large body is not kept
    // until the next request.
    const auto req = parser_->release();
    parser_.reset();
    keep_alive_ = req.keep_alive();
    std::string_view target(req.target().data(), req.target().size());
    if (const auto q = target.find('?'); q != std::string_view::npos) target = target.substr(0, q);
    const auto method = req.method();

    if (target == "/health") {
      if (method != http::verb::get) return method_not_allowed();
      return reply_json(200, R"({"status":"ok"})");
    }
    if (target == "/version") {  // like vLLM's, open without the API key
      if (method != http::verb::get) return method_not_allowed();
      return reply_json(200, version_body());
    }
    if (target == "/metrics") {  // like vLLM's, open without the API key
      if (method != http::verb::get) return method_not_allowed();
      out_.clear();
      append_response(out_, 200, kPrometheusType, ctx_.metrics.render(), keep_alive_,
                      ctx_.response_headers);
      return write_out();
    }
    const bool models = target == "/v1/models";
    const bool chat = target == "/v1/chat/completions";
    const bool completions = target == "/v1/completions";
    if (!models && !chat && !completions) {
      return reply_error(404, "invalid_request_error",
                         "The path `" + std::string(target) + "` does not exist.");
    }
    if (!ctx_.expected_auth.empty()) {
      const auto auth = req[http::field::authorization];
      if (std::string_view(auth.data(), auth.size()) != ctx_.expected_auth) {
        return reply_error(401, "invalid_request_error",
                           "Invalid or missing API key (expected 'Authorization: Bearer KEY').");
      }
    }
    if (models) {
      if (method != http::verb::get) return method_not_allowed();
      return reply_json(200, ctx_.models_reply);
    }
    if (method != http::verb::post) return method_not_allowed();
    const EngineParams& engine = ctx_.config.engine;
    const bool hashed = ctx_.engine && engine.enable_prefix_caching;
    auto parsed = parse_completion_request(
        chat ? ApiKind::kChat : ApiKind::kCompletions, req.body(), ctx_.config.model,
        ctx_.config.default_max_tokens, hashed ? engine.block_size : 0);
    if (auto* err = std::get_if<RequestError>(&parsed)) {
      return reply_error(err->status, err->type, err->message);
    }
    auto& request = std::get<CompletionRequest>(parsed);
    // The whole sequence must fit (vLLM's max_model_len check); with the engine model, in the
    // whole blocks of its KV cache, or the request could never be readmitted after preemption.
    std::int64_t limit = ctx_.config.max_model_len;
    if (ctx_.engine) limit = std::min(limit, engine.total_blocks() * engine.block_size);
    const std::int64_t prompt = std::max<std::int64_t>(1, request.prompt_tokens);
    if (prompt > limit || request.max_tokens > limit - prompt) {  // no overflow for huge max_tokens
      return reply_error(
          400, "invalid_request_error",
          fmt::format("This model's maximum context length is {} tokens. However, you requested "
                      "more ({} in the messages, {} in the completion). Please reduce the length "
                      "of the messages or completion.",
                      limit, request.prompt_tokens, request.max_tokens));
    }
    echo_request_id(req["X-Request-Id"]);
    start_completion(std::move(request));
  }

  // A client's X-Request-Id is echoed in the reply's headers and names the completion
  // ("chatcmpl-<id>", as vLLM does), so that a client's records join the server's; an id that is
  // not a short token of letters, digits and ".:_-" is ignored.
  void echo_request_id(beast::string_view value) {
    client_id_.clear();
    echo_header_.clear();
    const std::string_view id(value.data(), value.size());
    if (id.empty() || id.size() > 128) return;
    for (const char c : id) {
      const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                      c == '.' || c == ':' || c == '_' || c == '-';
      if (!ok) return;
    }
    client_id_.assign(id);
    echo_header_ = "X-Request-Id: " + client_id_ + "\r\n";
  }

  void method_not_allowed() {
    reply_error(405, "invalid_request_error", "This method is not allowed on this path.");
  }

  // ---- Whole replies (errors, models, health, non-streaming completions) ----

  void reply_error(int status, std::string_view type, std::string_view message,
                   std::string_view extra_headers = {}) {
    reply_json(status, error_body(status, type, message), extra_headers);
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
    cancel_engine();
    if (fixed_running_) finish_fixed_metrics(/*aborted=*/true, fixed_tokens_due(Clock::now()));
    in_completion_ = false;
    error_code ignored;
    timer_.cancel();
    socket_.shutdown(tcp::socket::shutdown_both, ignored);
    socket_.close(ignored);
  }

  // ---- Completions ----

  void start_completion(CompletionRequest&& request) {
    request_ = std::move(request);
    arrival_ = ctx_.next_arrival.fetch_add(1, std::memory_order_relaxed);
    ++serial_;
    in_completion_ = true;
    fault_ = ctx_.faults.decide(arrival_);
    switch (fault_.kind) {
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
    plan_ = plan_generation(request_, ctx_.config.seed, arrival_, ctx_.config.eos);
    fault_at_ = plan_.output_tokens / 2;
    fault_done_ = false;
    id_.clear();
    if (client_id_.empty()) {
      append_response_id(id_, request_.api, ctx_.config.seed, arrival_);
    } else {
      id_ = (request_.api == ApiKind::kChat ? "chatcmpl-" : "cmpl-") + client_id_;
    }
    identity_ = {request_.api, id_, static_cast<std::int64_t>(std::time(nullptr)), ctx_.model_json};
    start_ = received_;
    if (fault_.kind == FaultKind::kSlowFirstByte) start_ += seconds_to_duration(fault_.seconds);
    available_ = 0;
    next_token_ = 0;
    stall_until_ = {};
    watch_disconnect();

    if (!ctx_.engine) {
      timeline_.emplace(ctx_.config.timing, ctx_.config.seed, arrival_, start_);
      start_fixed_metrics();
      if (!request_.stream) return schedule_whole_reply();
    }
    if (start_ > Clock::now()) {
      arm_timer(start_, [](HttpSession& s) { s.begin(); });
      return;
    }
    begin();
  }

  // The request starts for real (after a slow_first_byte pause): a stream sends its head, and in
  // engine mode the request enters the engine.
  void begin() {
    if (ctx_.engine) submit_to_engine();
    if (request_.stream) begin_stream();
  }

  void submit_to_engine() {
    EngineSubmission s;
    s.id = arrival_;
    s.prompt_tokens = request_.prompt_tokens;
    s.output_tokens = plan_.output_tokens;
    s.finish = plan_.finish;
    s.block_hashes = std::move(request_.block_hashes);
    s.received = start_;
    s.sink = shared_from_this();
    s.loop = loop_;
    s.abort_on_finish = fault_aborts();
    engine_active_ = true;
    ctx_.engine->submit(std::move(s));
  }

  void cancel_engine() {
    if (!engine_active_) return;
    engine_active_ = false;
    ctx_.engine->cancel(arrival_);
  }

  // Tokens from the engine thread, delivered on this session's loop.
  void on_engine_tokens(std::uint64_t id, std::int32_t tokens, bool finished) override {
    if (id != arrival_ || !engine_active_) return;  // a request this session gave up
    if (!request_.stream) {
      const auto now = Clock::now();
      if (available_ == 0) first_out_ = now;
      last_out_ = now;
    }
    available_ += tokens;
    if (finished) engine_active_ = false;
    if (!request_.stream) {
      if (!finished) return;
      if (fault_.kind == FaultKind::kStall) {
        arm_timer(Clock::now() + seconds_to_duration(fault_.seconds),
                  [](HttpSession& s) { s.send_whole_reply(); });
        return;
      }
      return send_whole_reply();
    }
    if (!writing_ && !timer_armed_ && !ended_) pump();
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

  // ---- Metrics of fixed-delay mode (the engine records its own) ----
  // As the engine's: token counters count the tokens generated (due) by the time the request
  // ends, aborted or not; latency observations wait in fixed_delta_ and are merged only when the
  // request finishes successfully (its last token is due without a fault that aborts it).

  void start_fixed_metrics() {
    if (!fixed_delta_) fixed_delta_ = std::make_unique<MetricsDelta>();
    fixed_delta_->clear();
    fixed_running_ = true;
    ctx_.metrics.add_running(1);
  }

  // Token `index` of a fixed-delay reply is due at `due`.
  void note_fixed_token(std::int64_t index, Clock::time_point due) {
    MetricsDelta& d = *fixed_delta_;
    if (index == 0) {
      d.ttft.observe(seconds_between(received_, due));
      first_due_ = due;
    } else {
      d.itl.observe(seconds_between(last_due_, due));
    }
    last_due_ = due;
  }

  // The tokens of the fixed-delay request in progress generated by `now`: a stream's are those
  // rendered; a whole reply's, those due (its timeline replayed).
  std::int64_t fixed_tokens_due(Clock::time_point now) const {
    if (request_.stream) return next_token_;
    TokenTimeline replay(ctx_.config.timing, ctx_.config.seed, arrival_, start_);
    std::int64_t n = 0;
    while (n < plan_.output_tokens && replay.next() <= now) ++n;
    return n;
  }

  void finish_fixed_metrics(bool aborted, std::int64_t generated) {
    fixed_running_ = false;
    MetricsDelta& d = *fixed_delta_;
    d.generation_tokens = generated;
    if (generated > 0) d.prompt_tokens = request_.prompt_tokens;  // once its first token is out
    if (aborted) {
      d.ttft.clear();
      d.itl.clear();
      ++d.success_abort;
    } else {
      const double e2e = seconds_between(received_, last_due_);
      const double ttft = seconds_between(received_, first_due_);
      d.e2e.observe(e2e);
      d.queue.observe(0.0);
      d.prefill.observe(ttft);
      d.decode.observe(e2e - ttft);
      d.inference.observe(e2e);
      ++(plan_.finish == FinishReason::kStop ? d.success_stop : d.success_length);
    }
    ctx_.metrics.merge(d);
    ctx_.metrics.add_running(-1);
  }

  // The request's llama.cpp-style timings: receipt to first token, first to last token (the
  // tokens' due times with fixed delays, their release by the engine otherwise).
  LlamaTimings llama_timings() const {
    const auto first = ctx_.engine ? first_out_ : first_due_;
    const auto last = ctx_.engine ? last_out_ : last_due_;
    LlamaTimings t;
    t.prompt_n = request_.prompt_tokens;
    t.predicted_n = plan_.output_tokens;
    if (plan_.output_tokens > 0) {
      t.prompt_ms = std::max(0.0, seconds_between(received_, first) * 1e3);
      t.predicted_ms = std::max(0.0, seconds_between(first, last) * 1e3);
    }
    return t;
  }

  // The fault turns the request into an abort whatever happens (a cut or an error reply).
  bool fault_aborts() const {
    return fault_.kind == FaultKind::kStreamCut || fault_.kind == FaultKind::kErrorEvent;
  }

  // Non-streaming, fixed delays: the request finishes when its last token is due, and the reply
  // leaves then (or a stall later).
  void schedule_whole_reply() {
    for (std::int64_t i = 0; i < plan_.output_tokens; ++i) note_fixed_token(i, timeline_->next());
    arm_timer(last_due_, [](HttpSession& s) { s.on_fixed_reply_generated(); });
  }

  void on_fixed_reply_generated() {
    finish_fixed_metrics(fault_aborts(), plan_.output_tokens);
    if (fault_.kind == FaultKind::kStall) {
      arm_timer(last_due_ + seconds_to_duration(fault_.seconds),
                [](HttpSession& s) { s.send_whole_reply(); });
      return;
    }
    send_whole_reply();
  }

  void send_whole_reply() {
    body_.clear();
    out_.clear();
    switch (fault_.kind) {
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
    const LlamaTimings timings = llama_timings();
    append_completion_body(body_, identity_, ctx_.config.seed, arrival_, plan_,
                           request_.prompt_tokens, ctx_.config.llama_timings ? &timings : nullptr);
    append_json_response(out_, 200, body_, keep_alive_, ctx_.response_headers, echo_header_);
    if (fault_.kind == FaultKind::kStreamCut) return write_out(out_.size() - body_.size() / 2);
    write_out();
  }

  void begin_stream() {
    head_.clear();
    body_.clear();
    append_stream_head(head_, keep_alive_, ctx_.response_headers, echo_header_);
    renderer_.reset(identity_);
    if (request_.api == ApiKind::kChat) renderer_.append_role(body_);
    next_token_ = 0;
    ended_ = false;
    cut_ = false;
    if (!ctx_.engine) next_due_ = timeline_->next();
    pump();
  }

  bool token_ready(Clock::time_point now) const {
    if (ctx_.engine) return next_token_ < available_ && now >= stall_until_;
    return next_due_ <= now;
  }

  // Renders every event that is due now (up to kMaxBatchBytes) and writes them in one go, or
  // waits for the next token's emit time.
  void pump() {
    const auto now = Clock::now();
    while (!ended_ && body_.size() < kMaxBatchBytes) {
      if (!fault_done_ && next_token_ == fault_at_) {
        apply_stream_fault();
        continue;
      }
      if (next_token_ == plan_.output_tokens) {
        // llama.cpp's timings go in the last JSON event: the usage event, else the finish event.
        const LlamaTimings timings = llama_timings();
        const LlamaTimings* with = ctx_.config.llama_timings ? &timings : nullptr;
        renderer_.append_finish(body_, plan_.finish, request_.include_usage ? nullptr : with);
        if (request_.include_usage) {
          renderer_.append_usage(body_, request_.prompt_tokens, plan_.output_tokens, with);
        }
        EventRenderer::append_done(body_);
        ended_ = true;
        if (fixed_running_) finish_fixed_metrics(/*aborted=*/false, plan_.output_tokens);
        break;
      }
      if (!token_ready(now)) break;
      if (ctx_.engine) {
        if (next_token_ == 0) first_out_ = now;
        last_out_ = now;
      }
      renderer_.append_token(body_, token_text(ctx_.config.seed, arrival_, next_token_));
      if (!ctx_.engine) note_fixed_token(next_token_, next_due_);
      if (++next_token_ < plan_.output_tokens && !ctx_.engine) next_due_ = timeline_->next();
    }
    if (!head_.empty() || !body_.empty() || ended_) return write_stream();
    // Wait for the next token: its due time (fixed delays), the end of a stall, or the engine.
    if (!ctx_.engine) {
      arm_timer(next_due_, [](HttpSession& s) { s.pump(); });
    } else if (stall_until_ > now) {
      arm_timer(stall_until_, [](HttpSession& s) { s.pump(); });
    }
  }

  // Applies the mid-stream fault due before token fault_at_; may end the stream.
  void apply_stream_fault() {
    fault_done_ = true;
    switch (fault_.kind) {
      case FaultKind::kStreamCut:
        ended_ = true;
        cut_ = true;
        cancel_engine();
        return;
      case FaultKind::kMalformed:
        EventRenderer::append_malformed(body_);
        return;
      case FaultKind::kErrorEvent:
        EventRenderer::append_error_event(body_);
        EventRenderer::append_done(body_);
        ended_ = true;
        cancel_engine();
        if (fixed_running_) finish_fixed_metrics(/*aborted=*/true, next_token_);
        return;
      case FaultKind::kStall: {
        const auto pause = seconds_to_duration(fault_.seconds);
        if (ctx_.engine) {
          // The engine goes on generating; what it makes meanwhile leaves in one burst.
          stall_until_ = Clock::now() + pause;
          return;
        }
        timeline_->delay(pause);
        if (next_token_ < plan_.output_tokens) next_due_ += pause;
        return;
      }
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
    if (ended_ && !cut_) buffers[n++] = asio::buffer(kLastChunk.data(), kLastChunk.size());
    if (n == 0) return close();  // a cut with nothing pending
    writing_ = true;
    asio::async_write(socket_, buffers, [self = shared_from_this()](error_code ec, std::size_t) {
      self->on_stream_written(ec);
    });
  }

  void on_stream_written(error_code ec) {
    writing_ = false;
    if (ec) return close();
    head_.clear();
    body_.clear();
    if (!ended_) return pump();
    if (cut_) return close();
    response_done();
  }

  tcp::socket socket_;
  ServerContext& ctx_;
  std::size_t loop_;
  asio::steady_timer timer_;
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  bool keep_alive_ = true;
  bool linger_ = false;  ///< close with linger_close() after the reply in progress
  std::string discard_;  ///< lingering close: what the client still sends, thrown away
  Clock::time_point received_;

  // The response in progress. Strings keep their capacity from one response to the next, up to
  // kKeepCapacity.
  std::string out_;   ///< a whole reply with Content-Length
  std::string head_;  ///< stream head not yet written
  std::string body_;  ///< SSE bytes not yet written
  std::string id_;
  std::string client_id_;    ///< the request's X-Request-Id, when usable; else empty
  std::string echo_header_;  ///< "X-Request-Id: <client_id_>\r\n", or empty
  std::array<char, 24> size_line_{};
  std::size_t size_line_len_ = 0;
  EventRenderer renderer_;
  ResponseIdentity identity_;
  CompletionRequest request_;
  GenerationPlan plan_;
  FaultDecision fault_;
  std::uint64_t arrival_ = 0;
  std::optional<TokenTimeline> timeline_;
  std::int64_t next_token_ = 0;
  std::int64_t fault_at_ = 0;
  Clock::time_point next_due_;
  Clock::time_point start_;  ///< receipt, plus the slow_first_byte pause
  bool fault_done_ = false;
  bool ended_ = false;
  bool cut_ = false;
  bool writing_ = false;
  bool timer_armed_ = false;
  std::uint64_t timer_generation_ = 0;
  bool in_completion_ = false;
  std::uint64_t serial_ = 0;  ///< counts completions, so that stale disconnect watches are ignored

  // Engine mode.
  bool engine_active_ = false;  ///< the request is in the engine
  std::int64_t available_ = 0;  ///< tokens the engine has generated for it
  Clock::time_point stall_until_;

  // Fixed-delay mode metrics of the request in progress.
  std::unique_ptr<MetricsDelta> fixed_delta_;
  bool fixed_running_ = false;
  Clock::time_point first_due_;
  Clock::time_point last_due_;
  // Engine mode: when the request's first and last tokens left (stream) or were generated.
  Clock::time_point first_out_;
  Clock::time_point last_out_;
};

}  // namespace

void start_http_session(tcp::socket socket, ServerContext& context, std::size_t loop) {
  std::make_shared<HttpSession>(std::move(socket), context, loop)->read_request();
}

}  // namespace tokenbench::sim
