// The native HTTP/2 transport (http2_transport.h): requests multiplexed as streams of an
// Http2Session over the connections SocketTransport sets up and reads with stamps; the session's
// callbacks are the same ReplySink calls Http1Reader makes.

#include "tokenbench/client/http2_transport.h"

#include <sys/epoll.h>
#include <sys/socket.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>

namespace tokenbench::client {
namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) {
    s.remove_suffix(1);
  }
  return s;
}

// "Name: value" split into its lower-case name and its value.
std::pair<std::string, std::string> split_line(std::string_view line) {
  const std::size_t colon = line.find(':');
  if (colon == std::string_view::npos) return {lower(trim(line)), std::string()};
  return {lower(trim(line.substr(0, colon))), std::string(trim(line.substr(colon + 1)))};
}

// Connection-specific fields are not HTTP/2's (RFC 9113 8.2.2).
bool connection_specific(const std::string& name) {
  return name == "connection" || name == "keep-alive" || name == "proxy-connection" ||
         name == "transfer-encoding" || name == "upgrade" || name == "te";
}

}  // namespace

/// One request slot's state on this transport: the connection whose stream carries its attempt
/// (null when none), the stream, its Content-Length value, and whether this attempt went again
/// after a refused stream or a closed connection. The session reports to it (ReplySink).
struct Http2Transport::Attempt final : ReplySink {
  Pipe* conn = nullptr;
  Http2Stream h2;
  std::string length;
  bool requeued = false;
};

/// A connection of this transport: its session, the requests whose streams are open on it, the
/// output not yet written, and whether it carries one request only (--connection-mode
/// per-request).
struct Http2Transport::Pipe final : Connection {
  std::unique_ptr<Http2Session> h2;
  std::vector<Attempt*> streams;
  std::string out;
  std::size_t out_sent = 0;
  bool single_use = false;
  void clear() override {
    h2.reset();
    streams.clear();
    out = std::string();
    out_sent = 0;
    single_use = false;
  }
};

Http2Transport::Http2Transport(const TransportContext& context,
                               std::vector<std::optional<HttpTarget>> targets)
    : SocketTransport(context, std::move(targets)) {
  for (std::uint32_t e = 0; e < this->targets().size(); ++e) {
    pool_.emplace_back();
    for (const bool stream : {true, false}) {
      fields_[stream ? 0 : 1].push_back(this->targets()[e] ? request_fields(e, stream)
                                                           : std::vector<Http2Session::Header>{});
    }
  }
}

Http2Transport::~Http2Transport() = default;

std::vector<Http2Session::Header> Http2Transport::request_fields(std::uint32_t e, bool stream) {
  const HttpTarget& to = target(e);
  auto strings = std::make_unique<std::vector<std::pair<std::string, std::string>>>();
  auto& fields = *strings;
  fields.emplace_back(":method", "POST");
  fields.emplace_back(":scheme", to.tls ? "https" : "http");
  fields.emplace_back(":authority", to.host_header);
  fields.emplace_back(":path", to.path);
  fields.emplace_back("content-type", "application/json");
  fields.emplace_back("accept",
                      config().stream && stream ? "text/event-stream" : "application/json");
  fields.emplace_back("accept-encoding", "identity");
  for (const auto& line : config().endpoints[e].headers) {
    auto field = split_line(line);
    // Host becomes :authority.
    if (field.first == "host") {
      fields[2].second = field.second;
    } else if (!connection_specific(field.first) && !field.first.empty()) {
      fields.push_back(std::move(field));
    }
  }
  // The views are taken once every string is in place.
  std::vector<Http2Session::Header> headers;
  headers.reserve(fields.size());
  for (const auto& [name, value] : fields) headers.push_back({name, value});
  strings_.push_back(std::move(strings));
  return headers;
}

Http2Transport::Attempt& Http2Transport::attempt(Transfer& t) { return attempts_.of(t, this); }

const Connection* Http2Transport::connection_of(const Transfer& t) const {
  const Attempt* a = attempts_.find(t);
  return a != nullptr ? a->conn : nullptr;
}

std::unique_ptr<Connection> Http2Transport::make_connection() const {
  return std::make_unique<Pipe>();
}

