#pragma once

// A small blocking HTTP/1.1 client for the simulator's tests: raw loopback sockets with a receive
// timeout, chunked decoding, and SSE events stamped with their arrival time. Test-only.

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "tokenbench/sim/sim_server.h"

namespace tokenbench::sim::testing {

using TestClock = std::chrono::steady_clock;

/// One SSE event: its data payload and when the bytes that completed it arrived.
struct SseEvent {
  std::string data;
  TestClock::time_point at;
};

/// One HTTP reply as the client saw it.
struct HttpReply {
  int status = 0;
  std::map<std::string, std::string> headers;  ///< keys lower-cased
  std::string body;                            ///< de-chunked
  bool chunked = false;
  bool complete = false;  ///< Content-Length reached, or the last (zero) chunk seen
  bool closed = false;    ///< the server closed the connection
  TestClock::time_point headers_at;
  std::vector<SseEvent> events;

  std::string header(const std::string& key) const {
    const auto it = headers.find(key);
    return it == headers.end() ? std::string() : it->second;
  }
};

/// A blocking connection to 127.0.0.1:port. Every read gives up after `timeout_s` seconds.
class TestConnection {
 public:
  explicit TestConnection(std::uint16_t port, int timeout_s = 10) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    if (fd_ < 0) throw std::runtime_error("socket() failed");
    timeval tv{timeout_s, 0};
    ::setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    int one = 1;
    ::setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(port);
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
      ::close(fd_);
      throw std::runtime_error("connect() failed");
    }
  }
  ~TestConnection() { ::close(fd_); }
  TestConnection(const TestConnection&) = delete;
  TestConnection& operator=(const TestConnection&) = delete;

  void send_raw(std::string_view bytes) {
    while (!bytes.empty()) {
      const ssize_t n = ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
      if (n <= 0) throw std::runtime_error("send() failed");
      bytes.remove_prefix(static_cast<std::size_t>(n));
    }
  }

  /// Sends one request. `extra_headers` are whole lines ending in "\r\n".
  void send_request(std::string_view method, std::string_view path, std::string_view body = {},
                    std::string_view extra_headers = {}) {
    std::string req = std::string(method) + " " + std::string(path) + " HTTP/1.1\r\n";
    req += "Host: 127.0.0.1\r\n";
    req += extra_headers;
    if (!body.empty() || method == "POST") {
      req += "Content-Type: application/json\r\nContent-Length: " + std::to_string(body.size()) +
             "\r\n";
    }
    req += "\r\n";
    req += body;
    send_raw(req);
  }

  /// Reads one reply (headers and body), stamping SSE events as they complete.
  HttpReply read_reply() {
    HttpReply reply;
    std::size_t header_end;
    while ((header_end = buf_.find("\r\n\r\n")) == std::string::npos) {
      if (!fill()) {
        reply.closed = true;
        return reply;
      }
    }
    reply.headers_at = TestClock::now();
    parse_head(buf_.substr(0, header_end), reply);
    buf_.erase(0, header_end + 4);
    if (reply.status == 100) {  // an interim reply has no body
      reply.complete = true;
      return reply;
    }
    reply.chunked = reply.header("transfer-encoding") == "chunked";
    if (!reply.chunked) {
      const std::size_t length = std::strtoull(reply.header("content-length").c_str(), nullptr, 10);
      while (buf_.size() < length) {
        if (!fill()) break;
      }
      reply.body = buf_.substr(0, std::min(length, buf_.size()));
      buf_.erase(0, reply.body.size());
      reply.complete = reply.body.size() == length;
      reply.closed = reply.closed || closed_;
      return reply;
    }
    std::size_t event_start = 0;
    for (;;) {
      // Decode every whole chunk in the buffer.
      for (;;) {
        const std::size_t line_end = buf_.find("\r\n");
        if (line_end == std::string::npos) break;
        const std::size_t size = std::strtoull(buf_.substr(0, line_end).c_str(), nullptr, 16);
        if (size == 0) {
          if (buf_.size() < line_end + 4) break;
          buf_.erase(0, line_end + 4);
          reply.complete = true;
          collect_events(reply, event_start, last_read_);
          return reply;
        }
        if (buf_.size() < line_end + 2 + size + 2) break;
        reply.body.append(buf_, line_end + 2, size);
        buf_.erase(0, line_end + 2 + size + 2);
      }
      collect_events(reply, event_start, last_read_);
      if (!fill()) {
        reply.closed = true;
        return reply;
      }
    }
  }

  /// True when the server has closed the connection (reads EOF within the timeout).
  bool server_closed() {
    while (fill()) {
    }
    return closed_;
  }

 private:
  bool fill() {
    if (closed_) return false;
    char chunk[65536];
    const ssize_t n = ::recv(fd_, chunk, sizeof(chunk), 0);
    if (n <= 0) {
      closed_ = true;
      return false;
    }
    last_read_ = TestClock::now();
    buf_.append(chunk, static_cast<std::size_t>(n));
    return true;
  }

  static void parse_head(const std::string& head, HttpReply& reply) {
    std::size_t pos = head.find("\r\n");
    const std::string status_line = head.substr(0, pos);
    reply.status = std::atoi(status_line.substr(9, 3).c_str());
    while (pos != std::string::npos && pos + 2 < head.size()) {
      const std::size_t next = head.find("\r\n", pos + 2);
      const std::string line =
          head.substr(pos + 2, next == std::string::npos ? std::string::npos : next - pos - 2);
      const std::size_t colon = line.find(':');
      if (colon != std::string::npos) {
        std::string key = line.substr(0, colon);
        for (char& c : key) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        std::size_t v = colon + 1;
        while (v < line.size() && line[v] == ' ') ++v;
        reply.headers[key] = line.substr(v);
      }
      pos = next;
    }
  }

  // Splits complete "data: ...\n\n" events off the decoded body.
  static void collect_events(HttpReply& reply, std::size_t& start, TestClock::time_point at) {
    for (;;) {
      const std::size_t end = reply.body.find("\n\n", start);
      if (end == std::string::npos) return;
      std::string event = reply.body.substr(start, end - start);
      if (event.rfind("data: ", 0) == 0) event.erase(0, 6);
      reply.events.push_back({std::move(event), at});
      start = end + 2;
    }
  }

  int fd_ = -1;
  std::string buf_;
  bool closed_ = false;
  TestClock::time_point last_read_;
};

/// A started simulator on `config` (port 0: a free one); stopped when destroyed.
inline std::unique_ptr<SimServer> start_server(const SimConfig& config) {
  auto server = std::make_unique<SimServer>(config);
  server->start();
  return server;
}

/// A simulator with fixed timing (no jitter drawn from a seed but 5) and one I/O thread, so that
/// a request that holds the thread stalls every other connection: what the hostile-request
/// tests look for.
inline SimConfig fixed_config(double ttft_ms, double itl_ms) {
  SimConfig c;
  c.port = 0;
  c.seed = 5;
  c.threads = 1;
  c.timing.ttft_ms = ttft_ms;
  c.timing.itl_ms = itl_ms;
  return c;
}

}  // namespace tokenbench::sim::testing
