#pragma once

// The interface between a Worker and what carries its requests (libcurl, the native HTTP/1.1
// transport, the native HTTP/2 transport), in the manner of h2load's Session: the worker keeps
// the event loop, the slots, the timers and the records; a transport connects, submits, reacts
// to its sockets' readiness and lets go of an attempt, and reports each reply's bytes back with
// the receive stamp of the read that carried them.

#include <curl/curl.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "tokenbench/client/http_engine.h"
#include "tokenbench/client/transfer.h"
#include "tokenbench/core/clock.h"

namespace tokenbench::client {

/// Response headers beyond this are a broken or hostile server (libcurl itself refuses one header
/// line over 100 KB); it is also the native reader's bound on a whole header (Boost.Beast parses a
/// header once it is complete).
inline constexpr std::int64_t kMaxHeaderBytes = 256 * 1024;

/// What a transport reports to the worker that owns it. Implemented by Worker.
class TransferHost {
 public:
  /// One response header line of `t` (status line, field, or the blank end), received at `at`;
  /// false when it ended the transfer.
  virtual bool header_line(Transfer& t, std::string_view line, core::Nanos at) = 0;
  /// Body bytes of `t` received at `at`; false when they ended the transfer.
  virtual bool body_bytes(Transfer& t, std::string_view data, core::Nanos at) = 0;
  /// The attempt of `t` ended at the transport with `result` (CURLE_OK: its reply is complete;
  /// otherwise t.rec.error says why when t.aborted). The transport has let go of it, or lets go
  /// in close().
  virtual void finish(Transfer& t, CURLcode result) = 0;
  /// The read whose bytes follow was made `lag` after the kernel received them (the read lag,
  /// core/read_lag.h), or its lag is unknown (kNever: no kernel stamp). Native transports only.
  virtual void note_read(core::Nanos lag) = 0;

 protected:
  ~TransferHost() = default;
};

/// Everything a transport is built with: the engine's settings, the run's clock, the worker's
/// epoll descriptor (a transport registers its own sockets on it, their data words made with
/// Transport::tag) and the worker to report to.
struct TransportContext {
  const EngineConfig& config;
  const core::RunClock& clock;
  int epoll_fd;
  TransferHost& host;
  std::uint32_t id;  // the transport's number in the worker's epoll data words (1..3)
};

/// Where an attempt stands at its transport (Worker::expire_waits).
enum class Stage {
  kIdle,        ///< nothing at the transport (not started, waiting out a backoff, or ended)
  kConnecting,  ///< its connection is being set up (TCP, TLS)
  kExchanging,  ///< sent or being sent, the reply awaited or being read
};

/// What a transport knows of an attempt that ended, beyond the bytes it reported.
struct AttemptFacts {
  long status = 0;                       ///< the HTTP status (0: none)
  std::string_view location;             ///< a redirect's target ("" when none)
  const char* error = "";                ///< the transport's own words for a failure ("" when none)
  core::Nanos connected = core::kNever;  ///< the connection's set-up ended (per-request mode)
};

/// A transport's state of each request, kept by Transfer::index: made at the request's first
/// attempt on this transport (its `owner` and `transfer` set), then reused by its later attempts
/// and by the requests that reuse the Transfer. Owned by the transport; not thread-safe.
template <typename Attempt>
class AttemptSlots {
 public:
  /// The attempt of `t`, made now with `owner` when it has none (then `*made`, if given, is true).
  template <typename Owner>
  Attempt& of(Transfer& t, Owner* owner, bool* made = nullptr) {
    if (t.index >= slots_.size()) slots_.resize(t.index + 1);
    std::unique_ptr<Attempt>& a = slots_[t.index];
    if (made != nullptr) *made = a == nullptr;
    if (a == nullptr) {
      a = std::make_unique<Attempt>();
      a->owner = owner;
      a->transfer = &t;
    }
    return *a;
  }
  /// The attempt of `t`, or null when it never had one here.
  Attempt* find(const Transfer& t) const {
    return t.index < slots_.size() ? slots_[t.index].get() : nullptr;
  }
  /// Every attempt made so far (null where a Transfer never came here).
  const std::vector<std::unique_ptr<Attempt>>& all() const { return slots_; }

 private:
  std::vector<std::unique_ptr<Attempt>> slots_;
};

/// One way of carrying requests. A worker owns one per kind it needs; not thread-safe.
class Transport {
 public:
  explicit Transport(const TransportContext& context) : context_(context) {}
  virtual ~Transport() = default;
  Transport(const Transport&) = delete;
  Transport& operator=(const Transport&) = delete;

  /// Starts the attempt of `t` (fresh per-attempt state set by the worker): on an open
  /// connection or a new one (connect), the request written as soon as it can be. Stamps
  /// t.rec.sent. A failure to start ends it at once through TransferHost::finish.
  virtual void submit(Transfer& t) = 0;
  /// epoll reported `events` (EPOLLIN: readable, EPOLLOUT: writable, EPOLLERR/EPOLLHUP) for the
  /// socket whose data word carried `key` (Transport::key_of).
  virtual void on_events(std::uint64_t key, std::uint32_t events) = 0;
  /// Lets go of the attempt of `t` (its handle, stream or connection) before the worker ends it;
  /// nothing when the transport holds nothing of it.
  virtual void close(Transfer& t) = 0;
  /// What the transport knows of the attempt of `t`, which ended (after close()).
  virtual AttemptFacts facts(Transfer& t) = 0;
  /// Where the attempt of `t` stands.
  virtual Stage stage(const Transfer& t) const = 0;
  /// The transport enforces --connect-timeout and --timeout itself (libcurl); otherwise the
  /// worker's expire_waits does.
  virtual bool times_itself() const { return false; }

  /// Work due now before the loop waits (libcurl's "timeout now"); true when it did some, so
  /// that the worker looks at its slots again before waiting.
  virtual bool run_due() { return false; }
  /// After each loop turn's events: deferred work (libcurl's timeouts and finished transfers,
  /// HTTP/2's refused streams sent again).
  virtual void after_events() {}
  /// When the loop must wake for this transport (kNever: no need).
  virtual core::Nanos wake_at() const { return core::kNever; }
  /// The run is being canceled: deferred work is dropped (the transfers are finished by the
  /// worker).
  virtual void drop_deferred() {}

  /// Opens up to `per_endpoint` idle connections to each endpoint it carries before a phase
  /// (HttpEngine::preopen); nothing for a transport that opens none ahead.
  virtual void preopen(std::size_t per_endpoint, core::Nanos deadline) {
    (void)per_endpoint;
    (void)deadline;
  }
  /// Idle connections open now (tests, benchmarks).
  virtual std::size_t idle_connections() const { return 0; }

  /// The epoll data word of this transport's socket identified by `key` (a pointer aligned to 8,
  /// or a descriptor shifted left by 3); the worker routes its events here by the low 3 bits.
  std::uint64_t tag(std::uint64_t key) const { return key | context_.id; }
  static std::uint64_t key_of(std::uint64_t tag) { return tag & ~kIdMask; }
  static std::uint32_t id_of(std::uint64_t tag) {
    return static_cast<std::uint32_t>(tag & kIdMask);
  }
  static constexpr std::uint64_t kIdMask = 7;

 protected:
  const EngineConfig& config() const { return context_.config; }
  const core::RunClock& clock() const { return context_.clock; }
  TransferHost& host() const { return context_.host; }
  int epoll_fd() const { return context_.epoll_fd; }

 private:
  TransportContext context_;
};

}  // namespace tokenbench::client
