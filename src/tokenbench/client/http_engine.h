#pragma once

#include <atomic>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "tokenbench/client/request_source.h"
#include "tokenbench/client/tls_options.h"
#include "tokenbench/core/clock.h"
#include "tokenbench/core/ideal_cache.h"
#include "tokenbench/core/read_lag.h"
#include "tokenbench/core/request.h"
#include "tokenbench/core/run_config.h"

namespace tokenbench::client {

/// One server the engine sends to. Plain data.
struct Endpoint {
  std::string url;                   ///< full request URL (base URL + endpoint)
  std::vector<std::string> headers;  ///< full header lines, credentials included (never logged)
};

/// How a request picks its endpoint when the engine has several.
enum class Routing {
  kBySpec,         ///< RequestSpec::target names it (targets compared in one run)
  kRoundRobin,     ///< replicas of one deployment, in turn
  kLeastInflight,  ///< replicas of one deployment, the one with the fewest requests in flight
};

/// How the engine reaches the server. Plain data, fixed for the engine's lifetime.
struct EngineConfig {
  std::vector<Endpoint> endpoints;  ///< at least one; RequestRecord::endpoint indexes it
  Routing routing = Routing::kBySpec;
  core::ApiKind api = core::ApiKind::kOpenAIChat;
  bool stream = true;
  double timeout_s = 600.0;         ///< per request, from send to the end of the reply
  double connect_timeout_s = 30.0;  ///< to establish a connection (TCP and TLS)
  double ttft_timeout_s = 0;        ///< no first token this long after the send fails it; 0: none
  double stall_timeout_s = 0;  ///< no byte this long in the middle of a reply fails it; 0: none
  int workers = 1;             ///< worker threads, each with its own event loop and connections
  int max_concurrency = 0;     ///< requests in flight across all workers; 0: unlimited
  bool keep_text = false;      ///< keep each request's generated text in RequestRecord::output_text
  /// --save-detailed: copy each request's prompt into RequestRecord::prompt_text (at most
  /// core::kMaxDetailTextBytes).
  bool keep_prompt = false;
  /// --cache-block: the ideal prefix cache every request's prompt blocks (RequestSpec::
  /// prefix_blocks) are looked up in and added to as it is sent; null: none modelled.
  std::shared_ptr<core::IdealCache> ideal_cache;
  /// The largest SSE event (or line) a reply may send; a larger one fails it as malformed.
  std::size_t max_event_bytes = std::size_t{4} << 20;
  /// The most bytes a streamed reply may send; 0: derived from max_tokens (see reply_limits).
  std::int64_t max_reply_bytes = 0;
  /// Further attempts of a request that failed in a retryable way (is_retryable), after an
  /// exponential backoff with jitter that honours Retry-After; 0: none.
  int retries = 0;
  std::uint64_t seed = 0;  ///< makes the backoff jitter repeatable
  /// Send X-Request-Id and traceparent (client/request_id.h) and record the id.
  bool request_ids = false;
  std::uint64_t run_id = 0;  ///< the high half of every trace id (client::new_run_id)
  /// Plain http:// endpoints without a proxy go through the native HTTP/1.1 transport, which
  /// stamps reads with the kernel's receive time; false sends every request through libcurl.
  bool native_transport = true;
  /// The native transport's stamps: the kernel's receive time of each read (true), or the
  /// client's clock read when the read returned (false: what libcurl's path always does).
  bool kernel_stamps = true;
  /// Each request opens its own connection and closes it after the reply
  /// (--connection-mode per-request), its set-up stamped as RequestRecord::connected; otherwise
  /// connections are kept alive and opened before the first phase (HttpEngine::preopen).
  bool per_request_connections = false;
  /// HTTP/2 (--http2): prior knowledge for http://, ALPN "h2" for https://; each connection
  /// multiplexes up to `http2_streams` requests (fewer when the server's
  /// SETTINGS_MAX_CONCURRENT_STREAMS says so), and more connections open as needed.
  bool http2 = false;
  std::uint32_t http2_streams = 100;
  /// Whom https connections trust (--cacert, --insecure), libcurl's and the native transport's.
  TlsOptions tls;
};

/// True for failures worth another attempt: no connection, 429, 5xx, or a reply cut before any
/// output. Not timeouts (the server may still be working on it) nor the client's own 4xx.
bool is_retryable(const core::RequestRecord& record);

/// The wait before attempt `attempt` + 1 of request `id`: half of min(30 s, 0.25 s x 2^attempt)
/// plus a repeatable random share of the other half; at least `retry_after_s` (capped at 120 s)
/// when the server sent Retry-After.
core::Nanos retry_backoff(std::uint64_t seed, std::uint64_t id, std::uint32_t attempt,
                          double retry_after_s);

/// What one reply may send before the engine ends it as a protocol failure, so that a broken or
/// hostile server cannot grow the client's memory without bound. Derived from the request's
/// max_tokens with a wide margin (32768 tokens assumed when the request leaves it to the server).
struct ReplyLimits {
  std::int64_t bytes = 0;       ///< bytes of a streamed reply, headers and framing included
  std::int64_t body_bytes = 0;  ///< bytes of a whole (non-streamed) reply body, kept in memory
  std::int64_t chunks = 0;      ///< content-bearing events of a stream
  std::int64_t text_bytes = 0;  ///< generated text kept per request (EngineConfig::keep_text)
  /// The most completion tokens a reply's usage may claim; more is a protocol failure (a count
  /// the figures cannot hold: per-token ITL would expand it into that many samples).
  std::int64_t usage_tokens = 0;
};
ReplyLimits reply_limits(const EngineConfig& config, std::int64_t max_tokens);

/// Endpoint choice shared by an engine's workers (replica balancing). Thread-safe.
struct RouteState {
  explicit RouteState(std::size_t endpoints) : inflight(endpoints), attempts(endpoints) {}
  std::atomic<std::uint64_t> next{0};               ///< round-robin counter
  std::atomic<std::int64_t> started{0};             ///< requests started (the live view)
  std::vector<std::atomic<std::int64_t>> inflight;  ///< requests in flight per endpoint
  /// Attempts in flight per target (record.in_flight): by endpoint when each endpoint is a
  /// target of its own (Routing::kBySpec), else all in [0] (replicas of one deployment).
  std::vector<std::atomic<std::int64_t>> attempts;
};

/// Receives each finished request's record. Called from worker threads: must be thread-safe.
using RecordSink = std::function<void(core::RequestRecord&&)>;

class Worker;

/// The HTTP load engine: `workers` threads, each with its own epoll loop, its connections (kept
/// alive across requests and phases) and its in-flight requests. Plain http:// endpoints go
/// through the native HTTP/1.1 transport, whose reads carry the kernel's receive time
/// (SO_TIMESTAMPING); https and proxied endpoints through a libcurl multi handle on the same loop,
/// stamped from `clock` first thing in the callback that sees the bytes. Nothing is shared on the
/// hot path except the request source (lock-free for a schedule's queue).
///
/// run_phase() must be called from one thread at a time; cancel() may be called from any thread.
class HttpEngine {
 public:
  HttpEngine(EngineConfig config, const core::RunClock& clock);
  ~HttpEngine();
  HttpEngine(const HttpEngine&) = delete;
  HttpEngine& operator=(const HttpEngine&) = delete;

