#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "tokenbench/core/request.h"

namespace tokenbench::client {

/// The identity of one request of a run, sent as `X-Request-Id` and in a W3C `traceparent`
/// header so that a client record can be joined with the server's logs and traces.
///
/// The trace id (32 hex digits) is also the request id: its high 64 bits are the run id (random
/// per run), its low 64 bits a bijective mix of (phase, target, record id), so two requests of
/// one run never share an id and ids of different runs differ with overwhelming probability.
/// Every attempt of a request (--retries) keeps the trace id and X-Request-Id; the span id
/// (traceparent's parent-id) differs per attempt, since each attempt is its own HTTP call.
struct TraceId {
  std::uint64_t high = 0;
  std::uint64_t low = 0;
};

/// A fresh run id from std::random_device mixed with the wall clock; never 0.
std::uint64_t new_run_id();

/// The trace id of record `id` of `phase` for `target` (RequestSpec::target) in run `run_id`.
/// Pure; never all zero when run_id is not 0.
TraceId make_trace_id(std::uint64_t run_id, core::Phase phase, std::uint32_t target,
                      std::uint64_t id);

/// The span id of attempt `attempt` of the request with `trace`: never 0.
std::uint64_t make_span_id(const TraceId& trace, std::uint32_t attempt);

/// The request id: the trace id as 32 lowercase hex digits.
std::string request_id_text(const TraceId& trace);

/// The two header lines of one attempt, NUL-terminated, formatted without allocating (the
/// worker fills them as it launches an attempt).
struct IdHeaders {
  static constexpr std::size_t kRequestIdLen = 14 + 32;    // "X-Request-Id: " + id
  static constexpr std::size_t kTraceparentLen = 13 + 55;  // "traceparent: " + value
  std::array<char, kRequestIdLen + 1> request_id{};        ///< "X-Request-Id: <32 hex>"
  std::array<char, kTraceparentLen + 1> traceparent{};     ///< "traceparent: 00-T-S-01"

  /// Fills both lines for attempt `attempt` of the request with `trace`.
  void fill(const TraceId& trace, std::uint32_t attempt);
};

}  // namespace tokenbench::client
