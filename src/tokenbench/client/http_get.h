#pragma once

#include <curl/curl.h>

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "tokenbench/client/tls_options.h"
#include "tokenbench/core/run_config.h"

namespace tokenbench::client {

/// The outcome of a blocking GET.
struct HttpGetResult {
  bool transport_ok = false;  ///< false: no HTTP reply at all (see error)
  long status = 0;
  std::string body;
  std::string server_header;  ///< the reply's `Server:` header ("" when none), at most 256 bytes
  std::string error;          ///< libcurl's message when !transport_ok
  std::string location;       ///< a redirect's `Location:` ("" when none), at most 512 bytes
  std::string content_type;   ///< the reply's `Content-Type:` ("" when none), at most 256 bytes
  /// --http2 to an http:// URL: the server answered the h2 preface in HTTP/1.x (it does not speak
  /// h2c); `error` says so and to drop --http2.
  bool http1_answer = false;
  CURLcode code = CURLE_OK;  ///< libcurl's result
  /// Milliseconds from the start to: the name resolved, the TCP connection, the TLS handshake
  /// (0 for http://), the first response byte, the end; -1 when not reached.
  double resolve_ms = -1;
  double connect_ms = -1;
  double tls_ms = -1;
  double first_byte_ms = -1;
  double total_ms = -1;
};

/// The most bytes of a reply body http_get keeps; a longer reply fails (transport_ok false).
inline constexpr std::size_t kMaxGetBody = std::size_t{4} << 20;

/// Initialises libcurl once per process (thread-safe; idempotent). Every entry point calls it.
void ensure_curl_initialized();

/// Applies `tls` (client/tls_options.h) to a libcurl handle.
void apply_tls_options(CURL* easy, const TlsOptions& tls);

/// Why libcurl cannot carry `url` over HTTP/2 here, or "" when it can: libcurl before 8.0 (Debian
/// 12 has 7.88) breaks a reused h2c prior-knowledge connection ("Error in the HTTP2 framing
/// layer", curl issue 10634), so http:// with --http2 needs the native transport.
std::string curl_http2_problem(const std::string& url);

/// How http_get reaches servers: the run's TLS trust and the servers that speak HTTP/2. Plain
/// data; the default trusts the system's store and speaks HTTP/1.1 everywhere.
struct HttpGetOptions {
  TlsOptions tls;
  /// The servers that speak HTTP/2 (--http2): http_get asks URLs under these base URLs (the same
  /// origin) with h2c prior knowledge (an h2c-only server answers no HTTP/1.1) and ALPN h2 over
  /// TLS.
  std::vector<std::string> http2_servers;
  /// POST this body (JSON) instead of a GET: a server's admin endpoints (--reset-prefix-cache,
  /// --profile). Absent: GET.
  std::optional<std::string> post;
};

/// A run's HttpGetOptions: its --cacert and --insecure, and with --http2 its servers (the base
/// URL, the replicas and the targets'), so that the preflight, the /metrics scraper and other
/// GETs to them speak HTTP/2 too.
HttpGetOptions get_options(const core::RunConfig& config);

/// What a reply (of GET /v1/models) is when it cannot be an API's JSON: "answered HTTP 302, a
/// redirect to URL (tokenbench follows no redirect)", or "answered HTTP 200 with text/html, not
/// JSON"; "" for a JSON reply or a status other than 2xx and 3xx. The server's text is kept as
/// sent: escape it to print it.
std::string non_api_reply(const HttpGetResult& reply);

/// A blocking GET (or POST, with options.post) for start-up and admin work (preflight,
/// /v1/models, /reset_prefix_cache), never for the measured load.
/// `headers` are full header lines. Thread-safe (one easy handle per call).
HttpGetResult http_get(const std::string& url, const std::vector<std::string>& headers,
                       double timeout_s, const HttpGetOptions& options = {});

}  // namespace tokenbench::client
