#pragma once

// Internal to sim/ (http_session.h is the interface): the connection start_http_session() serves,
// its member functions split by job. http_session.cpp reads and routes requests, writes whole
// replies, watches for a disconnect and closes; http_generation.cpp serves a generation request:
// its start and faults, its tokens, and its reply, whole or streamed.

#include <array>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/string.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/string_body.hpp>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "tokenbench/core/clock.h"
#include "tokenbench/sim/exchange.h"
#include "tokenbench/sim/loop_timers.h"
#include "tokenbench/sim/prefill_client.h"
#include "tokenbench/sim/reply_renderer.h"
#include "tokenbench/sim/router.h"
#include "tokenbench/sim/server_context.h"
#include "tokenbench/sim/token_feed.h"

namespace tokenbench::sim::detail {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;
using core::Clock;
using error_code = boost::system::error_code;

// Per-connection buffers grown past this by one large request or response are freed once it is
// done, so that an idle connection holds little memory.
inline constexpr std::size_t kKeepCapacity = 1u << 20;

// A prefill call (Role::kDecode) that has no answer after this long fails (502).
inline constexpr std::chrono::milliseconds kPrefillTimeout{120'000};

inline Clock::duration seconds_to_duration(double s) {
  return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(s));
}

using Request = http::request<http::string_body>;

class HttpSession : public EngineSink,
                    public TimedTask,
                    public std::enable_shared_from_this<HttpSession> {
 public:
  HttpSession(tcp::socket socket, ServerContext& context, std::size_t loop, LoopTimers& timers);

  void read_request();

 private:
  // ---- Reading and routing (http_session.cpp) ----
  void on_header(error_code ec);
  void read_body();
  void arm_read_timeout();
  void on_read_error(error_code ec);
  void refuse_unread(int status, std::string_view type, std::string_view message);
  static RoutedRequest route(const Request& req, const RouterConfig& router);
  void on_request();
  void on_routed(const Request& req, RoutedRequest routed);
  std::string metrics_text() const;
  void echo_request_id(beast::string_view value);

  // ---- Whole replies and the connection's end (http_session.cpp) ----
  void reply_error(int status, std::string_view type, std::string_view message,
                   std::string_view extra_headers = {});
  void reply_json(int status, std::string_view body, std::string_view extra_headers = {});
  void write_out(std::size_t limit = std::string::npos);
  void response_done();
  void linger_close();
  void discard();
  void close();
  void watch_disconnect();
  void on_readable();
  void cancel_timer();

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

  // ---- Generation requests (http_generation.cpp) ----
  void start_completion(CompletionRequest&& request);
  void start_feed();
  ReplyRenderer& renderer_for(ApiKind api);
  void begin();
  void call_prefill_worker();
  void on_prefilled(std::uint64_t serial, const PrefillResult& result);
  void on_engine_tokens(std::uint64_t id, std::int32_t tokens, bool finished,
                        std::int64_t cached_tokens) override;
  void on_whole_generated();
  const LlamaTimings* timings_for_reply();
  void send_whole_reply();
  void begin_stream();
  void pump();
  void pump(Clock::time_point now);
  void on_due() override;
  void append_token_group(Clock::time_point now);
  void apply_stream_fault();
  void write_stream();
  void on_stream_written(error_code ec);

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
  std::string group_;        ///< the text of a group of tokens sent as one delta (spec decoding)
  std::array<char, 24> size_line_{};
  std::size_t size_line_len_ = 0;
  bool writing_ = false;
  bool timer_armed_ = false;
  std::uint64_t timer_generation_ = 0;
  bool in_completion_ = false;
  bool group_tokens_ = false;  ///< tokens ready together leave as one delta (spec decoding)
  std::uint64_t serial_ = 0;   ///< counts completions, so that stale disconnect watches are ignored

  Exchange ex_;                      ///< the generation request in progress
  std::unique_ptr<TokenFeed> feed_;  ///< its tokens: fixed delays or the engine
  /// One renderer per API, made when first needed; renderer_ is the one in use.
  std::array<std::unique_ptr<ReplyRenderer>, kApiKinds> renderers_;
  ReplyRenderer* renderer_ = nullptr;
  LlamaTimings timings_;
};

}  // namespace tokenbench::sim::detail
