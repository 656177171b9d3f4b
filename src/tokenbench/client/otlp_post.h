#pragma once

// Sends an OpenTelemetry metrics export (report/otlp_export.h builds it) to an OTLP/HTTP
// collector: --otlp-endpoint at a run's end, and `tokenbench report DIR --otlp-endpoint`.

#include <string>
#include <vector>

#include "tokenbench/client/http_get.h"

namespace tokenbench::client {

/// The URL an export to `endpoint` is POSTed to: `endpoint` + "/v1/metrics" (OTLP/HTTP's path
/// for metrics) when it has no path or only "/", else `endpoint` as given (a collector behind a
/// path of its own). Pure.
std::string otlp_metrics_url(const std::string& endpoint);

/// otlp_metrics_url(endpoint) as messages show it: without user-info, the values of credential
/// query parameters redacted, on one line. Pure.
std::string shown_otlp_url(const std::string& endpoint);

/// "NAME=VALUE" items (--otlp-header) as header lines "NAME: VALUE"; an item without '=' is
/// left out (core::validate_run refuses it first). Pure.
std::vector<std::string> otlp_header_lines(const std::vector<std::string>& items);

/// POSTs `body` (OTLP JSON) to otlp_metrics_url(endpoint) with Content-Type application/json
/// and `headers` (otlp_header_lines), over `options`' TLS settings, within `timeout_s`.
/// Returns "" when the collector answered 2xx; else one line saying why, naming the URL (its
/// user-info and the values of credential query parameters redacted) and the HTTP status or
/// the connection's error, never a header's value. Blocking; thread-safe.
std::string post_otlp_metrics(const std::string& endpoint, const std::vector<std::string>& headers,
                              const std::string& body, const HttpGetOptions& options = {},
                              double timeout_s = 10);

}  // namespace tokenbench::client
