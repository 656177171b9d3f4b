#include "tokenbench/sim/http_session.h"

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
#include "tokenbench/sim/token_timeline.h"

namespace tokenbench::sim {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;
using core::Clock;
using error_code = boost::system::error_code;

constexpr std::uint64_t kBodyLimit = 64ull << 20;
constexpr std::uint32_t kHeaderLimit = 64u << 10;
// Tokens due at the same moment are coalesced into one write of at most about this many bytes.
constexpr std::size_t kMaxBatchBytes = 64u << 10;
constexpr std::string_view kCrlf = "\r\n";
constexpr std::string_view kLastChunk = "0\r\n\r\n";
constexpr std::string_view kRetryAfter = "Retry-After: 1\r\n";

Clock::duration seconds_to_duration(double s) {
  return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(s));
}

class HttpSession : public std::enable_shared_from_this<HttpSession> {
 public:
  HttpSession(tcp::socket socket, ServerContext& context)
      : socket_(std::move(socket)), ctx_(context), timer_(socket_.get_executor()) {
    error_code ignored;
    socket_.set_option(tcp::no_delay(true), ignored);
  }

  void read_request() {
    parser_.emplace();
    parser_->body_limit(kBodyLimit);
    parser_->header_limit(kHeaderLimit);
    http::async_read_header(
        socket_, buffer_, *parser_,
        [self = shared_from_this()](error_code ec, std::size_t) { self->on_header(ec); });
  }

 private:
  // ---- Reading and routing ----

  void on_header(error_code ec) {
    if (ec) return on_read_error(ec);
    const auto& req = parser_->get();
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
    http::async_read(socket_, buffer_, *parser_,
                     [self = shared_from_this()](error_code ec, std::size_t) {
                       if (ec) return self->on_read_error(ec);
                       self->on_request();
                     });
  }

  void on_read_error(error_code ec) {
    if (ec == http::error::body_limit) {
      keep_alive_ = false;
      return reply_error(413, "invalid_request_error", "The request body is too large.");
    }
    // Transport errors and a clean end between requests just close; a malformed request gets 400.
    const bool parse_error =
        ec.category() == http::make_error_code(http::error::bad_target).category();
    if (ec == http::error::end_of_stream || !parse_error) return close();
    keep_alive_ = false;
    reply_error(400, "invalid_request_error", "The request is not valid HTTP/1.1.");
  }

  void on_request() {
    received_ = Clock::now();
    const auto& req = parser_->get();
    keep_alive_ = req.keep_alive();
    std::string_view target(req.target().data(), req.target().size());
    if (const auto q = target.find('?'); q != std::string_view::npos) target = target.substr(0, q);
    const auto method = req.method();

    if (target == "/health") {
      if (method != http::verb::get) return method_not_allowed();
      return reply_json(200, R"({"status":"ok"})");
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
    auto parsed =
        parse_completion_request(chat ? ApiKind::kChat : ApiKind::kCompletions, req.body(),
                                 ctx_.config.model, ctx_.config.default_max_tokens);
    if (auto* err = std::get_if<RequestError>(&parsed)) {
      return reply_error(err->status, err->type, err->message);
    }
    start_completion(std::get<CompletionRequest>(parsed));
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
    append_json_response(out_, status, body, keep_alive_, extra_headers);
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
    if (!keep_alive_) return close();
    read_request();
  }

  void close() {
    error_code ignored;
    timer_.cancel();
    socket_.shutdown(tcp::socket::shutdown_both, ignored);
    socket_.close(ignored);
  }

  // ---- Completions ----

  void start_completion(const CompletionRequest& request) {
    request_ = request;
    arrival_ = ctx_.next_arrival.fetch_add(1, std::memory_order_relaxed);
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
    plan_ = plan_generation(request_, ctx_.config.seed, arrival_);
    fault_at_ = plan_.output_tokens / 2;
    fault_done_ = false;
    id_.clear();
    append_response_id(id_, request_.api, ctx_.config.seed, arrival_);
    identity_ = {request_.api, id_, static_cast<std::int64_t>(std::time(nullptr)), ctx_.model_json};
    Clock::time_point start = received_;
    if (fault_.kind == FaultKind::kSlowFirstByte) start += seconds_to_duration(fault_.seconds);
    timeline_.emplace(ctx_.config.timing, ctx_.config.seed, arrival_, start);

    if (!request_.stream) return schedule_whole_reply(start);
    if (start > Clock::now()) {
      timer_.expires_at(start);
      timer_.async_wait([self = shared_from_this()](error_code ec) {
        if (!ec) self->begin_stream();
      });
      return;
    }
    begin_stream();
  }

  // Non-streaming: the reply leaves when its last token would have.
  void schedule_whole_reply(Clock::time_point start) {
    Clock::time_point due = start;
    for (std::int64_t i = 0; i < plan_.output_tokens; ++i) due = timeline_->next();
    if (fault_.kind == FaultKind::kStall) due += seconds_to_duration(fault_.seconds);
    timer_.expires_at(due);
    timer_.async_wait([self = shared_from_this()](error_code ec) {
      if (!ec) self->send_whole_reply();
    });
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
        append_json_response(out_, 200, body_, keep_alive_);
        return write_out();
      default:
        break;
    }
    append_completion_body(body_, identity_, ctx_.config.seed, arrival_, plan_,
                           request_.prompt_tokens);
    append_json_response(out_, 200, body_, keep_alive_);
    if (fault_.kind == FaultKind::kStreamCut) return write_out(out_.size() - body_.size() / 2);
    write_out();
  }

