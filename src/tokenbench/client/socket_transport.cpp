// What the native transports share (socket_transport.h): connections on the worker's epoll,
// TLS over stamped sockets, connections opened ahead, and stamped reads.

#include "tokenbench/client/socket_transport.h"

#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace tokenbench::client {
namespace {

// The native transports' read buffer, shared by a worker's connections: one read takes what a
// burst of events holds, while a connection keeps only what a read left unparsed.
constexpr std::size_t kReadBuffer = 64 * 1024;
constexpr int kMaxEvents = 512;

}  // namespace

SocketTransport::SocketTransport(const TransportContext& context,
                                 std::vector<std::optional<HttpTarget>> targets)
    : Transport(context), targets_(std::move(targets)), realtime_(context.clock) {
  read_buffer_.resize(kReadBuffer);
  for (const auto& target : targets_) {
    if (target && target->tls && tls_context_ == nullptr) {
      tls_context_ = std::make_unique<TlsContext>(config().tls, config().http2);
    }
  }
}

SocketTransport::~SocketTransport() {
  for (auto& c : connections_) {
    if (c->fd >= 0) ::close(c->fd);
  }
}

core::Nanos SocketTransport::ReplySink::stamp() {
  got_bytes = true;
  if (!owner->read_kernel_)
    transfer->rec.stamps = core::StampSource::kUser;  // the kernel gave none
  return owner->read_at_;
}

void SocketTransport::ReplySink::on_status(int code, int version) {
  transfer->status = code;
  transfer->status_known = true;
  char line[32];
  const int n =
      std::snprintf(line, sizeof line, "HTTP/%d.%d %d\r\n", version / 10, version % 10, code);
  owner->host().header_line(*transfer, std::string_view(line, static_cast<std::size_t>(n)),
                            stamp());
}

void SocketTransport::ReplySink::on_field(std::string_view name, std::string_view value) {
  std::string& line = owner->field_line_;
  line.assign(name);
  line.append(": ");
  line.append(value);
  line.append("\r\n");
  owner->host().header_line(*transfer, line, stamp());
}

void SocketTransport::ReplySink::on_header_end() {
  owner->host().header_line(*transfer, "\r\n", stamp());
}

bool SocketTransport::ReplySink::on_body(std::string_view data) {
  return !transfer->aborted && owner->host().body_bytes(*transfer, data, stamp());
}

Stage SocketTransport::stage(const Transfer& t) const {
  const Connection* c = connection_of(t);
  if (c == nullptr) return Stage::kIdle;
  return c->ready() ? Stage::kExchanging : Stage::kConnecting;
}

Connection* SocketTransport::open_connection(std::uint32_t endpoint, std::string& error) {
  const int fd = client::open_connection(*targets_[endpoint], error);
  if (fd < 0) return nullptr;
  if (config().kernel_stamps) enable_rx_stamps(fd);
  Connection* c = nullptr;
  if (!free_connections_.empty()) {
    c = free_connections_.back();
    free_connections_.pop_back();
  } else {
    connections_.push_back(make_connection());
    c = connections_.back().get();
  }
  c->clear();
  c->fd = fd;
  c->endpoint = endpoint;
  c->connected = false;
  c->reused = false;
  c->pre_opened = false;
  c->tls.reset();
  c->secured = false;
  epoll_event ev{};
  ev.events = EPOLLOUT;
  ev.data.u64 = tag(reinterpret_cast<std::uintptr_t>(c));
  if (epoll_ctl(epoll_fd(), EPOLL_CTL_ADD, fd, &ev) != 0) {
    error = std::string("cannot watch the connection: ") + std::strerror(errno);
    ::close(fd);
    c->fd = -1;
    free_connections_.push_back(c);
    return nullptr;
  }
  c->watched = EPOLLOUT;
  return c;
}

void SocketTransport::watch(Connection* c, std::uint32_t events) {
  if (c->watched == events) return;
  epoll_event ev{};
  ev.events = events;
  ev.data.u64 = tag(reinterpret_cast<std::uintptr_t>(c));
  epoll_ctl(epoll_fd(), EPOLL_CTL_MOD, c->fd, &ev);
  c->watched = events;
}

void SocketTransport::close_connection(Connection* c) {
  forget(c);
  epoll_ctl(epoll_fd(), EPOLL_CTL_DEL, c->fd, nullptr);
  ::close(c->fd);
  c->fd = -1;
  c->tls.reset();
  free_connections_.push_back(c);
}

void SocketTransport::stamp_read(std::int64_t realtime, core::Nanos now) {
  read_kernel_ = config().kernel_stamps && realtime != 0;
  read_at_ = read_kernel_ ? realtime_.to_run(realtime, now) : now;
  host().note_read(read_kernel_ ? now - read_at_ : core::kNever);
}

void SocketTransport::stamp_end(core::Nanos now) {
  read_at_ = now;
  read_kernel_ = false;
  host().note_read(core::kNever);
}

int SocketTransport::connect_result(const Connection* c, std::uint32_t events) const {
  int error = 0;
  socklen_t len = sizeof error;
  getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &error, &len);
  if (error == 0 && (events & (EPOLLERR | EPOLLHUP)) != 0) error = ECONNREFUSED;
  return error;
}

