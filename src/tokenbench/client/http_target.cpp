#include "tokenbench/client/http_target.h"

#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string_view>

namespace tokenbench::client {
namespace {

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr ? std::string(v) : std::string();
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// no_proxy as libcurl reads it: "*", or a comma-separated list of host names or domain suffixes
// (a leading dot optional); ports and CIDR ranges are not interpreted here.
bool exempt(const std::string& host) {
  std::string list = env("no_proxy");
  if (list.empty()) list = env("NO_PROXY");
  if (list.empty()) return false;
  const std::string h = lower(host);
  std::size_t start = 0;
  while (start <= list.size()) {
    std::size_t end = list.find(',', start);
    if (end == std::string::npos) end = list.size();
    std::string item = lower(list.substr(start, end - start));
    item.erase(0, item.find_first_not_of(" \t"));
    item.erase(item.find_last_not_of(" \t") + 1);
    if (item == "*") return true;
    if (!item.empty() && item[0] == '.') item.erase(0, 1);
    if (!item.empty() && (h == item || (h.size() > item.size() &&
                                        h.compare(h.size() - item.size(), item.size(), item) == 0 &&
                                        h[h.size() - item.size() - 1] == '.'))) {
      return true;
    }
    start = end + 1;
  }
  return false;
}

// Splits "scheme://authority/path" into its parts; false when it is not that shape.
bool split_url(const std::string& url, std::string& scheme, std::string& authority,
               std::string& path) {
  const std::size_t sep = url.find("://");
  if (sep == std::string::npos) return false;
  scheme = lower(std::string_view(url).substr(0, sep));
  const std::size_t start = sep + 3;
  std::size_t end = url.find_first_of("/?#", start);
  if (end == std::string::npos) end = url.size();
  authority = url.substr(start, end - start);
  path = url.substr(end);
  if (const std::size_t hash = path.find('#'); hash != std::string::npos) path.resize(hash);
  if (path.empty() || path[0] != '/') path.insert(0, "/");
  return !authority.empty();
}

}  // namespace

std::string proxy_for(const std::string& url) {
  std::string scheme, authority, path;
  if (!split_url(url, scheme, authority, path)) return {};
  static constexpr const char* kHttps[] = {"https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"};
  // libcurl ignores HTTP_PROXY in capitals (a CGI program's environment could set it).
  static constexpr const char* kHttp[] = {"http_proxy", "all_proxy", "ALL_PROXY", nullptr};
  for (const char* name : scheme == "https" ? kHttps : kHttp) {
    if (name == nullptr) break;
    if (env(name).empty()) continue;
    std::string host = authority.substr(authority.rfind('@') + 1);
    if (!host.empty() && host[0] == '[') {
      host = host.substr(1, host.find(']') - 1);
    } else {
      host = host.substr(0, host.find(':'));
    }
    return exempt(host) ? std::string() : std::string(name);
  }
  return {};
}

std::optional<HttpTarget> native_target(const std::string& url, std::string& why_not) {
  std::string scheme, authority, path;
  if (!split_url(url, scheme, authority, path)) {
    why_not = "not an absolute URL";
    return std::nullopt;
  }
  if (scheme != "http" && scheme != "https") {
    why_not = scheme + ":// is carried by libcurl";
    return std::nullopt;
  }
  if (authority.find('@') != std::string::npos) {
    why_not = "credentials in the URL are carried by libcurl";
    return std::nullopt;
  }
  if (const std::string proxy = proxy_for(url); !proxy.empty()) {
    why_not = proxy + " applies";
    return std::nullopt;
  }
  HttpTarget target;
  target.tls = scheme == "https";
  target.port = target.tls ? 443 : 80;
  target.path = path;
  std::string port;
  if (authority[0] == '[') {
    const std::size_t close = authority.find(']');
    if (close == std::string::npos) {
      why_not = "an unclosed IPv6 address";
      return std::nullopt;
    }
    target.host = authority.substr(1, close - 1);
    if (close + 1 < authority.size() && authority[close + 1] == ':') {
      port = authority.substr(close + 2);
    }
  } else {
    const std::size_t colon = authority.find(':');
    target.host = authority.substr(0, colon);
    if (colon != std::string::npos) port = authority.substr(colon + 1);
  }
  if (!port.empty()) {
    char* end = nullptr;
    const long p = std::strtol(port.c_str(), &end, 10);
    if (*end != '\0' || p <= 0 || p > 65535) {
      why_not = "the port '" + port + "' is not a number from 1 to 65535";
      return std::nullopt;
    }
    target.port = static_cast<std::uint16_t>(p);
  }
  target.host_header = authority;
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  const int rc =
      getaddrinfo(target.host.c_str(), std::to_string(target.port).c_str(), &hints, &found);
  if (rc != 0 || found == nullptr) {
    target.resolve_error = "Could not resolve host: " + target.host + " (" + gai_strerror(rc) + ")";
  } else {
    std::memcpy(&target.address, found->ai_addr, found->ai_addrlen);
    target.address_len = found->ai_addrlen;
  }
  if (found != nullptr) freeaddrinfo(found);
  return target;
}

std::string connect_failure(const HttpTarget& target, int error) {
  return "Failed to connect to " + target.host + " port " + std::to_string(target.port) + ": " +
         std::strerror(error) +
         (error == EADDRNOTAVAIL
              ? " (no local port left: the ephemeral port range is exhausted; widen "
                "net.ipv4.ip_local_port_range, use keep-alive connections, or lower "
                "--max-concurrency)"
              : "");
}

int open_connection(const HttpTarget& target, std::string& error) {
  if (!target.resolve_error.empty()) {
    error = target.resolve_error;
    errno = EHOSTUNREACH;
    return -1;
  }
  const int fd = socket(target.address.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    const int e = errno;
    error = std::string("cannot open a socket: ") + std::strerror(e) +
            (e == EMFILE || e == ENFILE
                 ? " (raise the open-file limit: ulimit -n, or lower --max-concurrency)"
                 : "");
    errno = e;
    return -1;
  }
  const int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  if (connect(fd, reinterpret_cast<const sockaddr*>(&target.address), target.address_len) != 0 &&
      errno != EINPROGRESS) {
    const int e = errno;
    error = connect_failure(target, e);
    close(fd);
    errno = e;
    return -1;
  }
  return fd;
}

}  // namespace tokenbench::client
