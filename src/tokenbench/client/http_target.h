#pragma once

#include <sys/socket.h>

#include <cstdint>
#include <optional>
#include <string>

namespace tokenbench::client {

/// Where the native HTTP/1.1 transport sends an endpoint's requests: an http:// or https:// URL
/// that no proxy from the environment applies to, resolved once. Plain data.
struct HttpTarget {
  std::string host;  ///< as written in the URL (brackets removed from IPv6)
  bool tls = false;  ///< https://
  std::uint16_t port = 80;
  std::string path;         ///< the request target: path and query, at least "/"
  std::string host_header;  ///< the Host header's value (host, and ":port" unless 80)
  sockaddr_storage address{};
  socklen_t address_len = 0;
  std::string resolve_error;  ///< non-empty when the host did not resolve: requests fail with it
};

/// The proxy variable (http_proxy, all_proxy, ALL_PROXY) that applies to `url` as libcurl reads
/// them, honouring no_proxy / NO_PROXY; "" when none does.
std::string proxy_for(const std::string& url);

/// `url` as a native target, or nullopt with `why_not` set when the native transport cannot carry
/// it (neither http:// nor https://, or a proxy applies): libcurl carries those.
std::optional<HttpTarget> native_target(const std::string& url, std::string& why_not);

/// Opens a non-blocking TCP connection to `target` (the connect may still be in progress), with
/// TCP_NODELAY. Returns the descriptor, or -1 with `error` set (errno kept).
int open_connection(const HttpTarget& target, std::string& error);

/// Why a connection to `target` failed with `error` (an errno), as libcurl words it ("Failed to
/// connect to HOST port N: ..."), with the remedy when the ephemeral ports ran out.
std::string connect_failure(const HttpTarget& target, int error);

}  // namespace tokenbench::client
