#pragma once

#include <curl/curl.h>

#include <atomic>
#include <cstddef>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tokenbench/client/api_adapter.h"
#include "tokenbench/client/http1_reader.h"
#include "tokenbench/client/http2_session.h"
#include "tokenbench/client/http_engine.h"
#include "tokenbench/client/http_target.h"
#include "tokenbench/client/request_id.h"
#include "tokenbench/client/rx_stamps.h"
#include "tokenbench/client/sse_parser.h"
#include "tokenbench/client/tls_stream.h"

namespace tokenbench::client {

struct Transfer;

/// One connection of the native transport (http:// and https:// endpoints without a proxy): a
/// non-blocking socket with kernel receive stamps, kept alive across requests. HTTP/1.1 carries
/// one request at a time (`transfer`); HTTP/2 (--http2) multiplexes `streams` over `h2`.
/// Owned by a Worker.
struct Connection {
  int fd = -1;
  std::uint32_t endpoint = 0;
  bool connected = false;        // the TCP handshake completed
  bool reused = false;           // it carried a complete reply before
  bool pre_opened = false;       // opened before the requests (HttpEngine::preopen)
  std::uint32_t watched = 0;     // the epoll events registered
  Transfer* transfer = nullptr;  // the request it carries; null while idle
  std::string carry;  // bytes received but not yet parsed (a partial header or chunk line)
  std::unique_ptr<TlsSession> tls;  // https: the session over fd
  bool secured = false;             // https: the handshake completed
  // HTTP/2: the session, the requests whose streams are open on it, the output not yet written,
  // and whether it carries one request only (--connection-mode per-request).
  std::unique_ptr<Http2Session> h2;
  std::vector<Transfer*> streams;
  std::string out;
  std::size_t out_sent = 0;
  bool single_use = false;
};

/// One request in flight: its transport (a curl handle, or a native connection), its stream state
/// and the record being filled. Owned by a Worker's pool and reused for later requests.
struct Transfer final : ResponseSink {
  class Worker* worker = nullptr;
  CURL* easy = nullptr;  // created only when some endpoint goes through libcurl
  const core::RequestSpec* spec = nullptr;
  std::uint32_t endpoint = 0;  // whose URL and headers the handle carries now
  bool stream = true;          // this request asks for a stream (not one of --nonstream-sample)
  core::RequestRecord rec;
  SseParser sse;
  std::string body;  // non-streamed or error reply (bounded)
  char curl_error[CURL_ERROR_SIZE] = {};
  long status = 0;
  bool status_known = false;
  bool event_stream = false;
  bool done_seen = false;
  bool aborted = false;   // the engine ended the transfer itself; rec.error says why
  bool active = false;    // in flight (between start and finish), backoff waits included
  bool in_multi = false;  // its handle is added to the multi (not waiting to retry)
  const std::string* request_body = nullptr;
  std::uint32_t attempt = 0;
  double retry_after_s = 0;              // the reply's Retry-After, in seconds (0: none)
  core::Nanos retry_at = core::kNever;   // when the next attempt is due
  bool html = false;                     // the reply is an HTML page (Content-Type text/html)
  core::Nanos last_byte = core::kNever;  // when the reply's last bytes arrived
  core::Nanos last_activity = 0;         // the send, or the latest header or body bytes
  ReplyLimits limits;
  std::int64_t reply_bytes = 0;  // headers and body received
  std::int64_t usage_prompt = -1;
  std::int64_t usage_completion = -1;
  // The request's identity headers (EngineConfig::request_ids): two list nodes of its own in
  // front of the endpoint's shared header list, filled at each launch without allocating.
  TraceId trace;
  IdHeaders id_headers;
  curl_slist id_nodes[2] = {};
  // The native transport: the connection carrying this attempt (null when none, or libcurl's),
  // the reply's reader, the request head and how much of head + body is written, the reply's
  // Location header (redirects) and whether any reply byte arrived in this attempt. Over HTTP/2,
  // its stream and Content-Length value instead of the reader and head.
  bool native = false;
  Connection* conn = nullptr;
  Http1Reader reader;
  std::string head;
  std::size_t written = 0;
  std::string location;
  bool got_bytes = false;
  Http2Stream h2;
  std::string h2_length;
  bool h2_requeued =
      false;  // this attempt went again after a refused stream or a closed connection