void Http2Transport::submit(Transfer& t) {
  Attempt& a = attempt(t);
  a.got_bytes = false;
  a.requeued = false;
  t.rec.stamps = config().kernel_stamps ? core::StampSource::kKernel : core::StampSource::kUser;
  t.rec.sent = clock().now();
  t.last_activity = t.rec.sent;
  attach(a);
}

void Http2Transport::attach(Attempt& a) {
  Transfer& t = *a.transfer;
  Pipe* c = nullptr;
  if (!config().per_request_connections) {
    for (Pipe* open : pool_[t.endpoint]) {
      if (open->h2->can_open()) {
        c = open;
        break;
      }
    }
  }
  if (c == nullptr) {
    std::string error;
    c = open_pipe(t.endpoint, error);
    if (c == nullptr) {
      t.abort(core::ErrorClass::kConnect, error);
      host().finish(t, CURLE_COULDNT_CONNECT);
      return;
    }
  }
  request_ = fields_[t.stream ? 0 : 1][t.endpoint];
  a.length = std::to_string(t.request_body->size());
  request_.push_back({"content-length", a.length});
  if (config().request_ids) {
    // The lines are "X-Request-Id: ..." and "traceparent: ...": HTTP/2 names are lower case.
    t.id_headers.fill(t.trace, t.attempt);
    const std::string_view id(t.id_headers.request_id.data());
    const std::string_view parent(t.id_headers.traceparent.data());
    request_.push_back({"x-request-id", trim(id.substr(id.find(':') + 1))});
    request_.push_back({"traceparent", trim(parent.substr(parent.find(':') + 1))});
  }
  a.h2 = Http2Stream{};
  a.h2.sink = &a;
  std::string error;
  if (!c->h2->submit(a.h2, request_, *t.request_body, error)) {
    t.abort(core::ErrorClass::kProtocol, error);
    host().finish(t, CURLE_ABORTED_BY_CALLBACK);
    return;
  }
  a.conn = c;
  c->streams.push_back(&a);
  if (c->ready()) flush(c);
}

Http2Transport::Pipe* Http2Transport::open_pipe(std::uint32_t endpoint, std::string& error) {
  auto* c = static_cast<Pipe*>(open_connection(endpoint, error));
  if (c == nullptr) return nullptr;
  c->h2 = std::make_unique<Http2Session>(config().per_request_connections ? 1u
                                                                          : config().http2_streams);
  c->single_use = config().per_request_connections;
  if (!c->single_use) pool_[endpoint].push_back(c);
  return c;
}

void Http2Transport::close(Transfer& t) {
  Attempt* found = attempts_.find(t);
  if (found == nullptr) return;
  Attempt& a = *found;
  Pipe* c = a.conn;
  if (c == nullptr) return;
  // Its stream is reset; the connection carries on.
  a.conn = nullptr;
  if (const auto it = std::find(c->streams.begin(), c->streams.end(), &a); it != c->streams.end()) {
    c->streams.erase(it);
  }
  c->h2->cancel(a.h2);
  if (c->single_use && c->streams.empty()) {
    close_connection(c);
    return;
  }
  watch(c, EPOLLIN | EPOLLOUT);  // the reset goes out on the next turn
}

AttemptFacts Http2Transport::facts(Transfer& t) {
  AttemptFacts facts;
  facts.status = t.status;
  facts.location = t.location;
  return facts;
}

void Http2Transport::after_events() {
  if (requeue_.empty()) return;
  // Refused streams go again, on other connections.
  std::vector<Attempt*> again;
  again.swap(requeue_);
  for (Attempt* a : again) {
    if (a->transfer->active) attach(*a);
  }
}

std::size_t Http2Transport::idle_connections() const {
  std::size_t n = 0;
  for (const auto& pool : pool_) {
    n += static_cast<std::size_t>(std::count_if(pool.begin(), pool.end(), [](const Pipe* c) {
      return c->streams.empty() && c->connected;
    }));
  }
  return n;
}

void Http2Transport::forget(Connection* connection) {
  auto* c = static_cast<Pipe*>(connection);
  auto& pool = pool_[c->endpoint];
  if (const auto it = std::find(pool.begin(), pool.end(), c); it != pool.end()) pool.erase(it);
  for (Attempt* a : c->streams) a->conn = nullptr;
  c->streams.clear();
  c->h2.reset();
  c->out = std::string();
}

