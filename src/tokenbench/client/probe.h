#pragma once

#include <string>
#include <vector>

#include "tokenbench/client/tls_options.h"
#include "tokenbench/core/run_config.h"

namespace tokenbench::client {

/// A server to check, as `tokenbench check` and `run`'s preflight see it. Plain data.
struct ProbeTarget {
  std::string shown_url;  ///< the base URL without credentials (printed)
  std::string base_url;   ///< the base URL as used (may hold user:password@)
  std::string endpoint = "/v1/chat/completions";
  core::ApiKind api = core::ApiKind::kOpenAIChat;
  std::string model;                 ///< empty: the first id of GET /v1/models
  std::vector<std::string> headers;  ///< full header lines, credentials included (never shown)
  std::string key_origin;            ///< where the key came from, in words (client::key_origin)
  double timeout_s = 10;             ///< per step
  bool stream_request = true;        ///< end with one tiny streamed request
  bool http2 = false;                ///< every step over HTTP/2 (run --http2), the GETs included
  TlsOptions tls;                    ///< whom https trusts (--cacert, --insecure), every step
};

/// One step of a check: what was tried, how it went, how long it took, and what to do about it.
struct ProbeStep {
  enum class Status { kOk, kWarn, kFail, kSkipped };
  std::string name;
  Status status = Status::kSkipped;
  double ms = -1;      ///< -1: not timed
  std::string detail;  ///< one line (server text escaped by the caller when printed)
  std::string hint;    ///< what to try when it failed or warned; may be empty
};

struct ProbeResult {
  std::vector<ProbeStep> steps;
  std::string model;  ///< the model the server serves (or --model), when known
  bool ok() const;    ///< no step failed
};

/// Checks a server step by step: name resolution, TCP connect, TLS, authentication and
/// GET /v1/models, then (stream_request) one tiny streamed request through the load engine, so
/// that it is classified exactly as a benchmark's request would be. Steps after a failure are
/// skipped. Blocking; each step bounded by target.timeout_s.
ProbeResult probe(const ProbeTarget& target);

/// `text` with the credentials of `headers` (client::add_header_secrets) replaced by <redacted>.
std::string redact_all(std::string text, const std::vector<std::string>& headers);

}  // namespace tokenbench::client
