// HTTP/2 on the native transport: a Worker's connections that multiplex requests as streams of
// an Http2Session. The socket, TLS, epoll and stamping are the HTTP/1.1 path's (worker.cpp); the
// session turns each stamped read into its streams' header and body callbacks, which are the
// same Transfer callbacks Http1Reader calls.

#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>

#include "tokenbench/client/worker.h"

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

}  // namespace

std::vector<Http2Session::Header> Worker::h2_request_fields(const HttpTarget& target,
                                                            const Endpoint& endpoint, bool stream) {
  auto strings = std::make_unique<std::vector<std::pair<std::string, std::string>>>();
  auto& fields = *strings;
  fields.emplace_back(":method", "POST");
  fields.emplace_back(":scheme", target.tls ? "https" : "http");
  fields.emplace_back(":authority", target.host_header);
  fields.emplace_back(":path", target.path);
  fields.emplace_back("content-type", "application/json");
  fields.emplace_back("accept",
                      config_.stream && stream ? "text/event-stream" : "application/json");
  fields.emplace_back("accept-encoding", "identity");
  for (const auto& line : endpoint.headers) {
    auto field = split_line(line);
    // Connection-specific fields are not HTTP/2's (RFC 9113 8.2.2); Host becomes :authority.
    if (field.first == "host") {
      fields[2].second = field.second;
    } else if (field.first != "connection" && field.first != "keep-alive" &&
               field.first != "proxy-connection" && field.first != "transfer-encoding" &&
               field.first != "upgrade" && field.first != "te" && !field.first.empty()) {
      fields.push_back(std::move(field));
    }
  }
  // The views are taken once every string is in place.
  std::vector<Http2Session::Header> headers;
  for (const auto& [name, value] : fields) headers.push_back({name, value});
  h2_strings_.push_back(std::move(strings));
  return headers;
}

void Worker::launch_h2(Transfer* t) {
  t->got_bytes = false;
  t->h2_requeued = false;
  t->rec.stamps = config_.kernel_stamps ? core::StampSource::kKernel : core::StampSource::kUser;
  t->rec.sent = clock_.now();
  t->last_activity = t->rec.sent;
  attach_h2(t);
}

void Worker::attach_h2(Transfer* t) {
  Connection* c = nullptr;
  if (!config_.per_request_connections) {
    for (Connection* open : h2_pool_[t->endpoint]) {
      if (open->h2->can_open()) {
        c = open;
        break;
      }
    }
  }
  if (c == nullptr) {
    std::string error;
    c = open_h2(t->endpoint, error);
    if (c == nullptr) {
      abort_transfer(t, core::ErrorClass::kConnect, error);
      finish(t, CURLE_COULDNT_CONNECT, /*added=*/false);
      return;
    }
  }
  h2_request_ = h2_fields_[t->stream ? 0 : 1][t->endpoint];
  t->h2_length = std::to_string(t->request_body->size());
  h2_request_.push_back({"content-length", t->h2_length});
  if (config_.request_ids) {
    // The lines are "X-Request-Id: ..." and "traceparent: ...": HTTP/2 names are lower case.
    t->id_headers.fill(t->trace, t->attempt);
    const std::string_view id(t->id_headers.request_id.data());
    const std::string_view parent(t->id_headers.traceparent.data());
    h2_request_.push_back({"x-request-id", trim(id.substr(id.find(':') + 1))});
    h2_request_.push_back({"traceparent", trim(parent.substr(parent.find(':') + 1))});
  }
  t->h2 = Http2Stream{};
  t->h2.sink = t;
  std::string error;
  if (!c->h2->submit(t->h2, h2_request_, *t->request_body, error)) {
    abort_transfer(t, core::ErrorClass::kProtocol, error);
    finish(t, CURLE_ABORTED_BY_CALLBACK, /*added=*/false);
    return;
  }
  t->conn = c;
  c->streams.push_back(t);
  if (c->connected && (c->tls == nullptr || c->secured)) flush_h2(c);
}

Connection* Worker::open_h2(std::uint32_t endpoint, std::string& error) {
  Connection* c = open_connection(endpoint, error);
  if (c == nullptr) return nullptr;
  c->h2 =
      std::make_unique<Http2Session>(config_.per_request_connections ? 1u : config_.http2_streams);
  c->single_use = config_.per_request_connections;
  if (!c->single_use) h2_pool_[endpoint].push_back(c);
  return c;
}

