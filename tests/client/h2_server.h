#pragma once

// A scripted HTTP/2 server for tests, on nghttp2's server API: h2c with prior knowledge on a free
// loopback port, or h2 over TLS (ALPN) with a self-signed certificate. Every request is answered
// with the same script: its response headers, then its DATA pieces, each after its delay, the
// last one ending the stream. It counts connections and the most streams open at once on one,
// keeps each request's headers, and can refuse all but a connection's first stream with GOAWAY,
// or reset the streams.

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <nghttp2/nghttp2.h>
#include <openssl/ssl.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "loopback.h"
#include "tls_server.h"

namespace tokenbench::testing {

struct H2Piece {
  std::string data;
  std::chrono::milliseconds delay{0};  ///< after the previous piece (the first: after the request)
};

struct H2Script {
  std::vector<std::pair<std::string, std::string>> headers{{":status", "200"},
                                                           {"content-type", "text/event-stream"}};
  std::vector<H2Piece> pieces;
  std::uint32_t max_streams = 100;  ///< SETTINGS_MAX_CONCURRENT_STREAMS
  /// Answer only the first stream of each connection: GOAWAY (last stream 1) as soon as a
  /// request arrives whole, which refuses every other stream opened on it.
  bool goaway_first = false;
  bool reset = false;  ///< RST_STREAM INTERNAL_ERROR instead of the first DATA
  bool tls = false;    ///< h2 over TLS (ALPN "h2") instead of h2c
};

class H2Server {
 public:
  explicit H2Server(H2Script script) : script_(std::move(script)) {
    if (script_.tls) {
      cert_ = std::make_unique<SelfSignedCert>();
      ctx_ = cert_->server_context();
      SSL_CTX_set_alpn_select_cb(
          ctx_,
          [](SSL*, const unsigned char** out, unsigned char* outlen, const unsigned char* in,
             unsigned int inlen, void*) {
            return nghttp2_select_next_protocol(const_cast<unsigned char**>(out), outlen, in,
                                                inlen) == 1
                       ? SSL_TLSEXT_ERR_OK
                       : SSL_TLSEXT_ERR_ALERT_FATAL;
          },
          nullptr);
    }
    fd_ = listen_on_loopback(port_);
    acceptor_ = std::thread([this] { accept_loop(); });
  }
  ~H2Server() {
    stop_ = true;
    shutdown(fd_, SHUT_RDWR);
    close(fd_);
    acceptor_.join();
    for (auto& t : connections_) t.join();
    if (ctx_ != nullptr) SSL_CTX_free(ctx_);
  }
  H2Server(const H2Server&) = delete;
  H2Server& operator=(const H2Server&) = delete;

  std::string url() const {
    return std::string(script_.tls ? "https" : "http") + "://127.0.0.1:" + std::to_string(port_);
  }
  const std::string& cert_file() const { return cert_->file(); }
  int connections() const { return accepted_.load(); }
  int requests() const { return requests_.load(); }
  int max_open_streams() const { return max_open_.load(); }
  /// Each request's headers, in the order the requests ended.
  std::vector<std::map<std::string, std::string>> request_headers() const {
    std::lock_guard<std::mutex> lock(m_);
    return headers_;
  }
  /// Each request's body.
  std::vector<std::string> request_bodies() const {
    std::lock_guard<std::mutex> lock(m_);
    return bodies_;
  }

 private:
  using Clock = std::chrono::steady_clock;

  struct Stream {
    std::map<std::string, std::string> headers;
    std::string body;
    bool answering = false;
    bool headers_sent = false;
    bool closed = false;
    std::size_t next = 0;  // the next piece
    Clock::time_point due;
    std::string pending;  // the DATA being framed
    bool last = false;
  };
  struct Conn {
    H2Server* server = nullptr;
    nghttp2_session* session = nullptr;
    std::map<std::int32_t, Stream> streams;
    std::int32_t goaway_last = INT32_MAX;  // streams above it are not answered
    int open = 0;
  };

  void accept_loop() {
    while (!stop_) {
      const int c = accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC);
      if (c < 0) return;
      ++accepted_;
      connections_.emplace_back([this, c] { serve(c); });
    }
  }

