#pragma once

// The listening socket of the test servers: 127.0.0.1 on a free port.

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <algorithm>
#include <cctype>
#include <string>

namespace tokenbench::testing {

/// A socket listening on 127.0.0.1 at a free port, which goes to `port`.
template <typename Port>
int listen_on_loopback(Port& port, int backlog = 64) {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  const int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
  listen(fd, backlog);
  socklen_t len = sizeof addr;
  getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  port = static_cast<Port>(ntohs(addr.sin_port));
  return fd;
}

/// One HTTP/1.1 request read whole from `fd`: its head ("\r\n\r\n" included) and a body of the
/// head's Content-Length. "" when the peer closed, or its receive timeout passed, first.
inline std::string read_http_request(int fd) {
  const auto content_length = [](std::string head) -> std::size_t {
    std::transform(head.begin(), head.end(), head.begin(),
                   [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
    const auto at = head.find("\r\ncontent-length:");
    return at == std::string::npos ? 0 : static_cast<std::size_t>(std::stoul(head.substr(at + 17)));
  };
  std::string data;
  char buf[65536];
  std::size_t head_end = std::string::npos;
  while (true) {
    if (head_end == std::string::npos) head_end = data.find("\r\n\r\n");
    if (head_end != std::string::npos &&
        data.size() >= head_end + 4 + content_length(data.substr(0, head_end + 2))) {
      return data;
    }
    const ssize_t n = recv(fd, buf, sizeof buf, 0);
    if (n <= 0) return "";
    data.append(buf, static_cast<std::size_t>(n));
  }
}

}  // namespace tokenbench::testing
