// The native transport of a Worker: its connections (non-blocking connect, TLS over a stamped
// socket, kept alive, opened ahead), every read stamped with the kernel's receive time, and
// HTTP/1.1 on them (Http1Reader). HTTP/2 on the same connections is worker_http2.cpp; the event
// loop, libcurl's path and the classification of outcomes are worker.cpp.

#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

#include "tokenbench/client/worker.h"

namespace tokenbench::client {

core::Nanos Transfer::stamp() {
  got_bytes = true;
  if (!worker->read_kernel_) rec.stamps = core::StampSource::kUser;  // the kernel gave none
  return worker->read_at_;
}

void Transfer::on_status(int code, int version) {
  status = code;
  status_known = true;
  char line[32];
  const int n =
      std::snprintf(line, sizeof line, "HTTP/%d.%d %d\r\n", version / 10, version % 10, code);
  worker->header_line(this, std::string_view(line, static_cast<std::size_t>(n)), stamp());
}

void Transfer::on_field(std::string_view name, std::string_view value) {
  std::string& line = worker->field_line_;
  line.assign(name);
  line.append(": ");
  line.append(value);
  line.append("\r\n");
  worker->header_line(this, line, stamp());
}

void Transfer::on_header_end() { worker->header_line(this, "\r\n", stamp()); }

bool Transfer::on_body(std::string_view data) {
  return !aborted && worker->body_bytes(this, data, stamp());
}

void Worker::launch_native(Transfer* t) {
  const std::string& prefix = head_prefix_[t->stream ? 0 : 1][t->endpoint];
  t->head.assign(prefix);
  if (config_.request_ids) {
    t->id_headers.fill(t->trace, t->attempt);
    t->head.append(t->id_headers.request_id.data()).append("\r\n");
    t->head.append(t->id_headers.traceparent.data()).append("\r\n");
  }
  t->head.append("Content-Length: ").append(std::to_string(t->request_body->size()));
  t->head.append("\r\n\r\n");
  t->written = 0;
  t->got_bytes = false;
  t->rec.stamps = config_.kernel_stamps ? core::StampSource::kKernel : core::StampSource::kUser;
  t->reader.reset(t, kReaderHeaderLimit);
  Connection* c = nullptr;
  auto& idle = idle_[t->endpoint];
  if (!idle.empty()) {
    c = idle.back();
    idle.pop_back();
  }
  t->rec.sent = clock_.now();
  t->last_activity = t->rec.sent;
  if (c == nullptr) {
    std::string error;
    c = open_connection(t->endpoint, error);
    if (c == nullptr) {
      abort_transfer(t, core::ErrorClass::kConnect, error);
      finish(t, CURLE_COULDNT_CONNECT, /*added=*/false);
      return;
    }
  }
  attach(t, c);
}

Connection* Worker::open_connection(std::uint32_t endpoint, std::string& error) {
  const int fd = client::open_connection(*targets_[endpoint], error);
  if (fd < 0) return nullptr;
  if (config_.kernel_stamps) enable_rx_stamps(fd);
  Connection* c = nullptr;
  if (!free_connections_.empty()) {
    c = free_connections_.back();
    free_connections_.pop_back();
  } else {
    connections_.push_back(std::make_unique<Connection>());
    c = connections_.back().get();
  }
  *c = Connection{};
  c->fd = fd;
  c->endpoint = endpoint;
  epoll_event ev{};
  ev.events = EPOLLOUT;
  ev.data.u64 = connection_tag(c);
  if (epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, fd, &ev) != 0) {
    error = std::string("cannot watch the connection: ") + std::strerror(errno);
    close(fd);
    free_connections_.push_back(c);
    return nullptr;
  }
  c->watched = EPOLLOUT;
  return c;
}

void Worker::watch(Connection* c, std::uint32_t events) {
  if (c->watched == events) return;
  epoll_event ev{};
  ev.events = events;
  ev.data.u64 = connection_tag(c);
  epoll_ctl(epoll_fd_, EPOLL_CTL_MOD, c->fd, &ev);
  c->watched = events;
}

