#include "sse_floor.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace tokenbench::bench {
namespace {

constexpr std::string_view kHead =
    "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\n"
    "Transfer-Encoding: chunked\r\n\r\n";
constexpr std::string_view kNotFound =
    "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n";

std::string chunk(const std::string& body) {
  std::array<char, 16> size{};
  const int n = std::snprintf(size.data(), size.size(), "%zx\r\n", body.size());
  return std::string(size.data(), static_cast<std::size_t>(n)) + body + "\r\n";
}

std::string event(std::string_view delta, std::string_view finish) {
  return std::string(
             "data: {\"id\":\"chatcmpl-floor\",\"object\":\"chat.completion.chunk\",\"created\":0,"
             "\"model\":\"sim-model\",\"choices\":[{\"index\":0,\"delta\":") +
         std::string(delta) + ",\"finish_reason\":" + std::string(finish) + "}]}\n\n";
}

struct Conn {
  int fd = -1;
  std::string in;
  int sent = -1;  // tokens written; -1 while no reply streams
};

// Writes all of `bytes` or gives up on the connection (a full socket buffer does not happen at
// these rates on loopback; the floor does not pay for handling it).
bool write_all(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n <= 0) return false;
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

}  // namespace

void run_floor_server(int itl_us, int tokens, int port_fd) {
  const std::string token_bytes = chunk(event(R"({"content":" tok"})", "null"));
  const std::string first_bytes =
      std::string(kHead) + chunk(event(R"({"role":"assistant","content":" tok"})", "null"));
  const std::string last_bytes =
      chunk(event(R"({"content":" tok"})", "null") + event("{}", "\"length\"") +
            "data: {\"id\":\"chatcmpl-floor\",\"object\":\"chat.completion.chunk\",\"created\":0,"
            "\"model\":\"sim-model\",\"choices\":[],\"usage\":{\"prompt_tokens\":16,"
            "\"completion_tokens\":" +
            std::to_string(tokens) + ",\"total_tokens\":" + std::to_string(tokens + 16) +
            "}}\n\ndata: [DONE]\n\n") +
      "0\r\n\r\n";

  const int lfd = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
  const int one = 1;
  ::setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::bind(lfd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      ::listen(lfd, 4096) != 0) {
    std::_Exit(1);
  }
  socklen_t len = sizeof addr;
  ::getsockname(lfd, reinterpret_cast<sockaddr*>(&addr), &len);
  const std::uint16_t port = ntohs(addr.sin_port);
  if (::write(port_fd, &port, sizeof port) != sizeof port) std::_Exit(1);
  ::close(port_fd);

  const int ep = ::epoll_create1(0);
  const int tfd = ::timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK);
  itimerspec period{};
  period.it_interval.tv_sec = itl_us / 1'000'000;
  period.it_interval.tv_nsec = static_cast<long>(itl_us % 1'000'000) * 1000;
  period.it_value = period.it_interval;
  ::timerfd_settime(tfd, 0, &period, nullptr);
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.fd = lfd;
  ::epoll_ctl(ep, EPOLL_CTL_ADD, lfd, &ev);
  ev.data.fd = tfd;
  ::epoll_ctl(ep, EPOLL_CTL_ADD, tfd, &ev);

  std::unordered_map<int, std::unique_ptr<Conn>> conns;
  std::vector<Conn*> streaming;
  auto drop = [&](Conn* c) {
    streaming.erase(std::remove(streaming.begin(), streaming.end(), c), streaming.end());
    ::close(c->fd);
    conns.erase(c->fd);
  };
  std::array<epoll_event, 256> events{};
  std::array<char, 65536> buf{};
  for (;;) {
    const int n = ::epoll_wait(ep, events.data(), static_cast<int>(events.size()), -1);
    for (int i = 0; i < n; ++i) {
      const int fd = events[i].data.fd;
      if (fd == lfd) {
        for (int cfd; (cfd = ::accept4(lfd, nullptr, nullptr, SOCK_NONBLOCK)) >= 0;) {
          ::setsockopt(cfd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
          ev.data.fd = cfd;
          ::epoll_ctl(ep, EPOLL_CTL_ADD, cfd, &ev);
          conns[cfd] = std::make_unique<Conn>(Conn{cfd, {}, -1});
        }
      } else if (fd == tfd) {
        std::uint64_t expirations = 0;
        if (::read(tfd, &expirations, sizeof expirations) < 0) continue;
        // One event per streaming connection per tick, all at the same instant.
        for (std::size_t k = 0; k < streaming.size();) {
          Conn* c = streaming[k];
          const std::string& bytes =
              c->sent == 0 ? first_bytes : (c->sent + 1 == tokens ? last_bytes : token_bytes);
          if (!write_all(c->fd, bytes)) {
            drop(c);
            continue;
          }
          if (++c->sent == tokens) {
            c->sent = -1;
            streaming[k] = streaming.back();
            streaming.pop_back();
            continue;
          }
          ++k;
        }
      } else {
        auto it = conns.find(fd);
        if (it == conns.end()) continue;
        Conn* c = it->second.get();
        const ssize_t got = ::read(fd, buf.data(), buf.size());
        if (got <= 0) {
          drop(c);
          continue;
        }
        c->in.append(buf.data(), static_cast<std::size_t>(got));
        const auto end = c->in.find("\r\n\r\n");
        if (end == std::string::npos || c->sent >= 0) continue;
        if (c->in.rfind("GET", 0) == 0) {
          write_all(fd, kNotFound);
          drop(c);
          continue;
        }
        std::size_t length = 0;
        const auto cl = c->in.find("Content-Length:");
        if (cl != std::string::npos && cl < end)
          length = std::strtoul(c->in.c_str() + cl + 15, nullptr, 10);
        if (c->in.size() < end + 4 + length) continue;
        c->in.erase(0, end + 4 + length);
        c->sent = 0;
        streaming.push_back(c);
      }
    }
  }
}

}  // namespace tokenbench::bench
