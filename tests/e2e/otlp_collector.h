#pragma once

// A loopback OTLP/HTTP collector for the tests: keeps every request it receives (request line,
// headers, body) and answers each with `status` and an empty JSON object, as a collector
// answers a full success (ExportMetricsServiceResponse {}).

#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "loopback.h"

namespace tokenbench::e2e {

/// One request as the collector saw it.
struct Posted {
  std::string request_line;
  std::string head;  ///< request line and headers
  std::string body;
};

class OtlpCollector {
 public:
  explicit OtlpCollector(int status = 200) : status_(status) {
    fd_ = testing::listen_on_loopback(port_);
    accept_thread_ = std::thread([this] { accept_loop(); });
  }

  ~OtlpCollector() {
    shutdown(fd_, SHUT_RDWR);
    close(fd_);
    accept_thread_.join();
    for (auto& t : connections_) t.join();
  }

  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }

  std::vector<Posted> posted() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return posted_;
  }

 private:
  void accept_loop() {
    while (true) {
      const int c = accept(fd_, nullptr, nullptr);
      if (c < 0) return;
      timeval tv{10, 0};
      setsockopt(c, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
      connections_.emplace_back([this, c] { serve(c); });
    }
  }

  void serve(int c) {
    const std::string data = testing::read_http_request(c);
    if (data.empty()) {
      close(c);
      return;
    }
    const std::size_t head_end = data.find("\r\n\r\n");
    {
      std::lock_guard<std::mutex> lock(mutex_);
      posted_.push_back({data.substr(0, data.find("\r\n")), data.substr(0, head_end + 2),
                         data.substr(head_end + 4)});
    }
    const std::string reply = "HTTP/1.1 " + std::to_string(status_) +
                              " X\r\nContent-Type: application/json\r\nContent-Length: 2\r\n"
                              "Connection: close\r\n\r\n{}";
    (void)!send(c, reply.data(), reply.size(), MSG_NOSIGNAL);
    close(c);
  }

  const int status_;
  int fd_ = -1;
  unsigned short port_ = 0;
  std::thread accept_thread_;
  std::vector<std::thread> connections_;  // accept thread only, until joined
  mutable std::mutex mutex_;
  std::vector<Posted> posted_;  // guarded by mutex_
};

}  // namespace tokenbench::e2e