void Worker::close_connection(Connection* c) {
  if (c->h2 != nullptr) {
    auto& pool = h2_pool_[c->endpoint];
    if (const auto it = std::find(pool.begin(), pool.end(), c); it != pool.end()) pool.erase(it);
    for (Transfer* t : c->streams) t->conn = nullptr;
    c->streams.clear();
    c->h2.reset();
    c->out = std::string();
  } else if (c->transfer == nullptr) {
    auto& idle = idle_[c->endpoint];
    if (const auto it = std::find(idle.begin(), idle.end(), c); it != idle.end()) idle.erase(it);
  } else {
    c->transfer->conn = nullptr;
  }
  epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, c->fd, nullptr);
  close(c->fd);
  c->fd = -1;
  c->transfer = nullptr;
  c->carry = std::string();
  c->tls.reset();
  free_connections_.push_back(c);
}

void Worker::attach(Transfer* t, Connection* c) {
  t->conn = c;
  c->transfer = t;
  c->carry.clear();
  if (c->connected && (c->tls == nullptr || c->secured)) {
    write_request(t);
  } else {
    watch(c, EPOLLOUT);
  }
}

void Worker::write_request(Transfer* t) {
  Connection* c = t->conn;
  const std::string& body = *t->request_body;
  const std::size_t total = t->head.size() + body.size();
  if (c->tls != nullptr) {
    while (t->written < total) {
      const bool in_head = t->written < t->head.size();
      const char* p =
          in_head ? t->head.data() + t->written : body.data() + (t->written - t->head.size());
      const std::size_t len = in_head ? t->head.size() - t->written : total - t->written;
      std::size_t n = 0;
      switch (c->tls->write(p, len, n)) {
        case TlsSession::Io::kDone:
          t->written += n;
          continue;
        case TlsSession::Io::kWantWrite:
          watch(c, EPOLLIN | EPOLLOUT);
          return;
        case TlsSession::Io::kWantRead:
          watch(c, EPOLLIN);
          return;
        case TlsSession::Io::kClosed:
        case TlsSession::Io::kError:
          fail_native(t, core::ErrorClass::kConnect, "Send failure: " + c->tls->error());
          return;
      }
    }
    watch(c, EPOLLIN);
    return;
  }
  while (t->written < total) {
    iovec iov[2];
    int count = 0;
    if (t->written < t->head.size()) {
      iov[count++] = {t->head.data() + t->written, t->head.size() - t->written};
      iov[count++] = {const_cast<char*>(body.data()), body.size()};
    } else {
      const std::size_t off = t->written - t->head.size();
      iov[count++] = {const_cast<char*>(body.data()) + off, body.size() - off};
    }
    msghdr msg{};
    msg.msg_iov = iov;
    msg.msg_iovlen = static_cast<std::size_t>(count);
    const ssize_t n = sendmsg(c->fd, &msg, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n > 0) {
      t->written += static_cast<std::size_t>(n);
      continue;
    }
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      watch(c, EPOLLIN | EPOLLOUT);
      return;
    }
    if (n < 0 && errno == EINTR) continue;
    fail_native(t, core::ErrorClass::kConnect,
                std::string("Send failure: ") + std::strerror(n < 0 ? errno : EPIPE));
    return;
  }
  watch(c, EPOLLIN);
}

void Worker::stamp_read(std::int64_t realtime, core::Nanos now) {
  read_kernel_ = config_.kernel_stamps && realtime != 0;
  read_at_ = read_kernel_ ? realtime_.to_run(realtime, now) : now;
}

int Worker::connect_result(const Connection* c, std::uint32_t events) const {
  int error = 0;
  socklen_t len = sizeof error;
  getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &error, &len);
  if (error == 0 && (events & (EPOLLERR | EPOLLHUP)) != 0) error = ECONNREFUSED;
  return error;
}

