#pragma once

#include <curl/curl.h>

#include <string>

#include "tokenbench/core/request.h"

namespace tokenbench::client {

/// Sets record.error and record.error_message for a transfer that libcurl ended with `result`.
/// `got_content` tells whether output had already arrived (a reset mid-stream is a cut stream, a
/// reset before any reply a connection failure); `got_headers` whether the response headers were
/// complete. `curl_error` is libcurl's error buffer (may be "").
void classify_transport_error(CURLcode result, const char* curl_error, bool got_content,
                              bool got_headers, core::RequestRecord& record);

/// Sets record.error and record.error_message for a completed reply with a non-2xx HTTP status:
/// 429 is rate_limited, other 4xx http_4xx, 5xx http_5xx, 3xx redirect, anything else malformed.
void classify_http_status(int status, const std::string& message, core::RequestRecord& record);

}  // namespace tokenbench::client