void Worker::on_h2_event(Connection* c, std::uint32_t events) {
  if ((events & (EPOLLIN | EPOLLHUP | EPOLLERR)) != 0) {
    read_h2(c);  // writes what the reads call for, too
    return;
  }
  if ((events & EPOLLOUT) != 0) flush_h2(c);
}

void Worker::h2_ready(Connection* c) {
  if (config_.per_request_connections) {
    const core::Nanos now = clock_.now();
    for (Transfer* t : c->streams) t->rec.connected = now;
  }
  flush_h2(c);  // the preface, the settings and the requests waiting for the connection
}

bool Worker::flush_h2(Connection* c) {
  while (true) {
    if (c->out_sent == c->out.size()) {
      c->out.clear();
      c->out_sent = 0;
      if (!c->h2->pull_output(c->out)) {
        fail_h2(c, core::ErrorClass::kProtocol, "HTTP/2: " + c->h2->error());
        return false;
      }
      settle_h2(c);  // a stream may close as its last frame goes out
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
      fail_h2(c, core::ErrorClass::kConnect, "Send failure: " + c->tls->error());
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
    const int send_error = n < 0 ? errno : EPIPE;
    // An HTTP/1.1 server answers the preface at once and closes: its answer may wait unread.
    char head[8];
    if (recv(c->fd, head, sizeof head, MSG_DONTWAIT | MSG_PEEK) >= 7 &&
        std::string_view(head, 7) == "HTTP/1.") {
      fail_h2(c, core::ErrorClass::kProtocol,
              "the server answered in HTTP/1.1: it does not speak h2c; drop --http2");
      return false;
    }
    fail_h2(c, core::ErrorClass::kConnect,
            std::string("Send failure: ") + std::strerror(send_error));
    return false;
  }
  if (c->h2->finished() || (c->single_use && c->streams.empty())) {
    // GOAWAY (the server's, or ours after bytes that are not HTTP/2) with every stream ended, or
    // a per-request connection whose request ended.
    if (!c->h2->local_close().empty()) {
      // This client's own GOAWAY: what the server sent broke HTTP/2, the server did not end it.
      // A copy: fail_h2 closes the connection, and its session with it.
      fail_h2(c, core::ErrorClass::kProtocol, std::string(c->h2->local_close()));
    } else if (const std::string error = c->h2->take_error(); !error.empty()) {
      fail_h2(c, core::ErrorClass::kProtocol, "the reply is not valid HTTP/2 (" + error + ")");
    } else {
      fail_h2(c, core::ErrorClass::kStreamCut,
              c->h2->goaway_error().empty() ? std::string("the server ended the HTTP/2 connection")
                                            : c->h2->goaway_error());
    }
    return false;
  }
  watch(c, EPOLLIN);
  return true;
}

bool Worker::receive_h2(Connection* c, std::string_view bytes) {
  if (!c->h2->receive(bytes)) {
    if (c->h2->http1_answer()) {
      fail_h2(c, core::ErrorClass::kProtocol,
              c->tls == nullptr
                  ? "the server answered in HTTP/1.1: it does not speak h2c; drop --http2"
                  : "the server answered in HTTP/1.1 after choosing h2 (ALPN): drop --http2");
      return false;
    }
    fail_h2(c, core::ErrorClass::kProtocol,
            "the reply is not valid HTTP/2 (" + c->h2->error() + ")");
    return false;
  }
  settle_h2(c);
  return true;
}

void Worker::read_h2(Connection* c) {
  if (c->tls != nullptr) {
    // One socket event may bring several TLS records: read until the session holds no more.
    while (true) {
      std::size_t n = 0;
      const TlsSession::Io io = c->tls->read(read_buffer_.data(), read_buffer_.size(), n);
      const core::Nanos now = clock_.now();
      if (io == TlsSession::Io::kWantRead || io == TlsSession::Io::kWantWrite) break;
      if (io != TlsSession::Io::kDone) {
        read_at_ = now;
        read_kernel_ = false;
        fail_h2(c, core::ErrorClass::kStreamCut,
                io == TlsSession::Io::kError ? "the connection failed: " + c->tls->error()
                                             : std::string("the server closed the connection"));
        return;
      }
      stamp_read(c->tls->realtime(), now);
      if (!receive_h2(c, std::string_view(read_buffer_.data(), n))) return;
      if (!c->tls->pending()) break;
    }
    flush_h2(c);
    return;
  }
  std::int64_t realtime = 0;
  const ssize_t n = recv_stamped(c->fd, read_buffer_.data(), read_buffer_.size(), realtime);
  const core::Nanos now = clock_.now();
  if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) return;
  if (n <= 0) {
    read_at_ = now;
    read_kernel_ = false;
    fail_h2(c, core::ErrorClass::kStreamCut,
            n < 0 ? std::string("the connection failed: ") + std::strerror(errno)
                  : std::string("the server closed the connection"));
    return;
  }
  stamp_read(realtime, now);
  if (!receive_h2(c, std::string_view(read_buffer_.data(), static_cast<std::size_t>(n)))) return;
  flush_h2(c);  // settings and ping acknowledgements, window updates, requests waiting
}

