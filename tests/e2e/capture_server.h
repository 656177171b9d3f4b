#pragma once

// A loopback HTTP/1.1 server that keeps every request it receives, to see exactly what a
// tokenbench run sends (path, headers, body) without a model behind it.

#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <chrono>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "loopback.h"

namespace tokenbench::e2e {

/// How a CaptureServer that answers streams its replies: an OpenAI chat stream of `words`
/// content chunks, one every `pause`, request k's text "k-1 k-2 ... k-N" (so that a test can
/// find a reply's text in a later request).
struct StreamedReplies {
  int words = 3;
  std::chrono::milliseconds pause{40};
};

/// One request as the server saw it: whole (request line, headers, body), when it arrived and
/// when its reply's last byte was written, and the text its reply streamed.
struct Captured {
  std::string request;
  std::chrono::steady_clock::time_point arrived;
  std::chrono::steady_clock::time_point finished;
  std::string reply_text;
};

/// Answers GET /v1/models with one model, "captured-model", and every other request with HTTP 400
/// and a JSON error (so a run against it fails fast after its first requests), or, given
/// StreamedReplies, every POST with a streamed chat reply; closes each connection after its reply.
/// Keeps each request whole: request line, headers and body. One thread per connection; a
/// connection that sends nothing for 10 s is dropped.
class CaptureServer {
 public:
  explicit CaptureServer(std::optional<StreamedReplies> replies = std::nullopt)
      : replies_(replies) {
    fd_ = testing::listen_on_loopback(port_);
    accept_thread_ = std::thread([this] { accept_loop(); });
  }

  ~CaptureServer() {
    shutdown(fd_, SHUT_RDWR);
    close(fd_);
    accept_thread_.join();
    for (auto& t : connections_) t.join();
  }

  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }

  /// Every request received so far, in arrival order.
  std::vector<std::string> requests() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return requests_;
  }

  /// Every request received so far with its times and reply, in arrival order.
  std::vector<Captured> captured() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return captured_;
  }

  /// The requests whose request line starts with `method_and_path` (e.g. "POST /v1/").
  std::vector<std::string> requests_to(const std::string& method_and_path) const {
    std::vector<std::string> out;
    for (auto& r : requests()) {
      if (r.rfind(method_and_path, 0) == 0) out.push_back(r);
    }
    return out;
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
    const auto arrived = std::chrono::steady_clock::now();
    std::size_t index = 0;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      index = requests_.size();
      requests_.push_back(data);
    }
    const bool models = data.rfind("GET /v1/models", 0) == 0;
    if (replies_ && data.rfind("POST ", 0) == 0) {
      stream_reply(c, index, Captured{data, arrived, {}, {}});
      return;
    }
    const std::string body =
        models ? R"({"object":"list","data":[{"id":"captured-model","object":"model"}]})"
               : R"({"error":{"message":"captured","type":"invalid_request_error"}})";
    const std::string reply =
        std::string(models ? "HTTP/1.1 200 OK" : "HTTP/1.1 400 Bad Request") +
        "\r\nContent-Type: application/json\r\nContent-Length: " + std::to_string(body.size()) +
        "\r\nConnection: close\r\n\r\n" + body;
    (void)!send(c, reply.data(), reply.size(), MSG_NOSIGNAL);
    close(c);
  }

  // Request `index`'s streamed reply; its record once the last byte is written.
  void stream_reply(int c, std::size_t index, Captured captured) {
    std::string head =
        "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n";
    bool open = send(c, head.data(), head.size(), MSG_NOSIGNAL) > 0;
    for (int w = 1; open && w <= replies_->words; ++w) {
      const std::string word = (w > 1 ? " " : "") + std::to_string(index) + "-" + std::to_string(w);
      captured.reply_text += word;
      const std::string event = R"(data: {"id":"c","object":"chat.completion.chunk","choices":)"
                                R"([{"index":0,"delta":{"content":")" +
                                word + "\"},\"finish_reason\":null}]}\n\n";
      open = send(c, event.data(), event.size(), MSG_NOSIGNAL) > 0;
      std::this_thread::sleep_for(replies_->pause);
    }
    const std::string end =
        R"(data: {"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{},)"
        R"("finish_reason":"stop"}]})"
        "\n\ndata: [DONE]\n\n";
    (void)!send(c, end.data(), end.size(), MSG_NOSIGNAL);
    captured.finished = std::chrono::steady_clock::now();
    close(c);
    std::lock_guard<std::mutex> lock(mutex_);
    captured_.push_back(std::move(captured));
  }

  const std::optional<StreamedReplies> replies_;
  int fd_ = -1;
  unsigned short port_ = 0;
  std::thread accept_thread_;
  std::vector<std::thread> connections_;  // accept thread only, until joined
  mutable std::mutex mutex_;
  std::vector<std::string> requests_;  // guarded by mutex_
  std::vector<Captured> captured_;     // guarded by mutex_: streamed replies, as they finish
};

}  // namespace tokenbench::e2e