  void begin_stream() {
    head_.clear();
    body_.clear();
    append_stream_head(head_, keep_alive_);
    renderer_.reset(identity_);
    if (request_.api == ApiKind::kChat) renderer_.append_role(body_);
    next_token_ = 0;
    ended_ = false;
    cut_ = false;
    next_due_ = timeline_->next();
    pump();
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
        renderer_.append_finish(body_, plan_.finish);
        if (request_.include_usage) {
          renderer_.append_usage(body_, request_.prompt_tokens, plan_.output_tokens);
        }
        EventRenderer::append_done(body_);
        ended_ = true;
        break;
      }
      if (next_due_ > now) break;
      renderer_.append_token(body_, token_text(ctx_.config.seed, arrival_, next_token_));
      if (++next_token_ < plan_.output_tokens) next_due_ = timeline_->next();
    }
    if (!head_.empty() || !body_.empty() || ended_) return write_stream();
    timer_.expires_at(next_due_);
    timer_.async_wait([self = shared_from_this()](error_code ec) {
      if (!ec) self->pump();
    });
  }

  // Applies the mid-stream fault due before token fault_at_; may end the stream.
  void apply_stream_fault() {
    fault_done_ = true;
    switch (fault_.kind) {
      case FaultKind::kStreamCut:
        ended_ = true;
        cut_ = true;
        return;
      case FaultKind::kMalformed:
        EventRenderer::append_malformed(body_);
        return;
      case FaultKind::kErrorEvent:
        EventRenderer::append_error_event(body_);
        EventRenderer::append_done(body_);
        ended_ = true;
        return;
      case FaultKind::kStall: {
        const auto pause = seconds_to_duration(fault_.seconds);
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
    asio::async_write(socket_, buffers, [self = shared_from_this()](error_code ec, std::size_t) {
      self->on_stream_written(ec);
    });
  }

  void on_stream_written(error_code ec) {
    if (ec) return close();
    head_.clear();
    body_.clear();
    if (!ended_) return pump();
    if (cut_) return close();
    response_done();
  }

  tcp::socket socket_;
  ServerContext& ctx_;
  asio::steady_timer timer_;
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  bool keep_alive_ = true;
  Clock::time_point received_;

  // The response in progress. Strings keep their capacity from one response to the next.
  std::string out_;   ///< a whole reply with Content-Length
  std::string head_;  ///< stream head not yet written
  std::string body_;  ///< SSE bytes not yet written
  std::string id_;
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
  bool fault_done_ = false;
  bool ended_ = false;
  bool cut_ = false;
};

}  // namespace

void start_http_session(tcp::socket socket, ServerContext& context) {
  std::make_shared<HttpSession>(std::move(socket), context)->read_request();
}

}  // namespace tokenbench::sim
