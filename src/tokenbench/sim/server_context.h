#pragma once

#include <atomic>
#include <boost/asio/thread_pool.hpp>
#include <cstdint>
#include <memory>
#include <string>

#include "tokenbench/sim/engine_runner.h"
#include "tokenbench/sim/fault_injector.h"
#include "tokenbench/sim/prefill_client.h"
#include "tokenbench/sim/request_log.h"
#include "tokenbench/sim/router.h"
#include "tokenbench/sim/sim_config.h"
#include "tokenbench/sim/sim_metrics.h"
#include "tokenbench/sim/write_lateness.h"

namespace tokenbench::sim {

/// State shared by every connection of one SimServer (internal to sim/). Owned by the server and
/// outlives all of its sessions. Everything is immutable after construction except
/// `next_arrival` (any io thread may increment it), `metrics` and `request_log` (internally
/// locked), `lateness` (per loop) and `engine` (its submit() and cancel() are safe from any
/// thread).
struct ServerContext {
  explicit ServerContext(SimConfig c);

  SimConfig config;
  FaultInjector faults;
  SimMetrics metrics;
  std::unique_ptr<EngineRunner> engine;  ///< null in fixed-delay mode
  /// Null unless config.measure_lateness; each io loop records into its own slot.
  std::unique_ptr<WriteLateness> lateness;
  /// Null unless config.request_log names a file (internally locked).
  std::unique_ptr<RequestLog> request_log;
  std::string model_json;     ///< the served model name, JSON-escaped once
  std::string models_reply;   ///< the body of GET /v1/models
  std::string version_reply;  ///< the body of GET /version
  /// Header lines every response carries (X-Sim-Time-Scale), each ending in "\r\n".
  std::string response_headers;
  /// What routing needs (route_request()): views into `config`.
  RouterConfig router;
  /// The largest request body read (request_body_limit of config.max_model_len).
  std::uint64_t body_limit = 0;
  /// The arrival index of the next accepted completion request (0-based).
  std::atomic<std::uint64_t> next_arrival{0};
  /// Where request bodies over kInlineRouteBytes are routed (checked and parsed), off the io
  /// loops, so that parsing a large body never stalls the streams a loop writes. One thread: big
  /// bodies are parsed one at a time, which also bounds the memory their parses take together.
  /// SimServer::stop() joins it before the loops (and the sessions its tasks hold) are destroyed.
  std::unique_ptr<boost::asio::thread_pool> route_pool;
  /// Role::kDecode: the prefill worker, and the helper threads that call it (blocking HTTP, off
  /// the io loops); null otherwise. SimServer::stop() sets `stopping` and joins the pool.
  PrefillTarget prefill;
  std::unique_ptr<boost::asio::thread_pool> prefill_pool;
  std::atomic<bool> stopping{false};
};

/// Helper threads of a decode worker: prefill calls in flight at once.
inline constexpr std::size_t kPrefillThreads = 8;

/// Bodies up to this size are routed on their io loop (a parse of well under a millisecond);
/// larger ones on ServerContext::route_pool.
inline constexpr std::size_t kInlineRouteBytes = 64u << 10;

}  // namespace tokenbench::sim
