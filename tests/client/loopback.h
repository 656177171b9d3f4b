#pragma once

// The listening socket of the test servers: 127.0.0.1 on a free port.

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

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

}  // namespace tokenbench::testing
