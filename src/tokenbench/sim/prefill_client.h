#pragma once

#include <atomic>
#include <chrono>
#include <string>
#include <string_view>

namespace tokenbench::sim {

/// Where a decode worker (`--role decode`) sends its prefills: `--prefill-url http://HOST[:PORT]
/// [/PREFIX]`. Plain data.
struct PrefillTarget {
  std::string url;     ///< as given, for messages
  std::string host;    ///< without brackets
  std::string port;    ///< "80" when the URL names none
  std::string prefix;  ///< path before the request's own path; empty or "/..." without a final '/'
};

/// Parses a prefill URL. Throws std::invalid_argument with a one-line message when it is not
/// `http://HOST[:PORT][/PREFIX]`.
PrefillTarget parse_prefill_url(std::string_view url);

/// The body sent to the prefill worker: the client's JSON body with "max_tokens":1 and
/// "stream":false (and no "stream_options"), as vLLM's disaggregated proxy sends it. Pure.
std::string prefill_body(std::string_view body);

/// The outcome of one prefill call. Plain data.
struct PrefillResult {
  bool ok = false;
  std::string error;  ///< why it failed (names the URL), when !ok
};

/// Sends `body` as `POST <prefix><path>` over plain HTTP/1.1 to `target` and waits for a whole
/// reply (200 is success; any other status, a refused connection or a timeout is a failure).
/// `authorization`, when not empty, is sent as the Authorization header. Blocking: runs on one of
/// the server's helper threads, never on an io loop. Gives up after `timeout`, or within about
/// 0.1 s of `stopping` turning true.
PrefillResult call_prefill(const PrefillTarget& target, std::string_view path,
                           std::string_view body, std::string_view authorization,
                           std::chrono::milliseconds timeout, const std::atomic<bool>& stopping);

}  // namespace tokenbench::sim