  /// Sends the phase's requests as `source` makes them due, within the concurrency limit, and
  /// blocks until the source is finished and every request in flight has ended.
  /// `expected_count` (kUnboundedCount when not known) spreads unlimited concurrency evenly over
  /// the workers.
  void run_phase(RequestSource& source, std::size_t expected_count, const RecordSink& sink);

  /// Opens the connections that `expected_count` requests at the configured concurrency will use
  /// (each worker its share of the --max-concurrency slots, per native endpoint, no more than
  /// `expected_count` in all), before any phase, so that no measured request pays for TCP
  /// set-up. Nothing in per-request mode or without a concurrency limit. Returns after at most
  /// `timeout_s`.
  void preopen(std::size_t expected_count, double timeout_s);
  /// Idle native connections of all workers (between phases only).
  std::size_t idle_connections() const;

  /// Stops issuing requests and ends the ones in flight, recording them as canceled.
  void cancel() { canceled_.store(true, std::memory_order_relaxed); }
  bool canceled() const { return canceled_.load(std::memory_order_relaxed); }
  /// Requests started so far, every phase (first attempts only). Any thread.
  std::int64_t started() const { return route_.started.load(std::memory_order_relaxed); }

  /// Per worker, its thread's CPU clock readings over the measure phases run so far (see
  /// Worker::cpu_samples). Call between phases only.
  std::vector<std::vector<core::CpuSample>> cpu_samples() const;
  /// Per worker, the read lag of its kernel-stamped reads over the measure phases run so far
  /// (Worker::read_lag). Call between phases only.
  std::vector<core::ReadLagLog> read_lags() const;

 private:
  EngineConfig config_;
  const core::RunClock& clock_;
  RouteState route_;
  std::vector<std::unique_ptr<Worker>> workers_;
  std::atomic<bool> canceled_{false};

  /// Each worker's request slots for a phase of `expected_count` requests.
  std::vector<std::size_t> slots_for(std::size_t expected_count) const;
};

}  // namespace tokenbench::client