void SocketTransport::on_events(std::uint64_t key, std::uint32_t events) {
  auto* c = reinterpret_cast<Connection*>(key);
  if (!c->connected) {
    if (const int error = connect_result(c, events); error != 0) {
      on_failed(c, core::ErrorClass::kConnect, connect_failure(target(c->endpoint), error));
      return;
    }
    c->connected = true;
    if (target(c->endpoint).tls) {
      c->tls = std::make_unique<TlsSession>(*tls_context_, c->fd, target(c->endpoint).host);
      continue_handshake(c);
      return;
    }
    on_connected(c);
    return;
  }
  if (c->tls != nullptr && !c->secured) {
    continue_handshake(c);
    return;
  }
  on_ready(c, events);
}

void SocketTransport::continue_handshake(Connection* c) {
  const HttpTarget& to = target(c->endpoint);
  const std::string server = "TLS with " + to.host + " port " + std::to_string(to.port);
  switch (c->tls->handshake()) {
    case TlsSession::Io::kDone:
      c->secured = true;
      if (const std::string alpn = c->tls->alpn(); needs_h2() && alpn != "h2") {
        on_failed(c, core::ErrorClass::kTls,
                  server + ": the server did not agree to HTTP/2 (ALPN " +
                      (alpn.empty() ? std::string("chose nothing") : "chose " + alpn) +
                      "): it serves HTTP/1.1 there; drop --http2");
        return;
      }
      on_connected(c);
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
  on_failed(c, core::ErrorClass::kTls,
            server + ": " +
                (c->tls->error().empty() ? std::string("the server closed the connection")
                                         : c->tls->error()));
}

SocketTransport::ReadEnd SocketTransport::read_stamped(Connection* c, std::string& error) {
  if (c->tls != nullptr) {
    // One socket event may bring several TLS records: read until the session holds no more.
    bool got = false;
    while (true) {
      std::size_t n = 0;
      const TlsSession::Io io = c->tls->read(read_buffer_.data(), read_buffer_.size(), n);
      const core::Nanos now = clock().now();
      if (io == TlsSession::Io::kWantRead || io == TlsSession::Io::kWantWrite) {
        return got ? ReadEnd::kDrained : ReadEnd::kWouldBlock;
      }
      if (io != TlsSession::Io::kDone) {
        stamp_end(now);
        if (io == TlsSession::Io::kError) {
          error = c->tls->error();
          return ReadEnd::kFailed;
        }
        return ReadEnd::kClosed;
      }
      stamp_read(c->tls->realtime(), now);
      got = true;
      if (!on_read(c, std::string_view(read_buffer_.data(), n))) return ReadEnd::kStopped;
      if (!c->tls->pending()) return ReadEnd::kDrained;
    }
  }
  std::int64_t realtime = 0;
  const ssize_t n = recv_stamped(c->fd, read_buffer_.data(), read_buffer_.size(), realtime);
  const int read_errno = errno;
  const core::Nanos now = clock().now();
  if (n < 0 && (read_errno == EAGAIN || read_errno == EWOULDBLOCK || read_errno == EINTR)) {
    return ReadEnd::kWouldBlock;
  }
  if (n > 0) {
    stamp_read(realtime, now);
    const std::string_view bytes(read_buffer_.data(), static_cast<std::size_t>(n));
    return on_read(c, bytes) ? ReadEnd::kDrained : ReadEnd::kStopped;
  }
  // The connection ended (0) or failed (< 0).
  stamp_end(now);
  if (n < 0) {
    error = std::strerror(read_errno);
    return ReadEnd::kFailed;
  }
  return ReadEnd::kClosed;
}

void SocketTransport::preopen(std::size_t per_endpoint, core::Nanos deadline) {
  epoll_event events[kMaxEvents];
  for (std::uint32_t e = 0; e < targets_.size(); ++e) {
    if (!targets_[e]) continue;
    const std::size_t want = connections_for(per_endpoint);
    std::size_t opened = open_count(e);
    std::size_t pending = 0;
    std::vector<Connection*> connecting;
    while ((opened < want || pending > 0) && clock().now() < deadline) {
      while (opened < want && pending < kConnectWindow) {
        std::string error;
        Connection* c = open_ahead(e, error);
        if (c == nullptr) {
          opened = want;  // out of descriptors or ports: the requests will say so
          break;
        }
        c->pre_opened = true;
        connecting.push_back(c);
        ++opened;
        ++pending;
      }
      const int n = epoll_wait(epoll_fd(), events, kMaxEvents, 10);
      for (int i = 0; i < n; ++i) {
        const std::uint64_t data = events[i].data.u64;
        if (id_of(data) != id_of(tag(0))) continue;
        auto* c = reinterpret_cast<Connection*>(key_of(data));
        const bool was_connecting = !c->connected;
        on_events(key_of(data), events[i].events);
        if (was_connecting) {
          --pending;
          if (c->fd >= 0 && c->connected) opened_ahead(c);
        }
      }
    }
    // Handshakes still in progress at the deadline are dropped.
    for (Connection* c : connecting) {
      if (c->fd >= 0 && !c->connected && !busy(c)) close_connection(c);
    }
  }
}

}  // namespace tokenbench::client