void Http2Transport::on_connected(Connection* connection) {
  auto* c = static_cast<Pipe*>(connection);
  if (config().per_request_connections) {
    const core::Nanos now = clock().now();
    for (Attempt* a : c->streams) a->transfer->rec.connected = now;
  }
  flush(c);  // the preface, the settings and the requests waiting for the connection
}

void Http2Transport::on_failed(Connection* c, core::ErrorClass error, const std::string& message) {
  fail(static_cast<Pipe*>(c), error, message);
}

void Http2Transport::on_ready(Connection* connection, std::uint32_t events) {
  auto* c = static_cast<Pipe*>(connection);
  if ((events & (EPOLLIN | EPOLLHUP | EPOLLERR)) == 0) {
    if ((events & EPOLLOUT) != 0) flush(c);
    return;
  }
  std::string error;
  switch (read_stamped(c, error)) {
    case ReadEnd::kClosed:
      fail(c, core::ErrorClass::kStreamCut, "the server closed the connection");
      return;
    case ReadEnd::kFailed:
      fail(c, core::ErrorClass::kStreamCut, "the connection failed: " + error);
      return;
    case ReadEnd::kStopped:
      return;
    case ReadEnd::kWouldBlock:
      if (c->tls == nullptr) return;
      break;
    case ReadEnd::kDrained:
      break;
  }
  flush(c);  // settings and ping acknowledgements, window updates, requests waiting
}

bool Http2Transport::on_read(Connection* connection, std::string_view bytes) {
  auto* c = static_cast<Pipe*>(connection);
  if (!c->h2->receive(bytes)) {
    if (c->h2->http1_answer()) {
      fail(c, core::ErrorClass::kProtocol,
           c->tls == nullptr
               ? "the server answered in HTTP/1.1: it does not speak h2c; drop --http2"
               : "the server answered in HTTP/1.1 after choosing h2 (ALPN): drop --http2");
      return false;
    }
    fail(c, core::ErrorClass::kProtocol, "the reply is not valid HTTP/2 (" + c->h2->error() + ")");
    return false;
  }
  settle(c);
  return true;
}

bool Http2Transport::flush(Pipe* c) {
  while (true) {
    if (c->out_sent == c->out.size()) {
      c->out.clear();
      c->out_sent = 0;
      if (!c->h2->pull_output(c->out)) {
        fail(c, core::ErrorClass::kProtocol, "HTTP/2: " + c->h2->error());
        return false;
      }
      settle(c);  // a stream may close as its last frame goes out
      if (c->out.empty()) break;
    }
    const char* p = c->out.data() + c->out_sent;
    const std::size_t len = c->out.size() - c->out_sent;
    if (c->tls != nullptr) {
      std::size_t n = 0;
      const TlsSession::Io io = c->tls->write(p, len, n);
      if (io == TlsSession::Io::kDone) {
        c->out_sent += n;
        continue;
      }
      if (io == TlsSession::Io::kWantWrite || io == TlsSession::Io::kWantRead) {
        watch(c, EPOLLIN | EPOLLOUT);
        return true;
      }
      fail(c, core::ErrorClass::kConnect, "Send failure: " + c->tls->error());
      return false;
    }
    const ssize_t n = send(c->fd, p, len, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n > 0) {
      c->out_sent += static_cast<std::size_t>(n);
      continue;
    }
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      watch(c, EPOLLIN | EPOLLOUT);
      return true;
    }
    if (n < 0 && errno == EINTR) continue;
    send_failed(c, n < 0 ? errno : EPIPE);
    return false;
  }
  if (c->h2->finished() || (c->single_use && c->streams.empty())) {
    session_ended(c);
    return false;
  }
  watch(c, EPOLLIN);
  return true;
}

void Http2Transport::send_failed(Pipe* c, int send_error) {
  // An HTTP/1.1 server answers the preface at once and closes: its answer may wait unread.
  char head[8];
  if (recv(c->fd, head, sizeof head, MSG_DONTWAIT | MSG_PEEK) >= 7 &&
      std::string_view(head, 7) == "HTTP/1.") {
    fail(c, core::ErrorClass::kProtocol,
         "the server answered in HTTP/1.1: it does not speak h2c; drop --http2");
    return;
  }
  fail(c, core::ErrorClass::kConnect, std::string("Send failure: ") + std::strerror(send_error));
}

