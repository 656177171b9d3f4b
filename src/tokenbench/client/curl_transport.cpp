// libcurl's transport (curl_transport.h): the multi-socket API on the worker's epoll loop.

#include "tokenbench/client/curl_transport.h"

#include <sys/epoll.h>

#include <algorithm>
#include <stdexcept>
#include <string>

#include "tokenbench/client/http_get.h"

namespace tokenbench::client {
namespace {

curl_slist* header_list(const EngineConfig& config, const Endpoint& endpoint, bool stream) {
  curl_slist* list = curl_slist_append(nullptr, "Content-Type: application/json");
  list = curl_slist_append(
      list, config.stream && stream ? "Accept: text/event-stream" : "Accept: application/json");
  // curl 7.x sends "Expect: 100-continue" for larger bodies, costing a round trip per request.
  list = curl_slist_append(list, "Expect:");
  // No compression: a gzipped stream may be buffered by the server or a proxy, which would move
  // every token stamp. Set as a header, not CURLOPT_ACCEPT_ENCODING, so that libcurl never
  // inflates a body the server encodes anyway (a 200 KB body can inflate to gigabytes); such a
  // reply is refused instead.
  list = curl_slist_append(list, "Accept-Encoding: identity");
  for (const auto& h : endpoint.headers) list = curl_slist_append(list, h.c_str());
  return list;
}

}  // namespace

CurlTransport::CurlTransport(const TransportContext& context) : Transport(context) {
  multi_ = curl_multi_init();
  if (multi_ == nullptr) throw std::runtime_error("cannot create the event loop: curl_multi_init");
  curl_multi_setopt(multi_, CURLMOPT_SOCKETFUNCTION, &CurlTransport::on_socket);
  curl_multi_setopt(multi_, CURLMOPT_SOCKETDATA, this);
  curl_multi_setopt(multi_, CURLMOPT_TIMERFUNCTION, &CurlTransport::on_timer);
  curl_multi_setopt(multi_, CURLMOPT_TIMERDATA, this);
  if (config().http2) {
    curl_multi_setopt(multi_, CURLMOPT_PIPELINING, CURLPIPE_MULTIPLEX);
    curl_multi_setopt(multi_, CURLMOPT_MAX_CONCURRENT_STREAMS,
                      static_cast<long>(config().http2_streams));
  }
  for (const Endpoint& endpoint : config().endpoints) {
    headers_.push_back(header_list(config(), endpoint, true));
    whole_headers_.push_back(header_list(config(), endpoint, false));
  }
}

CurlTransport::~CurlTransport() {
  for (const auto& a : attempts_.all()) {
    if (a == nullptr || a->easy == nullptr) continue;
    curl_multi_remove_handle(multi_, a->easy);
    curl_easy_cleanup(a->easy);
  }
  curl_multi_cleanup(multi_);
  for (curl_slist* list : headers_) curl_slist_free_all(list);
  for (curl_slist* list : whole_headers_) curl_slist_free_all(list);
}

CurlTransport::Attempt& CurlTransport::attempt(Transfer& t) {
  bool made = false;
  Attempt& a = attempts_.of(t, this, &made);
  if (made) set_up(a);
  return a;
}

void CurlTransport::set_up(Attempt& a) {
  a.easy = curl_easy_init();
  if (a.easy == nullptr) throw std::runtime_error("curl_easy_init failed");
  CURL* e = a.easy;
  curl_easy_setopt(e, CURLOPT_URL, config().endpoints[0].url.c_str());
  curl_easy_setopt(e, CURLOPT_HTTPHEADER, headers_[0]);
  curl_easy_setopt(e, CURLOPT_POST, 1L);
  curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, &CurlTransport::on_write);
  curl_easy_setopt(e, CURLOPT_WRITEDATA, &a);
  curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, &CurlTransport::on_header);
  curl_easy_setopt(e, CURLOPT_HEADERDATA, &a);
  curl_easy_setopt(e, CURLOPT_PRIVATE, &a);
  curl_easy_setopt(e, CURLOPT_ERRORBUFFER, a.error);
  curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(e, CURLOPT_TCP_NODELAY, 1L);
  if (config().http2) {
    // h2c with prior knowledge, ALPN "h2" for https; streams wait for room on a connection
    // rather than opening one each.
    curl_easy_setopt(e, CURLOPT_HTTP_VERSION, CURL_HTTP_VERSION_2_PRIOR_KNOWLEDGE);
    curl_easy_setopt(e, CURLOPT_PIPEWAIT, 1L);
  } else {
    curl_easy_setopt(e, CURLOPT_HTTP_VERSION, CURL_HTTP_VERSION_1_1);
  }
  apply_tls_options(e, config().tls);
  curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, static_cast<long>(config().timeout_s * 1000.0));
  if (config().connect_timeout_s > 0) {
    curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS,
                     static_cast<long>(std::max(1.0, config().connect_timeout_s * 1000.0)));
  }
  if (config().per_request_connections) {
    curl_easy_setopt(e, CURLOPT_FRESH_CONNECT, 1L);
    curl_easy_setopt(e, CURLOPT_FORBID_REUSE, 1L);
  }
}

