// The native HTTP/1.1 transport (http1_transport.h): requests written with one sendmsg of head
// and body, replies parsed by Http1Reader as each stamped read arrives, connections kept alive.

#include "tokenbench/client/http1_transport.h"

#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace tokenbench::client {
namespace {

constexpr std::uint32_t kReaderHeaderLimit = kMaxHeaderBytes;

}  // namespace

/// One request slot's state on this transport: the connection carrying its attempt (null when
/// none), the reply's reader, the request head and how much of head + body is written. The
/// reader reports to it (ReplySink).
struct Http1Transport::Attempt final : ReplySink {
  Link* conn = nullptr;
  Http1Reader reader;
  std::string head;
  std::size_t written = 0;

  std::size_t total() const { return head.size() + transfer->request_body->size(); }
};

/// A connection of this transport: the request it carries (null while idle) and the bytes
/// received but not yet parsed (a partial header or chunk line).
struct Http1Transport::Link final : Connection {
  Attempt* transfer = nullptr;
  std::string carry;
  void clear() override {
    transfer = nullptr;
    carry = std::string();
  }
};

Http1Transport::Http1Transport(const TransportContext& context,
                               std::vector<std::optional<HttpTarget>> targets)
    : SocketTransport(context, std::move(targets)) {
  for (std::uint32_t e = 0; e < this->targets().size(); ++e) {
    idle_.emplace_back();
    const auto& to = this->targets()[e];
    for (const bool stream : {true, false}) {
      if (!to) {
        head_prefix_[stream ? 0 : 1].emplace_back();
        continue;
      }
      // The request head's fixed part: the same headers libcurl's path sends.
      std::string head = "POST " + to->path + " HTTP/1.1\r\nHost: " + to->host_header +
                         "\r\nContent-Type: application/json\r\nAccept: " +
                         (config().stream && stream ? "text/event-stream" : "application/json") +
                         "\r\nAccept-Encoding: identity\r\n";
      if (config().per_request_connections) head += "Connection: close\r\n";
      for (const auto& h : config().endpoints[e].headers) head += h + "\r\n";
      head_prefix_[stream ? 0 : 1].push_back(std::move(head));
    }
  }
}

Http1Transport::~Http1Transport() = default;

Http1Transport::Attempt& Http1Transport::attempt(Transfer& t) { return attempts_.of(t, this); }

const Connection* Http1Transport::connection_of(const Transfer& t) const {
  const Attempt* a = attempts_.find(t);
  return a != nullptr ? a->conn : nullptr;
}

std::unique_ptr<Connection> Http1Transport::make_connection() const {
  return std::make_unique<Link>();
}

void Http1Transport::submit(Transfer& t) {
  Attempt& a = attempt(t);
  a.head.assign(head_prefix_[t.stream ? 0 : 1][t.endpoint]);
  if (config().request_ids) {
    t.id_headers.fill(t.trace, t.attempt);
    a.head.append(t.id_headers.request_id.data()).append("\r\n");
    a.head.append(t.id_headers.traceparent.data()).append("\r\n");
  }
  a.head.append("Content-Length: ").append(std::to_string(t.request_body->size()));
  a.head.append("\r\n\r\n");
  a.written = 0;
  a.got_bytes = false;
  t.rec.stamps = config().kernel_stamps ? core::StampSource::kKernel : core::StampSource::kUser;
  a.reader.reset(&a, kReaderHeaderLimit);
  Link* c = nullptr;
  auto& idle = idle_[t.endpoint];
  if (!idle.empty()) {
    c = idle.back();
    idle.pop_back();
  }
  t.rec.sent = clock().now();
  t.last_activity = t.rec.sent;
  if (c == nullptr) {
    std::string error;
    c = static_cast<Link*>(open_connection(t.endpoint, error));
    if (c == nullptr) {
      t.abort(core::ErrorClass::kConnect, error);
      host().finish(t, CURLE_COULDNT_CONNECT);
      return;
    }
  }
  attach(a, c);
}

void Http1Transport::close(Transfer& t) {
  Attempt* found = attempts_.find(t);
  if (found == nullptr) return;
  Attempt& a = *found;
  if (a.conn == nullptr) return;
  // A reply not read to its end leaves its connection unusable.
  close_connection(a.conn);
  a.conn = nullptr;
}

AttemptFacts Http1Transport::facts(Transfer& t) {
  AttemptFacts facts;
  facts.status = t.status;
  facts.location = t.location;
  return facts;
}

std::size_t Http1Transport::idle_connections() const {
  std::size_t n = 0;
  for (const auto& idle : idle_) n += idle.size();
  return n;
}

