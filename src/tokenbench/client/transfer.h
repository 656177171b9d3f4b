#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "tokenbench/client/http_engine.h"
#include "tokenbench/client/request_id.h"
#include "tokenbench/client/sse_parser.h"
#include "tokenbench/core/request.h"

namespace tokenbench::client {

class Transport;

/// One request in flight, as the worker sees it whatever carries it: its stream state and the
/// record being filled. What a transport keeps per request (a curl handle, a connection, an
/// HTTP/2 stream) lives in that transport, found by `index`. Owned by a Worker's pool and reused
/// for later requests.
struct Transfer {
  std::uint32_t index = 0;         // its place in the worker's pool (transports' state)
  Transport* transport = nullptr;  // what carries the current attempt
  const core::RequestSpec* spec = nullptr;
  std::uint32_t endpoint = 0;  // whose URL and headers the attempt uses
  bool stream = true;          // this request asks for a stream (not one of --nonstream-sample)
  bool counted = false;        // its attempt is counted in RouteState::attempts
  core::RequestRecord rec;
  SseParser sse;
  std::string body;  // non-streamed or error reply (bounded)
  long status = 0;
  bool status_known = false;
  bool event_stream = false;
  bool done_seen = false;
  bool aborted = false;  // the engine ended the transfer itself; rec.error says why
  bool active = false;   // in flight (between start and finish), backoff waits included
  const std::string* request_body = nullptr;
  std::shared_ptr<const void> hold;  // owns spec and request_body when the source made them
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
  // Content chunks from the second on whose read lag was known, and those read late: more than
  // the request's mean inter-chunk gap so far after the kernel received them, or in one read
  // with the chunk after them (rec.read_late_share).
  std::int32_t chunks_judged = 0;
  std::int32_t chunks_late = 0;
  bool last_chunk_late = false;  // the latest chunk judged is counted late
  // The request's identity (EngineConfig::request_ids) and its header lines, filled by the
  // transport at each attempt without allocating.
  TraceId trace;
  IdHeaders id_headers;
  std::string location;  // the reply's Location header (redirects), from header_line

  /// Ends the transfer as the engine's own decision: `error` with `message`.
  void abort(core::ErrorClass error, std::string_view message) {
    aborted = true;
    rec.error = error;
    rec.error_message.assign(message);
  }
};

}  // namespace tokenbench::client