void CurlTransport::submit(Transfer& t) {
  Attempt& a = attempt(t);
  if (a.endpoint != t.endpoint) {
    a.endpoint = t.endpoint;
    curl_easy_setopt(a.easy, CURLOPT_URL, config().endpoints[t.endpoint].url.c_str());
  }
  a.error[0] = '\0';
  curl_slist* headers = (t.stream ? headers_ : whole_headers_)[t.endpoint];
  if (config().request_ids) {
    // The same X-Request-Id for every attempt, a span id of the attempt's own.
    t.id_headers.fill(t.trace, t.attempt);
    a.id_nodes[0] = curl_slist{t.id_headers.request_id.data(), &a.id_nodes[1]};
    a.id_nodes[1] = curl_slist{t.id_headers.traceparent.data(), headers};
    headers = &a.id_nodes[0];
  }
  curl_easy_setopt(a.easy, CURLOPT_HTTPHEADER, headers);
  const std::string& body = *t.request_body;
  curl_easy_setopt(a.easy, CURLOPT_POSTFIELDS, body.data());
  curl_easy_setopt(a.easy, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(body.size()));
  t.rec.sent = clock().now();
  t.last_activity = t.rec.sent;
  a.in_multi = true;
  if (const CURLMcode rc = curl_multi_add_handle(multi_, a.easy); rc != CURLM_OK) {
    a.in_multi = false;
    t.abort(core::ErrorClass::kConnect,
            std::string("cannot start the request: ") + curl_multi_strerror(rc));
    host().finish(t, CURLE_FAILED_INIT);
  }
}

void CurlTransport::on_events(std::uint64_t key, std::uint32_t events) {
  int mask = 0;
  if (events & EPOLLIN) mask |= CURL_CSELECT_IN;
  if (events & EPOLLOUT) mask |= CURL_CSELECT_OUT;
  if (events & (EPOLLERR | EPOLLHUP)) mask |= CURL_CSELECT_ERR;
  socket_action(static_cast<curl_socket_t>(key >> 3), mask);
}

void CurlTransport::close(Transfer& t) {
  Attempt* found = attempts_.find(t);
  if (found == nullptr) return;
  Attempt& a = *found;
  if (a.in_multi) curl_multi_remove_handle(multi_, a.easy);
  a.in_multi = false;
}

AttemptFacts CurlTransport::facts(Transfer& t) {
  AttemptFacts facts;
  Attempt& a = attempt(t);
  curl_easy_getinfo(a.easy, CURLINFO_RESPONSE_CODE, &facts.status);
  curl_off_t connect_us = 0;
  if (config().per_request_connections &&
      curl_easy_getinfo(a.easy, CURLINFO_CONNECT_TIME_T, &connect_us) == CURLE_OK &&
      connect_us > 0) {
    facts.connected = t.rec.sent + connect_us * 1000;
  }
  if (facts.status >= 300 && facts.status < 400) {
    char* location = nullptr;
    curl_easy_getinfo(a.easy, CURLINFO_REDIRECT_URL, &location);
    facts.location = location != nullptr ? location : "";
  }
  facts.error = a.error;
  return facts;
}