void Http1Transport::forget(Connection* connection) {
  auto* c = static_cast<Link*>(connection);
  if (c->transfer == nullptr) {
    auto& idle = idle_[c->endpoint];
    if (const auto it = std::find(idle.begin(), idle.end(), c); it != idle.end()) idle.erase(it);
  } else {
    c->transfer->conn = nullptr;
  }
  c->transfer = nullptr;
  c->carry = std::string();
}

void Http1Transport::attach(Attempt& a, Link* c) {
  a.conn = c;
  c->transfer = &a;
  c->carry.clear();
  if (c->ready()) {
    write_request(a);
  } else {
    watch(c, EPOLLOUT);
  }
}

void Http1Transport::write_request(Attempt& a) {
  Link* c = a.conn;
  const std::string& body = *a.transfer->request_body;
  const std::size_t total = a.total();
  if (c->tls != nullptr) {
    while (a.written < total) {
      const bool in_head = a.written < a.head.size();
      const char* p =
          in_head ? a.head.data() + a.written : body.data() + (a.written - a.head.size());
      const std::size_t len = in_head ? a.head.size() - a.written : total - a.written;
      std::size_t n = 0;
      switch (c->tls->write(p, len, n)) {
        case TlsSession::Io::kDone:
          a.written += n;
          continue;
        case TlsSession::Io::kWantWrite:
          watch(c, EPOLLIN | EPOLLOUT);
          return;
        case TlsSession::Io::kWantRead:
          watch(c, EPOLLIN);
          return;
        case TlsSession::Io::kClosed:
        case TlsSession::Io::kError:
          fail(a, core::ErrorClass::kConnect, "Send failure: " + c->tls->error());
          return;
      }
    }
    watch(c, EPOLLIN);
    return;
  }
  while (a.written < total) {
    iovec iov[2];
    int count = 0;
    if (a.written < a.head.size()) {
      iov[count++] = {a.head.data() + a.written, a.head.size() - a.written};
      iov[count++] = {const_cast<char*>(body.data()), body.size()};
    } else {
      const std::size_t off = a.written - a.head.size();
      iov[count++] = {const_cast<char*>(body.data()) + off, body.size() - off};
    }
    msghdr msg{};
    msg.msg_iov = iov;
    msg.msg_iovlen = static_cast<std::size_t>(count);
    const ssize_t n = sendmsg(c->fd, &msg, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n > 0) {
      a.written += static_cast<std::size_t>(n);
      continue;
    }
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      watch(c, EPOLLIN | EPOLLOUT);
      return;
    }
    if (n < 0 && errno == EINTR) continue;
    fail(a, core::ErrorClass::kConnect,
         std::string("Send failure: ") + std::strerror(n < 0 ? errno : EPIPE));
    return;
  }
  watch(c, EPOLLIN);
}

void Http1Transport::on_ready(Connection* connection, std::uint32_t events) {
  auto* c = static_cast<Link*>(connection);
  Attempt* a = c->transfer;
  if (a == nullptr) {
    if (c->tls != nullptr) {
      // TLS 1.3 servers send session tickets after the handshake: records that are read
      // without a byte of data are not a close.
      std::size_t n = 0;
      if (c->tls->read(read_buffer(), read_buffer_size(), n) == TlsSession::Io::kWantRead) return;
    }
    // An idle connection became readable: the server closed it (or sent what nobody asked for).
    close_connection(c);
    return;
  }
  if ((events & EPOLLOUT) != 0 && a->written < a->total()) {
    write_request(*a);
    if (a->conn != c) return;
  }
  if ((events & (EPOLLIN | EPOLLHUP | EPOLLERR)) == 0) return;
  std::string error;
  switch (read_stamped(c, error)) {
    case ReadEnd::kClosed:
    case ReadEnd::kFailed:
      reply_ended(*a, error);
      return;
    default:
      return;
  }
}

void Http1Transport::on_failed(Connection* connection, core::ErrorClass error,
                               const std::string& message) {
  auto* c = static_cast<Link*>(connection);
  Attempt* a = c->transfer;
  if (a == nullptr) {
    close_connection(c);  // opened ahead: a request will try again and record the failure
    return;
  }
  a->transfer->abort(error, message);
  host().finish(*a->transfer,
                error == core::ErrorClass::kTls ? CURLE_SSL_CONNECT_ERROR : CURLE_COULDNT_CONNECT);
}

void Http1Transport::on_connected(Connection* connection) {
  auto* c = static_cast<Link*>(connection);
  Attempt* a = c->transfer;
  if (a == nullptr) {
    watch(c, EPOLLIN);  // opened ahead, idle: a close or stray bytes end it
    return;
  }
  if (config().per_request_connections) a->transfer->rec.connected = clock().now();
  write_request(*a);
}

