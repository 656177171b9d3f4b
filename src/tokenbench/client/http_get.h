#pragma once

#include <string>
#include <vector>

namespace tokenbench::client {

/// The outcome of a blocking GET.
struct HttpGetResult {
  bool transport_ok = false;  ///< false: no HTTP reply at all (see error)
  long status = 0;
  std::string body;
  std::string error;  ///< libcurl's message when !transport_ok
};

/// Initialises libcurl once per process (thread-safe; idempotent). Every entry point calls it.
void ensure_curl_initialized();

/// A blocking GET for start-up work (preflight, /v1/models), never for the measured load.
/// `headers` are full header lines. Thread-safe (one easy handle per call).
HttpGetResult http_get(const std::string& url, const std::vector<std::string>& headers,
                       double timeout_s);

}  // namespace tokenbench::client