Stage CurlTransport::stage(const Transfer& t) const {
  const Attempt* a = attempts_.find(t);
  return a != nullptr && a->in_multi ? Stage::kExchanging : Stage::kIdle;
}

bool CurlTransport::run_due() {
  if (!timeout_now_) return false;
  timeout_now_ = false;
  socket_action(CURL_SOCKET_TIMEOUT, 0);
  drain_completed();
  return true;
}

void CurlTransport::after_events() {
  if (deadline_ != core::kNever && clock().now() >= deadline_) {
    deadline_ = core::kNever;
    socket_action(CURL_SOCKET_TIMEOUT, 0);
  }
  drain_completed();
}

void CurlTransport::socket_action(curl_socket_t fd, int mask) {
  int running = 0;
  curl_multi_socket_action(multi_, fd, mask, &running);
}

void CurlTransport::drain_completed() {
  int pending = 0;
  while (CURLMsg* msg = curl_multi_info_read(multi_, &pending)) {
    if (msg->msg != CURLMSG_DONE) continue;
    Attempt* a = nullptr;
    curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE, &a);
    const CURLcode result = msg->data.result;
    // Removes the handle (close), which invalidates msg.
    host().finish(*a->transfer, result);
  }
}

int CurlTransport::on_socket(CURL*, curl_socket_t fd, int what, void* userp, void* socketp) {
  auto* self = static_cast<CurlTransport*>(userp);
  epoll_event ev{};
  ev.data.u64 = self->tag(static_cast<std::uint64_t>(fd) << 3);
  if (what == CURL_POLL_REMOVE) {
    epoll_ctl(self->epoll_fd(), EPOLL_CTL_DEL, fd, nullptr);
    curl_multi_assign(self->multi_, fd, nullptr);
    return 0;
  }
  ev.events = 0;
  if (what & CURL_POLL_IN) ev.events |= EPOLLIN;
  if (what & CURL_POLL_OUT) ev.events |= EPOLLOUT;
  if (socketp == nullptr) {
    epoll_ctl(self->epoll_fd(), EPOLL_CTL_ADD, fd, &ev);
    curl_multi_assign(self->multi_, fd, self);  // any non-null marker: "registered"
  } else {
    epoll_ctl(self->epoll_fd(), EPOLL_CTL_MOD, fd, &ev);
  }
  return 0;
}

int CurlTransport::on_timer(CURLM*, long timeout_ms, void* userp) {
  auto* self = static_cast<CurlTransport*>(userp);
  if (timeout_ms < 0) {
    self->deadline_ = core::kNever;
  } else if (timeout_ms == 0) {
    self->deadline_ = core::kNever;
    self->timeout_now_ = true;
  } else {
    self->deadline_ = self->clock().now() + timeout_ms * 1'000'000;
  }
  return 0;
}

std::size_t CurlTransport::on_header(char* data, std::size_t size, std::size_t n, void* userp) {
  auto* a = static_cast<Attempt*>(userp);
  const core::Nanos now = a->owner->clock().now();  // the stamp comes first, before any parsing
  const std::size_t len = size * n;
  return a->owner->host().header_line(*a->transfer, std::string_view(data, len), now) ? len : 0;
}

std::size_t CurlTransport::on_write(char* data, std::size_t size, std::size_t n, void* userp) {
  auto* a = static_cast<Attempt*>(userp);
  const core::Nanos now = a->owner->clock().now();  // the stamp comes first, before any parsing
  const std::size_t len = size * n;
  Transfer& t = *a->transfer;
  if (!t.status_known) {
    curl_easy_getinfo(a->easy, CURLINFO_RESPONSE_CODE, &t.status);
    t.status_known = true;
  }
  // Returning less than len ends the transfer.
  return a->owner->host().body_bytes(t, std::string_view(data, len), now) ? len : 0;
}

}  // namespace tokenbench::client