  /// The stamp of the read being parsed (Worker::read_at_), noting that reply bytes arrived and
  /// whether the kernel stamped them.
  core::Nanos stamp();

  void on_status(int status, int version) override;
  void on_field(std::string_view name, std::string_view value) override;
  void on_header_end() override;
  bool on_body(std::string_view data) override;
};

/// The internals of one HttpEngine worker: a curl multi handle on an epoll loop with a timerfd for
/// both curl's timeouts and the schedule's next due request. Used by one thread at a time.
class Worker {
 public:
  Worker(const EngineConfig& config, const core::RunClock& clock, RouteState& route);
  ~Worker();
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;

  /// Runs one phase with `slots` requests in flight at most (see HttpEngine::run_phase).
  void run(RequestSource& source, std::size_t slots, const RecordSink& sink,
           const std::atomic<bool>& canceled);

  /// Readings of this worker's thread CPU clock during measure phases (at the phase's start and
  /// end and about every kCpuSamplePeriod in between), in time order.
  const std::vector<core::CpuSample>& cpu_samples() const { return cpu_samples_; }

  /// Opens up to `per_endpoint` idle connections to each native endpoint before a phase, at most
  /// kConnectWindow handshakes at a time so that a listen backlog does not overflow; returns when
  /// they are open or `deadline` passes. Failures are left for the requests to record.
  void preopen(std::size_t per_endpoint, core::Nanos deadline);
  /// Idle native connections open now (tests, benchmarks).
  std::size_t idle_connections() const;

  /// Handshakes in progress at once while connections are opened ahead of a phase.
  static constexpr std::size_t kConnectWindow = 256;

  /// How often a worker reads its CPU clock while it measures.
  static constexpr core::Nanos kCpuSamplePeriod = 250'000'000;

 private:
  // Response headers beyond this are a broken or hostile server (libcurl itself refuses one
  // header line over 100 KB); it is also the native reader's bound on a whole header (Boost.Beast
  // parses a header once it is complete).
  static constexpr std::int64_t kMaxHeaderBytes = 256 * 1024;
  static constexpr std::uint32_t kReaderHeaderLimit = kMaxHeaderBytes;
  static constexpr int kMaxEvents = 512;
  /// epoll's data word for a native connection: its address with the low bit set.
  static std::uint64_t connection_tag(const Connection* c) {
    return reinterpret_cast<std::uintptr_t>(c) | 1u;
  }

  static int on_socket(CURL* easy, curl_socket_t fd, int what, void* userp, void* socketp);
  static int on_timer(CURLM* multi, long timeout_ms, void* userp);
  static std::size_t on_header(char* data, std::size_t size, std::size_t n, void* userp);
  static std::size_t on_write(char* data, std::size_t size, std::size_t n, void* userp);
  friend struct Transfer;
  /// One response header line (status line, field, or the blank end) of `t`, received at `now`;
  /// false when it ended the transfer.
  bool header_line(Transfer* t, std::string_view line, core::Nanos now);
  /// Body bytes of `t` received at `now`; false when they ended the transfer.
  bool body_bytes(Transfer* t, std::string_view data, core::Nanos now);