void Worker::settle_h2(Connection* c) {
  // A local list: finishing a request may reach another connection's settle_h2.
  std::vector<Http2Stream*> closed;
  c->h2->take_closed(closed);
  for (Http2Stream* s : closed) {
    Transfer* t = static_cast<Transfer*>(s->sink);
    if (const auto it = std::find(c->streams.begin(), c->streams.end(), t);
        it != c->streams.end()) {
      c->streams.erase(it);
    }
    t->conn = nullptr;
    if (t->aborted || s->stopped) {
      finish(t, CURLE_ABORTED_BY_CALLBACK, /*added=*/false);
    } else if (s->error_code == 0 && s->remote_ended) {
      c->reused = true;
      finish(t, CURLE_OK, /*added=*/false);
    } else if (Http2Session::refused(*s) && !t->got_bytes && !t->h2_requeued) {
      // Never processed by the server: it goes again, elsewhere, once this loop turn's events
      // are handled (sending it from here could reach this connection's own flush_h2).
      t->h2_requeued = true;
      h2_requeue_.push_back(t);
    } else if (!s->local_error.empty()) {
      // This client reset the stream: the server's frames for it broke HTTP/2.
      c->h2->take_error();
      abort_transfer(t, core::ErrorClass::kProtocol, s->local_error);
      finish(t, CURLE_ABORTED_BY_CALLBACK, /*added=*/false);
    } else if (std::string error = c->h2->take_error(); !error.empty()) {
      // libnghttp2 reset the stream itself: the server's frames for it broke the protocol.
      abort_transfer(t, core::ErrorClass::kProtocol,
                     "the reply is not valid HTTP/2 (" + error + ")");
      finish(t, CURLE_ABORTED_BY_CALLBACK, /*added=*/false);
    } else {
      abort_transfer(
          t, core::ErrorClass::kStreamCut,
          (s->error_code != 0
               ? "the server reset the stream (" + Http2Session::error_name(s->error_code) + ")"
               : std::string("the stream closed before the server ended it")) +
              " after " + std::to_string(t->reply_bytes) + " bytes");
      finish(t, CURLE_ABORTED_BY_CALLBACK, /*added=*/false);
    }
  }
}

void Worker::requeue_h2() {
  std::vector<Transfer*> again;
  again.swap(h2_requeue_);
  for (Transfer* t : again) {
    if (t->active) attach_h2(t);
  }
}

void Worker::fail_h2(Connection* c, core::ErrorClass error, const std::string& message) {
  const bool carried_before = c->reused || c->pre_opened;
  std::vector<Transfer*> streams;
  streams.swap(c->streams);
  close_connection(c);
  for (Transfer* t : streams) {
    t->conn = nullptr;
    t->h2.id = -1;
    if (t->aborted) {
      finish(t, CURLE_ABORTED_BY_CALLBACK, /*added=*/false);
    } else if (carried_before && !t->got_bytes && !t->h2_requeued &&
               error == core::ErrorClass::kStreamCut) {
      t->h2_requeued = true;
      attach_h2(t);  // the server closed a connection kept open: once more, on a fresh one
    } else {
      abort_transfer(t, error,
                     t->got_bytes && error == core::ErrorClass::kStreamCut
                         ? message + " in the middle of the reply after " +
                               std::to_string(t->reply_bytes) + " bytes"
                         : message);
      finish(t, CURLE_ABORTED_BY_CALLBACK, /*added=*/false);
    }
  }
}

void Worker::detach_h2(Transfer* t) {
  Connection* c = t->conn;
  t->conn = nullptr;
  if (const auto it = std::find(c->streams.begin(), c->streams.end(), t); it != c->streams.end()) {
    c->streams.erase(it);
  }
  c->h2->cancel(t->h2);
  if (c->single_use && c->streams.empty()) {
    close_connection(c);
    return;
  }
  watch(c, EPOLLIN | EPOLLOUT);  // the reset goes out on the next turn
}

}  // namespace tokenbench::client
