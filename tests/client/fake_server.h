#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include "loopback.h"

namespace tokenbench::testing {

/// One piece of a scripted reply: bytes to write, then a pause; `repeat` times (kForever: until
/// the client goes away, for servers that never stop).
struct Piece {
  static constexpr int kForever = -1;
  std::string bytes;
  std::chrono::milliseconds pause{0};
  int repeat = 1;
};

/// A loopback TCP server that answers every request with the same scripted bytes, written in
/// pieces with pauses, then closes the connection (or, with `keep_alive`, waits for the next
/// request on it: the script must then frame its body). For engine tests against server shapes
/// that serve-sim does not produce. Serves connections one at a time on its own thread.
class FakeServer {
 public:
  /// `accept_delay`: a pause before each accept, for a server that is slow to take connections.
  explicit FakeServer(std::vector<Piece> script, bool keep_alive = false,
                      std::chrono::milliseconds accept_delay = std::chrono::milliseconds(0))
      : script_(std::move(script)), keep_alive_(keep_alive), accept_delay_(accept_delay) {
    fd_ = listen_on_loopback(port_);
    thread_ = std::thread([this] { serve(); });
  }

  ~FakeServer() {
    stop_ = true;
    shutdown(fd_, SHUT_RDWR);
    close(fd_);
    thread_.join();
  }

  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  int connections() const { return connections_.load(); }
  int requests() const { return requests_.load(); }

 private:
  void serve() {
    while (!stop_) {
      if (accept_delay_.count() > 0) std::this_thread::sleep_for(accept_delay_);
      const int c = accept(fd_, nullptr, nullptr);
      if (c < 0) return;
      // As real servers do: paced pieces go out at once, not held by Nagle's algorithm until
      // the client's delayed ACK (40 ms) on a kept-alive connection.
      const int one = 1;
      setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
      ++connections_;
      while (read_request(c)) {
        ++requests_;
        bool open = true;
        for (const auto& piece : script_) {
          for (int i = 0; open && !stop_ && (piece.repeat < 0 || i < piece.repeat); ++i) {
            if (!piece.bytes.empty()) open = write_all(c, piece.bytes);
            if (piece.pause.count() > 0) std::this_thread::sleep_for(piece.pause);
          }
        }
        if (!keep_alive_) break;
      }
      close(c);
    }
  }

  // False when the peer is gone.
  static bool write_all(int c, const std::string& bytes) {
    std::size_t done = 0;
    while (done < bytes.size()) {
      const ssize_t n = send(c, bytes.data() + done, bytes.size() - done, MSG_NOSIGNAL);
      if (n <= 0) return false;
      done += static_cast<std::size_t>(n);
    }
    return true;
  }

  // Reads the request headers and its Content-Length body; false when the peer closed.
  static bool read_request(int c) {
    std::string req;
    char buf[4096];
    std::size_t need = std::string::npos;
    while (need == std::string::npos || req.size() < need) {
      const ssize_t n = read(c, buf, sizeof buf);
      if (n <= 0) return false;
      req.append(buf, static_cast<std::size_t>(n));
      const auto end = req.find("\r\n\r\n");
      if (need == std::string::npos && end != std::string::npos) {
        std::size_t body = 0;
        const auto cl = req.find("Content-Length: ");
        if (cl != std::string::npos) body = std::stoul(req.substr(cl + 16));
        need = end + 4 + body;
      }
    }
    return true;
  }

  std::vector<Piece> script_;
  bool keep_alive_ = false;
  std::chrono::milliseconds accept_delay_{0};
  int fd_ = -1;
  std::uint16_t port_ = 0;
  std::atomic<bool> stop_{false};
  std::atomic<int> connections_{0};
  std::atomic<int> requests_{0};
  std::thread thread_;
};

}  // namespace tokenbench::testing