void Http2Transport::session_ended(Pipe* c) {
  // GOAWAY (the server's, or ours after bytes that are not HTTP/2) with every stream ended, or
  // a per-request connection whose request ended.
  if (!c->h2->local_close().empty()) {
    // This client's own GOAWAY: what the server sent broke HTTP/2, the server did not end it.
    // A copy: fail closes the connection, and its session with it.
    fail(c, core::ErrorClass::kProtocol, std::string(c->h2->local_close()));
  } else if (const std::string error = c->h2->take_error(); !error.empty()) {
    fail(c, core::ErrorClass::kProtocol, "the reply is not valid HTTP/2 (" + error + ")");
  } else {
    fail(c, core::ErrorClass::kStreamCut,
         c->h2->goaway_error().empty() ? std::string("the server ended the HTTP/2 connection")
                                       : c->h2->goaway_error());
  }
}

void Http2Transport::settle(Pipe* c) {
  // A local list: finishing a request may reach another connection's settle.
  std::vector<Http2Stream*> closed;
  c->h2->take_closed(closed);
  for (Http2Stream* s : closed) {
    auto* a = static_cast<Attempt*>(static_cast<ReplySink*>(s->sink));
    Transfer& t = *a->transfer;
    if (const auto it = std::find(c->streams.begin(), c->streams.end(), a);
        it != c->streams.end()) {
      c->streams.erase(it);
    }
    a->conn = nullptr;
    if (t.aborted || s->stopped) {
      host().finish(t, CURLE_ABORTED_BY_CALLBACK);
    } else if (s->error_code == 0 && s->remote_ended) {
      c->reused = true;
      host().finish(t, CURLE_OK);
    } else if (Http2Session::refused(*s) && !a->got_bytes && !a->requeued) {
      // Never processed by the server: it goes again, elsewhere, once this loop turn's events
      // are handled (sending it from here could reach this connection's own flush).
      a->requeued = true;
      requeue_.push_back(a);
    } else {
      stream_failed(c, *a, *s);
    }
  }
}

void Http2Transport::stream_failed(Pipe* c, Attempt& a, const Http2Stream& s) {
  Transfer& t = *a.transfer;
  if (!s.local_error.empty()) {
    // This client reset the stream: the server's frames for it broke HTTP/2.
    c->h2->take_error();
    t.abort(core::ErrorClass::kProtocol, s.local_error);
  } else if (std::string error = c->h2->take_error(); !error.empty()) {
    // libnghttp2 reset the stream itself: the server's frames for it broke the protocol.
    t.abort(core::ErrorClass::kProtocol, "the reply is not valid HTTP/2 (" + error + ")");
  } else {
    t.abort(core::ErrorClass::kStreamCut,
            (s.error_code != 0
                 ? "the server reset the stream (" + Http2Session::error_name(s.error_code) + ")"
                 : std::string("the stream closed before the server ended it")) +
                " after " + std::to_string(t.reply_bytes) + " bytes");
  }
  host().finish(t, CURLE_ABORTED_BY_CALLBACK);
}

void Http2Transport::fail(Pipe* c, core::ErrorClass error, const std::string& message) {
  const bool carried_before = c->reused || c->pre_opened;
  std::vector<Attempt*> streams;
  streams.swap(c->streams);
  close_connection(c);
  for (Attempt* a : streams) {
    Transfer& t = *a->transfer;
    a->conn = nullptr;
    a->h2.id = -1;
    if (t.aborted) {
      host().finish(t, CURLE_ABORTED_BY_CALLBACK);
    } else if (carried_before && !a->got_bytes && !a->requeued &&
               error == core::ErrorClass::kStreamCut) {
      a->requeued = true;
      attach(*a);  // the server closed a connection kept open: once more, on a fresh one
    } else {
      t.abort(error, a->got_bytes && error == core::ErrorClass::kStreamCut
                         ? message + " in the middle of the reply after " +
                               std::to_string(t.reply_bytes) + " bytes"
                         : message);
      host().finish(t, CURLE_ABORTED_BY_CALLBACK);
    }
  }
}

std::size_t Http2Transport::connections_for(std::size_t per_endpoint) const {
  return (per_endpoint + config().http2_streams - 1) / config().http2_streams;
}

std::size_t Http2Transport::open_count(std::uint32_t endpoint) const {
  return pool_[endpoint].size();
}

Connection* Http2Transport::open_ahead(std::uint32_t endpoint, std::string& error) {
  return open_pipe(endpoint, error);
}

}  // namespace tokenbench::client