std::string Worker::connect_failure(std::uint32_t endpoint, int error) const {
  return client::connect_failure(*targets_[endpoint], error);
}

void Worker::on_connection_event(Connection* c, std::uint32_t events) {
  if (!c->connected) {
    if (const int error = connect_result(c, events); error != 0) {
      connection_failed(c, core::ErrorClass::kConnect, connect_failure(c->endpoint, error));
      return;
    }
    c->connected = true;
    if (targets_[c->endpoint]->tls) {
      c->tls = std::make_unique<TlsSession>(*tls_context_, c->fd, targets_[c->endpoint]->host);
      continue_handshake(c);
      return;
    }
    connection_ready(c);
    return;
  }
  if (c->tls != nullptr && !c->secured) {
    continue_handshake(c);
    return;
  }
  if (c->h2 != nullptr) {
    on_h2_event(c, events);
    return;
  }
  Transfer* t = c->transfer;
  if (t == nullptr) {
    if (c->tls != nullptr) {
      // TLS 1.3 servers send session tickets after the handshake: records that are read
      // without a byte of data are not a close.
      std::size_t n = 0;
      if (c->tls->read(read_buffer_.data(), read_buffer_.size(), n) == TlsSession::Io::kWantRead) {
        return;
      }
    }
    // An idle connection became readable: the server closed it (or sent what nobody asked for).
    close_connection(c);
    return;
  }
  if ((events & EPOLLOUT) != 0 && t->written < t->head.size() + t->request_body->size()) {
    write_request(t);
    if (t->conn != c) return;
  }
  if ((events & (EPOLLIN | EPOLLHUP | EPOLLERR)) != 0) read_reply(c, t);
}

void Worker::connection_failed(Connection* c, core::ErrorClass error, const std::string& message) {
  if (c->h2 != nullptr) {
    fail_h2(c, error, message);
    return;
  }
  Transfer* t = c->transfer;
  if (t == nullptr) {
    close_connection(c);  // opened ahead: a request will try again and record the failure
    return;
  }
  abort_transfer(t, error, message);
  finish(t, error == core::ErrorClass::kTls ? CURLE_SSL_CONNECT_ERROR : CURLE_COULDNT_CONNECT,
         /*added=*/false);
}

void Worker::continue_handshake(Connection* c) {
  const HttpTarget& target = *targets_[c->endpoint];
  const std::string server = "TLS with " + target.host + " port " + std::to_string(target.port);
  switch (c->tls->handshake()) {
    case TlsSession::Io::kDone:
      c->secured = true;
      if (const std::string alpn = c->tls->alpn(); c->h2 != nullptr && alpn != "h2") {
        connection_failed(c, core::ErrorClass::kTls,
                          server + ": the server did not agree to HTTP/2 (ALPN " +
                              (alpn.empty() ? std::string("chose nothing") : "chose " + alpn) +
                              "): it serves HTTP/1.1 there; drop --http2");
        return;
      }
      connection_ready(c);
      return;
    case TlsSession::Io::kWantRead:
      watch(c, EPOLLIN);
      return;
    case TlsSession::Io::kWantWrite:
      watch(c, EPOLLOUT);
      return;
    case TlsSession::Io::kClosed:
    case TlsSession::Io::kError:
      break;
  }
  connection_failed(c, core::ErrorClass::kTls,
                    server + ": " +
                        (c->tls->error().empty() ? std::string("the server closed the connection")
                                                 : c->tls->error()));
}

void Worker::connection_ready(Connection* c) {
  if (c->h2 != nullptr) {
    h2_ready(c);
    return;
  }
  Transfer* t = c->transfer;
  if (t == nullptr) {
    watch(c, EPOLLIN);  // opened ahead, idle: a close or stray bytes end it
    return;
  }
  if (config_.per_request_connections) t->rec.connected = clock_.now();
  write_request(t);
}