  static ssize_t read_piece(nghttp2_session*, std::int32_t, std::uint8_t* buf, std::size_t length,
                            std::uint32_t* flags, nghttp2_data_source* source, void*) {
    auto* st = static_cast<Stream*>(source->ptr);
    const std::size_t n = std::min(length, st->pending.size());
    std::copy_n(st->pending.data(), n, buf);
    st->pending.erase(0, n);
    if (st->pending.empty()) {
      *flags |= NGHTTP2_DATA_FLAG_EOF;
      if (!st->last) *flags |= NGHTTP2_DATA_FLAG_NO_END_STREAM;
    }
    return static_cast<ssize_t>(n);
  }

  void serve(int fd) {
    const int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    SSL* ssl = nullptr;
    if (ctx_ != nullptr) {
      ssl = SSL_new(ctx_);
      SSL_set_fd(ssl, fd);
      if (SSL_accept(ssl) != 1) {
        SSL_free(ssl);
        close(fd);
        return;
      }
    }
    Conn conn;
    conn.server = this;
    nghttp2_session_callbacks* cb = nullptr;
    nghttp2_session_callbacks_new(&cb);
    nghttp2_session_callbacks_set_on_begin_headers_callback(
        cb, [](nghttp2_session*, const nghttp2_frame* frame, void* user) {
          auto* c = static_cast<Conn*>(user);
          if (frame->hd.type == NGHTTP2_HEADERS && frame->headers.cat == NGHTTP2_HCAT_REQUEST) {
            c->streams[frame->hd.stream_id];
            ++c->open;
            int seen = c->server->max_open_.load();
            while (c->open > seen && !c->server->max_open_.compare_exchange_weak(seen, c->open)) {
            }
          }
          return 0;
        });
    nghttp2_session_callbacks_set_on_header_callback(
        cb, [](nghttp2_session*, const nghttp2_frame* frame, const std::uint8_t* name,
               std::size_t namelen, const std::uint8_t* value, std::size_t valuelen, std::uint8_t,
               void* user) {
          auto* c = static_cast<Conn*>(user);
          c->streams[frame->hd.stream_id]
              .headers[std::string(reinterpret_cast<const char*>(name), namelen)] =
              std::string(reinterpret_cast<const char*>(value), valuelen);
          return 0;
        });
    nghttp2_session_callbacks_set_on_data_chunk_recv_callback(
        cb, [](nghttp2_session*, std::uint8_t, std::int32_t id, const std::uint8_t* data,
               std::size_t len, void* user) {
          static_cast<Conn*>(user)->streams[id].body.append(reinterpret_cast<const char*>(data),
                                                            len);
          return 0;
        });
    nghttp2_session_callbacks_set_on_frame_recv_callback(
        cb, [](nghttp2_session* s, const nghttp2_frame* frame, void* user) {
          auto* c = static_cast<Conn*>(user);
          if ((frame->hd.type != NGHTTP2_HEADERS && frame->hd.type != NGHTTP2_DATA) ||
              (frame->hd.flags & NGHTTP2_FLAG_END_STREAM) == 0) {
            return 0;
          }
          const H2Script& script = c->server->script_;
          if (script.goaway_first && c->goaway_last == INT32_MAX) {
            c->goaway_last = 1;
            nghttp2_submit_goaway(s, NGHTTP2_FLAG_NONE, 1, NGHTTP2_NO_ERROR, nullptr, 0);
          }
          if (frame->hd.stream_id > c->goaway_last) return 0;  // refused by the GOAWAY
          Stream& st = c->streams[frame->hd.stream_id];
          {
            std::lock_guard<std::mutex> lock(c->server->m_);
            c->server->headers_.push_back(st.headers);
            c->server->bodies_.push_back(st.body);
          }
          ++c->server->requests_;
          st.answering = true;
          st.due = Clock::now();
          return 0;
        });
    nghttp2_session_callbacks_set_on_stream_close_callback(
        cb, [](nghttp2_session*, std::int32_t id, std::uint32_t, void* user) {
          auto* c = static_cast<Conn*>(user);
          // Erased after the answering loop, which may be walking the streams now.
          if (auto it = c->streams.find(id); it != c->streams.end()) it->second.closed = true;
          --c->open;
          return 0;
        });
    nghttp2_session_server_new(&conn.session, cb, &conn);
    nghttp2_session_callbacks_del(cb);
    const nghttp2_settings_entry settings[] = {
        {NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS, script_.max_streams}};
    nghttp2_submit_settings(conn.session, NGHTTP2_FLAG_NONE, settings, 1);

    const auto send_all = [&]() {
      while (true) {
        const std::uint8_t* data = nullptr;
        const ssize_t n = nghttp2_session_mem_send(conn.session, &data);
        if (n <= 0) return n == 0;
        std::size_t off = 0;
        while (off < static_cast<std::size_t>(n)) {
          const ssize_t w =
              ssl != nullptr
                  ? SSL_write(ssl, data + off, static_cast<int>(static_cast<std::size_t>(n) - off))
                  : send(fd, data + off, static_cast<std::size_t>(n) - off, MSG_NOSIGNAL);
          if (w <= 0) return false;
          off += static_cast<std::size_t>(w);
        }
      }
    };
    bool alive = send_all();
    char buf[16384];
    while (alive && !stop_) {
      // Answer what is due, then wait for bytes until the next piece is.
      const auto now = Clock::now();
      auto next = now + std::chrono::milliseconds(50);
      for (auto& [id, st] : conn.streams) {
        if (!st.answering) continue;
        if (!st.headers_sent) {
          std::vector<nghttp2_nv> nva;
          for (const auto& [n, v] : script_.headers) {
            nva.push_back({reinterpret_cast<std::uint8_t*>(const_cast<char*>(n.data())),
                           reinterpret_cast<std::uint8_t*>(const_cast<char*>(v.data())), n.size(),
                           v.size(), NGHTTP2_NV_FLAG_NONE});
          }
          nghttp2_submit_headers(
              conn.session, script_.pieces.empty() ? NGHTTP2_FLAG_END_STREAM : NGHTTP2_FLAG_NONE,
              id, nullptr, nva.data(), nva.size(), nullptr);
          st.headers_sent = true;
          if (!script_.pieces.empty()) st.due = now + script_.pieces[0].delay;
        }
        while (st.next < script_.pieces.size() && st.due <= now && st.pending.empty()) {
          if (script_.reset) {
            nghttp2_submit_rst_stream(conn.session, NGHTTP2_FLAG_NONE, id, NGHTTP2_INTERNAL_ERROR);
            st.next = script_.pieces.size();
            break;
          }
          st.pending = script_.pieces[st.next].data;
          st.last = st.next + 1 == script_.pieces.size();
          nghttp2_data_provider provider{};
          provider.source.ptr = &st;
          provider.read_callback = &H2Server::read_piece;
          nghttp2_submit_data(conn.session, st.last ? NGHTTP2_FLAG_END_STREAM : NGHTTP2_FLAG_NONE,
                              id, &provider);
          ++st.next;
          if (!send_all()) break;
          // The next piece is due its delay after this one went out (not after the loop turn
          // began), so a server thread that is late keeps the script's gaps.
          if (st.next < script_.pieces.size()) {
            st.due = Clock::now() + script_.pieces[st.next].delay;
          }
        }
        if (st.next == script_.pieces.size()) {
          st.answering = false;
        } else {
          next = std::min(next, st.due);
        }
      }
      for (auto it = conn.streams.begin(); it != conn.streams.end();) {
        it = it->second.closed ? conn.streams.erase(it) : std::next(it);
      }
      if (!send_all()) break;
      const auto wait = std::chrono::duration_cast<std::chrono::milliseconds>(next - Clock::now());
      pollfd p{fd, POLLIN, 0};
      if ((ssl == nullptr || SSL_pending(ssl) == 0) &&
          poll(&p, 1, static_cast<int>(std::max<long>(0, wait.count()))) <= 0) {
        continue;
      }
      const ssize_t n =
          ssl != nullptr ? SSL_read(ssl, buf, sizeof buf) : recv(fd, buf, sizeof buf, 0);
      if (n <= 0) break;
      if (nghttp2_session_mem_recv(conn.session, reinterpret_cast<std::uint8_t*>(buf),
                                   static_cast<std::size_t>(n)) < 0) {
        break;
      }
      alive = send_all();
      if (nghttp2_session_want_read(conn.session) == 0 &&
          nghttp2_session_want_write(conn.session) == 0) {
        break;
      }
    }
    nghttp2_session_del(conn.session);
    if (ssl != nullptr) {
      SSL_shutdown(ssl);
      SSL_free(ssl);
    }
    close(fd);
  }

  H2Script script_;
  std::unique_ptr<SelfSignedCert> cert_;
  SSL_CTX* ctx_ = nullptr;
  int fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::atomic<int> accepted_{0};
  std::atomic<int> requests_{0};
  std::atomic<int> max_open_{0};
  mutable std::mutex m_;
  std::vector<std::map<std::string, std::string>> headers_;
  std::vector<std::string> bodies_;
  std::thread acceptor_;
  std::vector<std::thread> connections_;
};

}  // namespace tokenbench::testing