bool Http1Transport::on_read(Connection* connection, std::string_view bytes) {
  auto* c = static_cast<Link*>(connection);
  Attempt& a = *c->transfer;
  a.got_bytes = true;
  if (c->carry.empty()) {
    parse_reply(c, a, bytes, false);
  } else {
    c->carry.append(bytes);
    parse_reply(c, a, c->carry, true);
  }
  return a.conn == c;
}

void Http1Transport::reply_ended(Attempt& a, const std::string& error) {
  Transfer& t = *a.transfer;
  if (a.reader.end_of_stream() == Http1Reader::Result::kDone && !t.aborted) {
    end_reply(a);
    return;
  }
  if (t.aborted) {
    host().finish(t, CURLE_ABORTED_BY_CALLBACK);
    return;
  }
  if (!a.got_bytes) {
    fail(a, core::ErrorClass::kStreamCut,
         !error.empty() ? "Recv failure: " + error : std::string("Empty reply from server"));
    return;
  }
  fail(a, core::ErrorClass::kStreamCut,
       std::string("the connection ended in the middle of the reply") +
           (!error.empty() ? " (" + error + ")" : std::string()) + " after " +
           std::to_string(t.reply_bytes) + " bytes");
}

void Http1Transport::parse_reply(Link* c, Attempt& a, std::string_view data, bool from_carry) {
  Transfer& t = *a.transfer;
  std::size_t consumed = 0;
  switch (a.reader.feed(data, consumed)) {
    case Http1Reader::Result::kMore:
      if (from_carry) {
        c->carry.erase(0, consumed);
      } else {
        c->carry.assign(data.substr(consumed));
      }
      if (t.aborted) host().finish(t, CURLE_ABORTED_BY_CALLBACK);
      return;
    case Http1Reader::Result::kDone:
      if (t.aborted) {
        host().finish(t, CURLE_ABORTED_BY_CALLBACK);
      } else {
        end_reply(a);
      }
      return;
    case Http1Reader::Result::kStopped:
      host().finish(t, CURLE_ABORTED_BY_CALLBACK);
      return;
    case Http1Reader::Result::kError:
      if (t.aborted) {
        // the sink ended it already
      } else if (a.reader.header_too_large()) {
        t.abort(core::ErrorClass::kProtocol, "the response headers exceed " +
                                                 std::to_string(kMaxHeaderBytes / 1024) +
                                                 " KiB: a broken server or proxy");
      } else {
        t.abort(core::ErrorClass::kMalformed,
                "the reply is not valid HTTP/1.1 (" + a.reader.error() + ")");
      }
      host().finish(t, CURLE_ABORTED_BY_CALLBACK);
      return;
  }
}

void Http1Transport::end_reply(Attempt& a) {
  Link* c = a.conn;
  if (c != nullptr && a.reader.keep_alive() && !config().per_request_connections) {
    // Back to the idle pool, watched for a close by the server.
    a.conn = nullptr;
    c->transfer = nullptr;
    c->reused = true;
    c->carry.clear();
    watch(c, EPOLLIN);
    idle_[c->endpoint].push_back(c);
  }
  host().finish(*a.transfer, CURLE_OK);
}

void Http1Transport::fail(Attempt& a, core::ErrorClass error, std::string message) {
  Transfer& t = *a.transfer;
  Link* c = a.conn;
  if (c != nullptr && (c->reused || c->pre_opened) && !a.got_bytes && !t.aborted) {
    // The server closed an idle keep-alive connection as this request went out on it: the
    // request never reached it, so it goes again on a fresh connection.
    close_connection(c);
    std::string open_error;
    auto* fresh = static_cast<Link*>(open_connection(t.endpoint, open_error));
    if (fresh != nullptr) {
      a.written = 0;
      a.reader.reset(&a, kReaderHeaderLimit);
      attach(a, fresh);
      return;
    }
    message = open_error;
    error = core::ErrorClass::kConnect;
  }
  if (!t.aborted) t.abort(error, message);
  host().finish(t, CURLE_ABORTED_BY_CALLBACK);
}

std::size_t Http1Transport::open_count(std::uint32_t endpoint) const {
  return idle_[endpoint].size();
}

Connection* Http1Transport::open_ahead(std::uint32_t endpoint, std::string& error) {
  return open_connection(endpoint, error);
}

void Http1Transport::opened_ahead(Connection* c) {
  idle_[c->endpoint].push_back(static_cast<Link*>(c));
}

bool Http1Transport::busy(const Connection* c) const {
  return static_cast<const Link*>(c)->transfer != nullptr;
}

}  // namespace tokenbench::client