void Worker::received(Connection* c, Transfer* t, std::size_t n, std::int64_t realtime,
                      core::Nanos now) {
  stamp_read(realtime, now);
  t->got_bytes = true;
  if (c->carry.empty()) {
    parse_reply(c, t, std::string_view(read_buffer_.data(), n), false);
  } else {
    c->carry.append(read_buffer_.data(), n);
    parse_reply(c, t, c->carry, true);
  }
}

void Worker::read_reply(Connection* c, Transfer* t) {
  if (c->tls != nullptr) {
    // One socket event may bring several TLS records: read until the session holds no more.
    while (true) {
      std::size_t n = 0;
      const TlsSession::Io io = c->tls->read(read_buffer_.data(), read_buffer_.size(), n);
      const core::Nanos now = clock_.now();
      if (io == TlsSession::Io::kWantRead || io == TlsSession::Io::kWantWrite) return;
      if (io == TlsSession::Io::kDone) {
        received(c, t, n, c->tls->realtime(), now);
        if (t->conn != c || !c->tls->pending()) return;
        continue;
      }
      read_at_ = now;
      read_kernel_ = false;
      reply_ended(t, io == TlsSession::Io::kError ? c->tls->error() : std::string());
      return;
    }
  }
  std::int64_t realtime = 0;
  const ssize_t n = recv_stamped(c->fd, read_buffer_.data(), read_buffer_.size(), realtime);
  const core::Nanos now = clock_.now();
  if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) return;
  if (n > 0) {
    received(c, t, static_cast<std::size_t>(n), realtime, now);
    return;
  }
  // The connection ended (0) or failed (< 0).
  read_at_ = now;
  read_kernel_ = false;
  reply_ended(t, n < 0 ? std::strerror(errno) : std::string());
}

void Worker::reply_ended(Transfer* t, const std::string& error) {
  if (t->reader.end_of_stream() == Http1Reader::Result::kDone && !t->aborted) {
    end_native(t, /*complete=*/true);
    return;
  }
  if (t->aborted) {
    finish(t, CURLE_ABORTED_BY_CALLBACK, /*added=*/false);
    return;
  }
  if (!t->got_bytes) {
    fail_native(t, core::ErrorClass::kStreamCut,
                !error.empty() ? "Recv failure: " + error : std::string("Empty reply from server"));
    return;
  }
  fail_native(t, core::ErrorClass::kStreamCut,
              std::string("the connection ended in the middle of the reply") +
                  (!error.empty() ? " (" + error + ")" : std::string()) + " after " +
                  std::to_string(t->reply_bytes) + " bytes");
}

void Worker::parse_reply(Connection* c, Transfer* t, std::string_view data, bool from_carry) {
  std::size_t consumed = 0;
  const Http1Reader::Result result = t->reader.feed(data, consumed);
  switch (result) {
    case Http1Reader::Result::kMore:
      if (from_carry) {
        c->carry.erase(0, consumed);
      } else {
        c->carry.assign(data.substr(consumed));
      }
      if (t->aborted) finish(t, CURLE_ABORTED_BY_CALLBACK, /*added=*/false);
      return;
    case Http1Reader::Result::kDone:
      if (t->aborted) {
        finish(t, CURLE_ABORTED_BY_CALLBACK, /*added=*/false);
      } else {
        end_native(t, /*complete=*/true);
      }
      return;
    case Http1Reader::Result::kStopped:
      finish(t, CURLE_ABORTED_BY_CALLBACK, /*added=*/false);
      return;
    case Http1Reader::Result::kError:
      if (t->aborted) {
        finish(t, CURLE_ABORTED_BY_CALLBACK, /*added=*/false);
      } else if (t->reader.header_too_large()) {
        abort_transfer(t, core::ErrorClass::kProtocol,
                       "the response headers exceed " + std::to_string(kMaxHeaderBytes / 1024) +
                           " KiB: a broken server or proxy");
        finish(t, CURLE_ABORTED_BY_CALLBACK, /*added=*/false);
      } else {
        abort_transfer(t, core::ErrorClass::kMalformed,
                       "the reply is not valid HTTP/1.1 (" + t->reader.error() + ")");
        finish(t, CURLE_ABORTED_BY_CALLBACK, /*added=*/false);
      }
      return;
  }
}

