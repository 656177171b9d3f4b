#include <algorithm>
#include <array>
#include <boost/asio/buffer.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/buffers_suffix.hpp>
#include <cstdio>
#include <ctime>
#include <memory>
#include <string>
#include <string_view>
#include <utility>

#include "tokenbench/sim/generation_plan.h"
#include "tokenbench/sim/http_session_internal.h"
#include "tokenbench/sim/openai_render.h"

namespace tokenbench::sim::detail {
namespace {

// Tokens due at the same moment are coalesced into one write of at most about this many bytes.
constexpr std::size_t kMaxBatchBytes = 64u << 10;
constexpr std::string_view kCrlf = "\r\n";
constexpr std::string_view kLastChunk = "0\r\n\r\n";
constexpr std::string_view kRetryAfter = "Retry-After: 1\r\n";

}  // namespace

void HttpSession::start_completion(CompletionRequest&& request) {
  Exchange& ex = ex_;
  ex.request = std::move(request);
  ex.arrival = ctx_.next_arrival.fetch_add(1, std::memory_order_relaxed);
  ++serial_;
  in_completion_ = true;
  ctx_.metrics.count_request(ex.request.api, ex.request.images, ex.request.image_tokens);
  if (ctx_.request_log) ctx_.request_log->write(ex.request, ex.arrival, received_);
  ex.fault = ctx_.faults.decide(ex.arrival);
  switch (ex.fault.kind) {
    case FaultKind::kHttp429:
      return reply_error(429, "rate_limit_error", "Rate limit exceeded (simulated http_429 fault).",
                         kRetryAfter);
    case FaultKind::kHttp500:
      return reply_error(500, "server_error", "Internal server error (simulated http_500 fault).");
    case FaultKind::kHttp503:
      return reply_error(503, "server_error", "Service unavailable (simulated http_503 fault).");
    default:
      break;
  }
  ex.plan = plan_generation(ex.request, ctx_.config.seed, ex.arrival, ctx_.config.eos);
  if (ctx_.config.role == Role::kPrefill && generates_text(ex.request.api)) {
    // A prefill worker answers with the one token its prefill samples, whatever max_tokens says.
    ex.plan = {.output_tokens = 1, .finish = FinishReason::kLength};
  }
  ex.kv_transferred = false;
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
      .reasoning_tokens =
          ex.request.reasoning ? std::min(ctx_.config.reasoning_tokens, ex.plan.output_tokens) : 0,
      .finish = ex.plan.finish,
      .include_usage = ex.request.include_usage,
      .continuous_usage = ex.request.continuous_usage,
      .tool_name = ex.request.tool_name,
      .input_hashes = ex.request.input_hashes,
      .embedding_dim = ctx_.config.embedding_dim,
      .documents = ex.request.documents,
      .top_n = ex.request.top_n,
      .return_documents = ex.request.return_documents,
  };
  renderer_ = &renderer_for(ex.request.api);
  group_tokens_ = ctx_.engine && ctx_.config.engine.spec_decode.enabled();
  renderer_->reset(ex.identity, ex.shape);
  ex.received = received_;
  ex.start = received_;
  if (ex.fault.kind == FaultKind::kSlowFirstByte) ex.start += seconds_to_duration(ex.fault.seconds);
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

void HttpSession::start_feed() {
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
  f.lora = ex_.request.lora;
  f.kv_transferred = ex_.kv_transferred;
  feed_->start(std::move(f));
}

ReplyRenderer& HttpSession::renderer_for(ApiKind api) {
  auto& slot = renderers_[static_cast<std::size_t>(api)];
  if (!slot) slot = make_reply_renderer(api);
  return *slot;
}

// The request starts for real (after a slow_first_byte pause): a stream sends its head, and in
// engine mode the request enters the engine.
void HttpSession::begin() {
  if (!ex_.prefill_body.empty() && !ex_.kv_transferred) return call_prefill_worker();
  if (ctx_.engine) start_feed();
  if (ex_.request.stream) begin_stream();
}

// Role::kDecode: the prefill worker computes the prompt first (a blocking call on a helper
// thread); its answer comes back to this loop.
void HttpSession::call_prefill_worker() {
  auto loop = socket_.get_executor();
  // The call gets copies: the exchange belongs to this loop.
  asio::post(*ctx_.prefill_pool, [self = shared_from_this(), loop, serial = serial_,
                                  path = ex_.prefill_path, body = ex_.prefill_body,
                                  auth = ex_.prefill_auth]() mutable {
    PrefillResult result =
        call_prefill(self->ctx_.prefill, path, body, auth, kPrefillTimeout, self->ctx_.stopping);
    asio::post(loop, [self = std::move(self), serial, result = std::move(result)]() mutable {
      self->on_prefilled(serial, result);
    });
  });
}

// The prefill worker answered: a failure is a 502; else the KV transfer takes its model time,
// then the request enters this engine with its prompt's KV present.
void HttpSession::on_prefilled(std::uint64_t serial, const PrefillResult& result) {
  if (serial != serial_ || !in_completion_) return;  // the client went away meanwhile
  if (!result.ok) return reply_error(502, "server_error", result.error);
  ex_.kv_transferred = true;
  const double ms = ctx_.config.kv_transfer_ms / ctx_.config.time_scale;
  arm_timer(Clock::now() + seconds_to_duration(ms / 1e3), [](HttpSession& s) {
    s.ex_.start = Clock::now();  // it reaches this engine now
    s.begin();
  });
}

// Tokens from the engine thread, delivered on this session's loop.
void HttpSession::on_engine_tokens(std::uint64_t id, std::int32_t tokens, bool finished,
                                   std::int64_t cached_tokens) {
  if (!feed_->deliver(id, tokens, finished, Clock::now())) return;
  if (cached_tokens >= 0) ex_.shape.cached_tokens = cached_tokens;  // the usage will say so
  if (!ex_.request.stream) {
    if (finished) on_whole_generated();
    return;
  }
  if (!writing_ && !timer_armed_ && !scheduled() && !ex_.ended) pump();
}

// A whole (non-streamed) reply's last token is generated: the request ends, and the reply
// leaves now (or a stall later).
void HttpSession::on_whole_generated() {
  ex_.generated = ctx_.engine ? Clock::now() : *feed_->whole_due();
  feed_->end(ex_.fault_aborts(), ex_.plan.output_tokens);
  if (ex_.fault.kind == FaultKind::kStall) {
    arm_timer(ex_.generated + seconds_to_duration(ex_.fault.seconds),
              [](HttpSession& s) { s.send_whole_reply(); });
    return;
  }
  send_whole_reply();
}

const LlamaTimings* HttpSession::timings_for_reply() {
  if (!ctx_.config.llama_timings) return nullptr;
  timings_ = feed_->timings();
  return &timings_;
}

void HttpSession::send_whole_reply() {
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

void HttpSession::begin_stream() {
  head_.clear();
  body_.clear();
  append_stream_head(head_, keep_alive_, ctx_.response_headers, echo_header_);
  renderer_->append_start(body_);
  pump();
}

// Renders every event that is due now (up to kMaxBatchBytes) and writes them in one go, or
// waits for the next token's emit time.
void HttpSession::pump() { pump(Clock::now()); }

void HttpSession::pump(Clock::time_point now) {
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
    if (group_tokens_) {
      append_token_group(now);
      continue;
    }
    renderer_->append_tokens(body_, ex.next_token, 1,
                             token_text(ctx_.config.seed, ex.arrival, ex.next_token));
    feed_->emitted(ex.next_token, now);
    ++ex.next_token;
  }
  if (!head_.empty() || !body_.empty() || ex.ended) return write_stream();
  // Wait for the next token: its due time (fixed delays), the end of a stall, or the engine.
  // The loop's timer wheel wakes every session due at the same time in one turn.
  if (const auto wake = feed_->wake_at(now)) timers_.schedule(shared_from_this(), *wake);
}

// Speculative decoding: the tokens ready now (those a step made together) leave as one delta
// carrying all their text. A group stops where the reply's part changes (reasoning to content)
// and before a mid-stream fault.
void HttpSession::append_token_group(Clock::time_point now) {
  Exchange& ex = ex_;
  std::int64_t limit = ex.plan.output_tokens;
  if (!ex.fault_done && ex.fault_at > ex.next_token) limit = std::min(limit, ex.fault_at);
  if (ex.next_token < ex.shape.reasoning_tokens) limit = std::min(limit, ex.shape.reasoning_tokens);
  group_.clear();
  const std::int64_t first = ex.next_token;
  do {
    group_ += token_text(ctx_.config.seed, ex.arrival, ex.next_token);
    feed_->emitted(ex.next_token, now);
    ++ex.next_token;
  } while (ex.next_token < limit && feed_->ready(ex.next_token, now));
  renderer_->append_tokens(body_, first, ex.next_token - first, group_);
}

void HttpSession::on_due() { pump(); }

// Applies the mid-stream fault due before token fault_at; may end the stream.
void HttpSession::apply_stream_fault() {
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

void HttpSession::write_stream() {
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

void HttpSession::on_stream_written(error_code ec) {
  writing_ = false;
  if (ec) return close();
  head_.clear();
  body_.clear();
  if (!ex_.ended) return pump();
  if (ex_.cut) return close();
  response_done();
}

}  // namespace tokenbench::sim::detail