  // The native transport.
  void launch_native(Transfer* t);
  /// A new connection to `endpoint`, registered with epoll; null with `error` set on failure.
  Connection* open_connection(std::uint32_t endpoint, std::string& error);
  void watch(Connection* c, std::uint32_t events);
  void close_connection(Connection* c);
  /// Hands `t` to connection `c` and writes the request when `c` is connected.
  void attach(Transfer* t, Connection* c);
  void write_request(Transfer* t);
  void on_connection_event(Connection* c, std::uint32_t events);
  void read_reply(Connection* c, Transfer* t);
  /// https: moves the handshake of `c` on; on success (and ALPN h2 for HTTP/2),
  /// connection_ready.
  void continue_handshake(Connection* c);
  /// `c` could not be set up (`error`, `message`): its requests fail, or, opened ahead, it closes.
  void connection_failed(Connection* c, core::ErrorClass error, const std::string& message);
  /// `c` can carry requests: an idle one waits, a request's is written (HTTP/2: the preface and
  /// the streams submitted while it connected).
  void connection_ready(Connection* c);
  /// `n` bytes of `t`'s reply are in read_buffer_, received at kernel time `realtime` (0: none)
  /// and read at `now`.
  void received(Connection* c, Transfer* t, std::size_t n, std::int64_t realtime, core::Nanos now);
  /// The connection of `t` ended or failed (`error`, "" for a clean end) while its reply was read.
  void reply_ended(Transfer* t, const std::string& error);
  /// Parses the bytes of `t`'s reply held in `data` (the read buffer or the carry).
  void parse_reply(Connection* c, Transfer* t, std::string_view data, bool from_carry);
  /// The reply of `t` ended (complete, or with the connection): finishes it and keeps or closes
  /// the connection.
  void end_native(Transfer* t, bool complete);
  /// A native attempt failed at the transport: `error` with `message`. A reused connection that
  /// failed before any byte of the reply is replaced by a fresh one once (the server closed an
  /// idle keep-alive connection), as libcurl does.
  void fail_native(Transfer* t, core::ErrorClass error, std::string message);
  bool native_endpoint(std::uint32_t endpoint) const { return targets_[endpoint].has_value(); }
  /// Sets read_at_ from a read's kernel stamp `realtime` (0: none) and the clock's `now`.
  void stamp_read(std::int64_t realtime, core::Nanos now);
  /// The TCP handshake of `c` finished (EPOLLOUT): 0, or the errno it failed with.
  int connect_result(const Connection* c, std::uint32_t events) const;
  /// "Failed to connect to HOST port N: why", as libcurl words it.
  std::string connect_failure(std::uint32_t endpoint, int error) const;

  // HTTP/2 on the native transport (worker_http2.cpp).
  /// The fixed headers of a request to `target` (pseudo-headers first), whose strings
  /// h2_strings_ keeps.
  std::vector<Http2Session::Header> h2_request_fields(const HttpTarget& target,
                                                      const Endpoint& endpoint, bool stream);
  void launch_h2(Transfer* t);
  /// A connection of `t`'s endpoint with room for a stream (a new one when none has), and `t`'s
  /// request submitted on it.
  void attach_h2(Transfer* t);
  Connection* open_h2(std::uint32_t endpoint, std::string& error);
  /// Events on an HTTP/2 connection that is connected (and secured): reads and writes.
  void on_h2_event(Connection* c, std::uint32_t events);
  void h2_ready(Connection* c);
  /// Writes what the session of `c` has to send; false when that closed `c`.
  bool flush_h2(Connection* c);
  void read_h2(Connection* c);
  /// Passes the bytes just read on `c` to its session; false when that closed `c`.
  bool receive_h2(Connection* c, std::string_view bytes);
  /// Ends the requests whose streams on `c` closed (refused ones go to h2_requeue_).
  void settle_h2(Connection* c);
  /// Sends the refused streams of h2_requeue_ again, on other connections.
  void requeue_h2();
  /// `c` failed or ended: it closes and its streams fail with `error` and `message`. Streams that
  /// got no byte on a connection that carried replies before go again on a fresh connection.
  void fail_h2(Connection* c, core::ErrorClass error, const std::string& message);
  /// Takes `t` off its connection, resetting its stream when it is still open.
  void detach_h2(Transfer* t);

  /// Claims and starts every request that is due while slots are free; returns the due time of the
  /// next request not yet started (kNever when none) and sets exhausted_ when the source is
  /// finished.
  core::Nanos issue_due(std::size_t slots);
  /// Starts `request` (a fresh record).
  void begin(Transfer* t, const SourcedRequest& request);
  /// Resets `t`'s per-attempt state and hands its handle to the multi.
  void launch(Transfer* t);
  /// Launches the retries whose backoff has passed; returns when the next one is due (or kNever).
  core::Nanos launch_due_retries(core::Nanos now);
  /// After a failed attempt that is_retryable: records it and schedules the next. False when the
  /// request has no attempts left (or the run is stopping).
  bool schedule_retry(Transfer* t);
  void on_event(Transfer* t, std::string_view data, core::Nanos now);
  void abort_transfer(Transfer* t, core::ErrorClass error, std::string_view message);
  /// True when `adding` more bytes of text beside the `kept` ones stay within `t`'s text bound
  /// (ReplyLimits::text_bytes); otherwise aborts `t` as a protocol failure and returns false.
  bool text_fits(Transfer* t, std::size_t kept, std::size_t adding);
  /// Counts `len` more bytes of `t`'s reply; past its limit, aborts it and returns false.
  bool count_reply_bytes(Transfer* t, std::size_t len);
  /// Ends the transfers that waited too long for a first token (--ttft-timeout) or for their
  /// next byte (--stall-timeout); returns when the next check is due (kNever: none configured).
  core::Nanos expire_waits(core::Nanos now);
  /// Classifies a finished transfer: gathers what it saw (ReplyFacts) for classify_reply.
  void classify(Transfer* t, CURLcode result, long status);
  void drain_completed();
  /// Ends `t` (removing its handle from the multi when `added`), classifies the outcome and hands
  /// the record to the sink.
  void finish(Transfer* t, CURLcode result, bool added);
  void cancel_all();
  void socket_action(curl_socket_t fd, int mask);
  /// Makes the timerfd fire no later than `wake` (kNever: no new requirement).
  void arm_timer(core::Nanos wake);
  void disarm_timer();
  Transfer* acquire();
  /// The endpoint that serves `spec` (config_.routing); counts it in flight for least-inflight.
  std::uint32_t route(const core::RequestSpec& spec);