void Worker::end_native(Transfer* t, bool complete) {
  Connection* c = t->conn;
  if (c != nullptr && complete && t->reader.keep_alive() && !config_.per_request_connections) {
    // Back to the idle pool, watched for a close by the server.
    t->conn = nullptr;
    c->transfer = nullptr;
    c->reused = true;
    c->carry.clear();
    watch(c, EPOLLIN);
    idle_[c->endpoint].push_back(c);
  }
  finish(t, CURLE_OK, /*added=*/false);
}

void Worker::fail_native(Transfer* t, core::ErrorClass error, std::string message) {
  Connection* c = t->conn;
  if (c != nullptr && (c->reused || c->pre_opened) && !t->got_bytes && !t->aborted) {
    // The server closed an idle keep-alive connection as this request went out on it: the
    // request never reached it, so it goes again on a fresh connection.
    close_connection(c);
    std::string open_error;
    Connection* fresh = open_connection(t->endpoint, open_error);
    if (fresh != nullptr) {
      t->written = 0;
      t->reader.reset(t, kReaderHeaderLimit);
      attach(t, fresh);
      return;
    }
    message = open_error;
    error = core::ErrorClass::kConnect;
  }
  if (!t->aborted) abort_transfer(t, error, message);
  finish(t, CURLE_ABORTED_BY_CALLBACK, /*added=*/false);
}

void Worker::preopen(std::size_t per_endpoint, core::Nanos deadline) {
  epoll_event events[kMaxEvents];
  for (std::uint32_t e = 0; e < targets_.size(); ++e) {
    if (!targets_[e]) continue;
    // HTTP/2: enough connections to carry `per_endpoint` streams.
    const std::size_t want =
        config_.http2 ? (per_endpoint + config_.http2_streams - 1) / config_.http2_streams
                      : per_endpoint;
    std::size_t opened = config_.http2 ? h2_pool_[e].size() : idle_[e].size();
    std::size_t pending = 0;
    std::vector<Connection*> connecting;
    while ((opened < want || pending > 0) && clock_.now() < deadline) {
      while (opened < want && pending < kConnectWindow) {
        std::string error;
        Connection* c = config_.http2 ? open_h2(e, error) : open_connection(e, error);
        if (c == nullptr) {
          opened = want;  // out of descriptors or ports: the requests will say so
          break;
        }
        c->pre_opened = true;
        connecting.push_back(c);
        ++opened;
        ++pending;
      }
      const int n = epoll_wait(epoll_fd_, events, kMaxEvents, 10);
      for (int i = 0; i < n; ++i) {
        const std::uint64_t tag = events[i].data.u64;
        if ((tag & 1u) == 0) continue;
        auto* c = reinterpret_cast<Connection*>(tag & ~std::uint64_t{1});
        const bool was_connecting = !c->connected;
        on_connection_event(c, events[i].events);
        if (was_connecting) {
          --pending;
          if (c->fd >= 0 && c->connected && c->h2 == nullptr) idle_[e].push_back(c);
        }
      }
    }
    // Handshakes still in progress at the deadline are dropped.
    for (Connection* c : connecting) {
      if (c->fd >= 0 && !c->connected && c->transfer == nullptr) close_connection(c);
    }
  }
}

std::size_t Worker::idle_connections() const {
  std::size_t n = 0;
  for (const auto& idle : idle_) n += idle.size();
  for (const auto& pool : h2_pool_) {
    n += static_cast<std::size_t>(std::count_if(pool.begin(), pool.end(), [](const Connection* c) {
      return c->streams.empty() && c->connected;
    }));
  }
  return n;
}

}  // namespace tokenbench::client