  const EngineConfig& config_;
  const core::RunClock& clock_;
  CURLM* multi_ = nullptr;
  RouteState& route_;
  std::vector<curl_slist*> headers_;        // per endpoint
  std::vector<curl_slist*> whole_headers_;  // per endpoint, for non-streamed requests
  int epoll_fd_ = -1;
  int timer_fd_ = -1;
  std::unique_ptr<ApiAdapter> adapter_;

  std::vector<std::unique_ptr<Transfer>> pool_;
  std::vector<Transfer*> free_;
  std::vector<Transfer*> retrying_;  // waiting out a backoff; they keep their slot
  bool canceling_ = false;
  std::size_t active_ = 0;
  bool slots_limited_ = false;        // a concurrency limit applies
  std::deque<core::Nanos> freed_at_;  // when each currently free slot became free (oldest first)
  core::Nanos curl_deadline_ = core::kNever;
  bool curl_timeout_now_ = false;
  bool exhausted_ = false;
  core::Nanos armed_ = core::kNever;
  core::Nanos wait_check_period_ = core::kNever;  // how often expire_waits runs; kNever: never
  core::Nanos next_wait_check_ = core::kNever;
  const RecordSink* sink_ = nullptr;
  RequestSource* source_ = nullptr;  // where the phase's requests come from and end
  bool keep_answers_ = false;        // records keep answer_text (source_->wants_answers())
  // The native transport: per endpoint its target (nullopt: libcurl carries it), its idle
  // connections, the fixed part of the request head (streamed, then non-streamed); the owned
  // connections and their free list; the read buffer shared by all connections.
  std::vector<std::optional<HttpTarget>> targets_;
  std::vector<std::vector<Connection*>> idle_;
  std::vector<std::string> head_prefix_[2];
  std::vector<std::unique_ptr<Connection>> connections_;
  std::vector<Connection*> free_connections_;
  std::vector<char> read_buffer_;
  bool any_curl_ = false;
  std::unique_ptr<TlsContext> tls_context_;  // https on the native transport
  RealtimeToRun realtime_;
  // The stamp of the read being parsed (the kernel's receive time when it gave one) and whether
  // the kernel gave it; the reply callbacks of both protocols stamp with it.
  core::Nanos read_at_ = 0;
  bool read_kernel_ = false;
  // HTTP/2: per endpoint its open connections (those with room for a stream first found), and
  // its request headers' fixed part (streamed, then non-streamed) with the strings they view;
  // the headers of the request being submitted; the streams a session reported closed.
  std::vector<std::vector<Connection*>> h2_pool_;
  std::vector<std::vector<Http2Session::Header>> h2_fields_[2];
  std::vector<std::unique_ptr<std::vector<std::pair<std::string, std::string>>>> h2_strings_;
  std::vector<Http2Session::Header> h2_request_;
  std::vector<Transfer*> h2_requeue_;         // refused streams to send again after this loop turn
  std::string field_line_;                    // a native header field as a line, for header_line
  std::vector<core::CpuSample> cpu_samples_;  // this thread's CPU clock during measure phases
  core::Nanos next_cpu_sample_ = core::kNever;
};

}  // namespace tokenbench::client
