#include "tokenbench/client/worker.h"

#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <limits>
#include <stdexcept>
#include <string>

#include "tokenbench/client/http_get.h"
#include "tokenbench/client/outcome.h"
#include "tokenbench/client/tls_stream.h"
#include "tokenbench/core/text.h"

namespace tokenbench::client {
namespace {

constexpr std::size_t kMaxErrorBody = 64 * 1024;
constexpr int kIdleWaitMs = 50;  // upper bound on a wait, so cancellation is seen promptly
// The native transport's read buffer, shared by a worker's connections: one read takes what a
// burst of events holds, while a connection keeps only what a read left unparsed.
constexpr std::size_t kReadBuffer = 64 * 1024;

// epoll's data word: a descriptor (the timer, libcurl's sockets) shifted left by one, or a native
// connection's address with the low bit set (Worker::connection_tag).
std::uint64_t fd_tag(int fd) { return static_cast<std::uint64_t>(fd) << 1; }

bool header_is(std::string_view line, std::string_view name) {
  if (line.size() <= name.size() || line[name.size()] != ':') return false;
  for (std::size_t i = 0; i < name.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(line[i])) != name[i]) return false;
  }
  return true;
}

// A header line's value, without the name, surrounding blanks and the line end.
std::string_view header_value(std::string_view line) {
  line.remove_prefix(line.find(':') + 1);
  const std::size_t start = line.find_first_not_of(" \t");
  if (start == std::string_view::npos) return {};
  line.remove_prefix(start);
  return line.substr(0, line.find_last_not_of(" \t\r\n") + 1);
}

core::Nanos seconds_to_nanos(double s) { return static_cast<core::Nanos>(s * 1e9); }

std::string mib_text(std::int64_t bytes) {
  return bytes % (1 << 20) == 0 ? std::to_string(bytes >> 20) + " MiB"
                                : std::to_string(bytes) + " bytes";
}

}  // namespace

Worker::Worker(const EngineConfig& config, const core::RunClock& clock, RouteState& route)
    : config_(config),
      clock_(clock),
      route_(route),
      adapter_(make_adapter(config.api)),
      realtime_(clock) {
  epoll_fd_ = epoll_create1(EPOLL_CLOEXEC);
  timer_fd_ = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
  multi_ = curl_multi_init();
  if (epoll_fd_ < 0 || timer_fd_ < 0 || multi_ == nullptr) {
    throw std::runtime_error(std::string("cannot create the event loop: ") + std::strerror(errno));
  }
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.u64 = fd_tag(timer_fd_);
  epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, timer_fd_, &ev);

  curl_multi_setopt(multi_, CURLMOPT_SOCKETFUNCTION, &Worker::on_socket);
  curl_multi_setopt(multi_, CURLMOPT_SOCKETDATA, this);
  curl_multi_setopt(multi_, CURLMOPT_TIMERFUNCTION, &Worker::on_timer);
  curl_multi_setopt(multi_, CURLMOPT_TIMERDATA, this);
  if (config_.http2) {
    curl_multi_setopt(multi_, CURLMOPT_PIPELINING, CURLPIPE_MULTIPLEX);
    curl_multi_setopt(multi_, CURLMOPT_MAX_CONCURRENT_STREAMS,
                      static_cast<long>(config_.http2_streams));
  }

  if (config_.native_transport && config_.kernel_stamps) keep_rx_stamps_on();
  for (const Endpoint& endpoint : config_.endpoints) {
    std::string why_not;
    targets_.push_back(config_.native_transport ? native_target(endpoint.url, why_not)
                                                : std::nullopt);
    idle_.emplace_back();
    h2_pool_.emplace_back();
    if (!targets_.back()) any_curl_ = true;
    if (!targets_.back() && config_.http2) {
      if (const std::string problem = curl_http2_problem(endpoint.url); !problem.empty()) {
        throw std::runtime_error(problem);
      }
    }
    if (targets_.back() && targets_.back()->tls && tls_context_ == nullptr) {
      tls_context_ = std::make_unique<TlsContext>(config_.http2);
    }
    for (const bool stream : {true, false}) {
      if (targets_.back()) {
        // The native request head's fixed part: the same headers libcurl's path sends.
        std::string head = "POST " + targets_.back()->path +
                           " HTTP/1.1\r\nHost: " + targets_.back()->host_header +
                           "\r\nContent-Type: application/json\r\nAccept: " +
                           (config_.stream && stream ? "text/event-stream" : "application/json") +
                           "\r\nAccept-Encoding: identity\r\n";
        if (config_.per_request_connections) head += "Connection: close\r\n";
        for (const auto& h : endpoint.headers) head += h + "\r\n";
        head_prefix_[stream ? 0 : 1].push_back(std::move(head));
      } else {
        head_prefix_[stream ? 0 : 1].emplace_back();
      }
      curl_slist* list = curl_slist_append(nullptr, "Content-Type: application/json");
      list = curl_slist_append(list, config_.stream && stream ? "Accept: text/event-stream"
                                                              : "Accept: application/json");
      // curl 7.x sends "Expect: 100-continue" for larger bodies, costing a round trip per
      // request.
      list = curl_slist_append(list, "Expect:");
      // No compression: a gzipped stream may be buffered by the server or a proxy, which would
      // move every token stamp. Set as a header, not CURLOPT_ACCEPT_ENCODING, so that libcurl
      // never inflates a body the server encodes anyway (a 200 KB body can inflate to
      // gigabytes); such a reply is refused instead.
      list = curl_slist_append(list, "Accept-Encoding: identity");
      for (const auto& h : endpoint.headers) list = curl_slist_append(list, h.c_str());
      (stream ? headers_ : whole_headers_).push_back(list);
      h2_fields_[stream ? 0 : 1].push_back(
          targets_.back() && config_.http2 ? h2_request_fields(*targets_.back(), endpoint, stream)
                                           : std::vector<Http2Session::Header>{});
    }
  }
  double wait_timeout = 0;
  std::vector<double> waits{config_.ttft_timeout_s, config_.stall_timeout_s};
  if (std::any_of(targets_.begin(), targets_.end(), [](const auto& t) { return t.has_value(); })) {
    read_buffer_.resize(kReadBuffer);
    // The native transport keeps its own connect and total timeouts.
    waits.push_back(config_.timeout_s);
    waits.push_back(config_.connect_timeout_s);
  }
  for (const double s : waits) {
    if (s > 0 && (wait_timeout == 0 || s < wait_timeout)) wait_timeout = s;
  }
  if (wait_timeout > 0) {
    // A tenth of the shortest wait timeout, so a timeout fires at most 10% late.
    wait_check_period_ =
        std::clamp<core::Nanos>(seconds_to_nanos(wait_timeout / 10), 5'000'000, 250'000'000);
  }
}

Worker::~Worker() {
  for (auto& c : connections_) {
    if (c->fd >= 0) close(c->fd);
  }
  for (auto& t : pool_) {
    if (t->easy != nullptr) {
      curl_multi_remove_handle(multi_, t->easy);
      curl_easy_cleanup(t->easy);
    }
  }
  if (multi_ != nullptr) curl_multi_cleanup(multi_);
  for (curl_slist* list : headers_) curl_slist_free_all(list);
  for (curl_slist* list : whole_headers_) curl_slist_free_all(list);
  if (timer_fd_ >= 0) close(timer_fd_);
  if (epoll_fd_ >= 0) close(epoll_fd_);
}

Transfer* Worker::acquire() {
  if (!free_.empty()) {
    Transfer* t = free_.back();
    free_.pop_back();
    return t;
  }
  auto t = std::make_unique<Transfer>();
  t->worker = this;
  t->sse.set_max_event_bytes(config_.max_event_bytes);
  if (!any_curl_) {
    Transfer* raw = t.get();
    pool_.push_back(std::move(t));
    return raw;
  }
  t->easy = curl_easy_init();
  if (t->easy == nullptr) throw std::runtime_error("curl_easy_init failed");
  CURL* e = t->easy;
  curl_easy_setopt(e, CURLOPT_URL, config_.endpoints[0].url.c_str());
  curl_easy_setopt(e, CURLOPT_HTTPHEADER, headers_[0]);
  curl_easy_setopt(e, CURLOPT_POST, 1L);
  curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, &Worker::on_write);
  curl_easy_setopt(e, CURLOPT_WRITEDATA, t.get());
  curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, &Worker::on_header);
  curl_easy_setopt(e, CURLOPT_HEADERDATA, t.get());
  curl_easy_setopt(e, CURLOPT_PRIVATE, t.get());
  curl_easy_setopt(e, CURLOPT_ERRORBUFFER, t->curl_error);
  curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(e, CURLOPT_TCP_NODELAY, 1L);
  if (config_.http2) {
    // h2c with prior knowledge, ALPN "h2" for https; streams wait for room on a connection
    // rather than opening one each.
    curl_easy_setopt(e, CURLOPT_HTTP_VERSION, CURL_HTTP_VERSION_2_PRIOR_KNOWLEDGE);
    curl_easy_setopt(e, CURLOPT_PIPEWAIT, 1L);
  } else {
    curl_easy_setopt(e, CURLOPT_HTTP_VERSION, CURL_HTTP_VERSION_1_1);
  }
  apply_tls_options(e);
  curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, static_cast<long>(config_.timeout_s * 1000.0));
  if (config_.connect_timeout_s > 0) {
    curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS,
                     static_cast<long>(std::max(1.0, config_.connect_timeout_s * 1000.0)));
  }
  if (config_.per_request_connections) {
    curl_easy_setopt(e, CURLOPT_FRESH_CONNECT, 1L);
    curl_easy_setopt(e, CURLOPT_FORBID_REUSE, 1L);
  }
  Transfer* raw = t.get();
  pool_.push_back(std::move(t));
  return raw;
}

void Worker::run(RequestSource& source, std::size_t slots, const RecordSink& sink,
                 const std::atomic<bool>& canceled) {
  sink_ = &sink;
  source_ = &source;
  keep_answers_ = source.wants_answers();
  exhausted_ = false;
  freed_at_.clear();
  slots_limited_ = config_.max_concurrency > 0;
  if (slots_limited_) freed_at_.assign(slots, source.phase_start());
  const bool sample_cpu = source.phase() == core::Phase::kMeasure;
  const auto read_cpu = [this](core::Nanos now) {
    cpu_samples_.push_back({now, core::thread_cpu_now()});
    next_cpu_sample_ = now + kCpuSamplePeriod;
  };
  if (sample_cpu) read_cpu(clock_.now());

  epoll_event events[kMaxEvents];
  while (true) {
    if (sample_cpu) {
      // One clock read per loop turn; the CPU clock only every kCpuSamplePeriod.
      const core::Nanos now = clock_.now();
      if (now >= next_cpu_sample_) read_cpu(now);
    }
    if (canceled.load(std::memory_order_relaxed)) {
      source.stop();
      cancel_all();
      break;
    }
    const core::Nanos next_retry =
        retrying_.empty() ? core::kNever : launch_due_retries(clock_.now());
    const core::Nanos next_due = issue_due(slots);
    if (curl_timeout_now_) {
      curl_timeout_now_ = false;
      socket_action(CURL_SOCKET_TIMEOUT, 0);
      drain_completed();
      continue;
    }
    if (active_ == 0 && exhausted_) break;

    core::Nanos wake = curl_deadline_;
    if (next_due != core::kNever && (wake == core::kNever || next_due < wake)) wake = next_due;
    if (next_retry != core::kNever && (wake == core::kNever || next_retry < wake)) {
      wake = next_retry;
    }
    if (active_ > 0 && wait_check_period_ != core::kNever) {
      if (next_wait_check_ == core::kNever) next_wait_check_ = clock_.now() + wait_check_period_;
      if (wake == core::kNever || next_wait_check_ < wake) wake = next_wait_check_;
    }
    arm_timer(wake);

    const int n = epoll_wait(epoll_fd_, events, kMaxEvents, kIdleWaitMs);
    for (int i = 0; i < n; ++i) {
      const std::uint64_t tag = events[i].data.u64;
      if (tag & 1u) {
        on_connection_event(reinterpret_cast<Connection*>(tag & ~std::uint64_t{1}),
                            events[i].events);
        continue;
      }
      const int fd = static_cast<int>(tag >> 1);
      if (fd == timer_fd_) {
        std::uint64_t expirations = 0;
        [[maybe_unused]] const auto r = read(timer_fd_, &expirations, sizeof expirations);
        armed_ = core::kNever;
        continue;
      }
      int mask = 0;
      if (events[i].events & EPOLLIN) mask |= CURL_CSELECT_IN;
      if (events[i].events & EPOLLOUT) mask |= CURL_CSELECT_OUT;
      if (events[i].events & (EPOLLERR | EPOLLHUP)) mask |= CURL_CSELECT_ERR;
      socket_action(fd, mask);
    }
    if (curl_deadline_ != core::kNever && clock_.now() >= curl_deadline_) {
      curl_deadline_ = core::kNever;
      socket_action(CURL_SOCKET_TIMEOUT, 0);
    }
    drain_completed();
    if (!h2_requeue_.empty()) requeue_h2();
    if (next_wait_check_ != core::kNever && clock_.now() >= next_wait_check_) {
      next_wait_check_ = expire_waits(clock_.now());
    }
  }
  disarm_timer();
  if (sample_cpu) read_cpu(clock_.now());
  sink_ = nullptr;
  source_ = nullptr;
}

core::Nanos Worker::issue_due(std::size_t slots) {
  while (active_ < slots) {
    const core::Nanos now = clock_.now();
    // A request waiting for a slot was really due when the slot freed: the schedule's lag is
    // measured from the later of the two, so queue time is the client's own delay.
    const core::Nanos freed =
        slots_limited_ && !freed_at_.empty() ? freed_at_.front() : RequestSource::kNoSlotWait;
    SourcedRequest request;
    core::Nanos next_due = core::kNever;
    bool finished = false;
    if (!source_->next(now, freed, request, next_due, finished)) {
      exhausted_ = finished;
      return next_due;
    }
    if (slots_limited_ && !freed_at_.empty()) freed_at_.pop_front();
    begin(acquire(), request);
  }
  return core::kNever;
}

std::uint32_t Worker::route(const core::RequestSpec& spec) {
  const std::size_t n = config_.endpoints.size();
  if (n == 1) return 0;
  std::uint32_t chosen = 0;
  switch (config_.routing) {
    case Routing::kBySpec:
      return spec.target < n ? spec.target : 0;
    case Routing::kRoundRobin:
      chosen = static_cast<std::uint32_t>(route_.next.fetch_add(1, std::memory_order_relaxed) % n);
      break;
    case Routing::kLeastInflight: {
      // Ties go round-robin, so equal replicas share the load evenly.
      const std::size_t first = route_.next.fetch_add(1, std::memory_order_relaxed) % n;
      std::int64_t fewest = std::numeric_limits<std::int64_t>::max();
      for (std::size_t k = 0; k < n; ++k) {
        const std::size_t i = (first + k) % n;
        const std::int64_t v = route_.inflight[i].load(std::memory_order_relaxed);
        if (v < fewest) {
          fewest = v;
          chosen = static_cast<std::uint32_t>(i);
        }
      }
      break;
    }
  }
  route_.inflight[chosen].fetch_add(1, std::memory_order_relaxed);
  return chosen;
}

void Worker::begin(Transfer* t, const SourcedRequest& request) {
  const core::RequestSpec& spec = *request.spec;
  const bool nonstream_sample = config_.stream && request.nonstream_sample;
  const core::Phase phase = request.phase;
  t->spec = &spec;
  t->stream = config_.stream && !nonstream_sample;
  t->request_body = request.body;
  t->rec = core::RequestRecord{};
  t->rec.nonstream_sample = nonstream_sample;
  t->rec.id = request.id;
  t->rec.phase = phase;
  const std::uint32_t endpoint = route(spec);
  if (endpoint != t->endpoint) {
    t->endpoint = endpoint;
    if (t->easy != nullptr) {
      curl_easy_setopt(t->easy, CURLOPT_URL, config_.endpoints[endpoint].url.c_str());
    }
  }
  t->rec.endpoint = endpoint;
  t->rec.intended = request.intended;
  t->rec.scheduled = request.scheduled;
  t->rec.session = request.session;
  t->rec.turn = request.turn;
  if (config_.request_ids) {
    t->trace = make_trace_id(config_.run_id,
                             phase == core::Phase::kDropped ? core::Phase::kMeasure : phase,
                             spec.target, t->rec.id);
    t->rec.request_id = request_id_text(t->trace);
  }
  t->attempt = 0;
  route_.started.fetch_add(1, std::memory_order_relaxed);
  t->limits = reply_limits(config_, spec.max_tokens);
  t->active = true;
  ++active_;
  launch(t);
}

void Worker::launch(Transfer* t) {
  // Room for the expected chunks, so a stream does not allocate per token; capped, because a
  // request may ask for far more tokens than it gets.
  const auto expected =
      static_cast<std::size_t>(std::clamp<std::int64_t>(t->spec->max_tokens, 16, 4096)) + 2;
  t->rec.chunks.reserve(expected);
  t->rec.chunk_text_bytes.reserve(expected);
  if (config_.keep_text) t->rec.output_text.reserve(expected * 8);
  if (config_.keep_prompt) {
    // --save-detailed: the prompt as sent (chat messages as their JSON array), bounded.
    const std::string& prompt =
        t->spec->messages_json.empty() ? t->spec->prompt : t->spec->messages_json;
    t->rec.prompt_text.assign(core::utf8_prefix(prompt, core::kMaxDetailTextBytes));
    t->rec.text_truncated = t->rec.prompt_text.size() < prompt.size();
  }
  t->rec.streamed = t->stream;
  t->rec.attempt = t->attempt;
  t->body.clear();
  t->sse.reset();
  t->curl_error[0] = '\0';
  t->status = 0;
  t->status_known = false;
  t->event_stream = t->stream;
  t->done_seen = false;
  t->aborted = false;
  t->html = false;
  t->reply_bytes = 0;
  t->retry_after_s = 0;
  t->retry_at = core::kNever;
  t->last_byte = core::kNever;
  t->usage_prompt = -1;
  t->usage_completion = -1;
  t->location.clear();
  t->native = native_endpoint(t->endpoint);
  if (t->native && config_.http2) {
    launch_h2(t);
    return;
  }
  if (t->native) {
    launch_native(t);
    return;
  }
  curl_slist* headers = (t->stream ? headers_ : whole_headers_)[t->endpoint];
  if (config_.request_ids) {
    // The same X-Request-Id for every attempt, a span id of the attempt's own.
    t->id_headers.fill(t->trace, t->attempt);
    t->id_nodes[0] = curl_slist{t->id_headers.request_id.data(), &t->id_nodes[1]};
    t->id_nodes[1] = curl_slist{t->id_headers.traceparent.data(), headers};
    headers = &t->id_nodes[0];
  }
  curl_easy_setopt(t->easy, CURLOPT_HTTPHEADER, headers);
  const std::string& body = *t->request_body;
  curl_easy_setopt(t->easy, CURLOPT_POSTFIELDS, body.data());
  curl_easy_setopt(t->easy, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(body.size()));
  t->rec.sent = clock_.now();
  t->last_activity = t->rec.sent;
  t->in_multi = true;
  if (const CURLMcode rc = curl_multi_add_handle(multi_, t->easy); rc != CURLM_OK) {
    t->in_multi = false;
    t->aborted = true;
    t->rec.error = core::ErrorClass::kConnect;
    t->rec.error_message = std::string("cannot start the request: ") + curl_multi_strerror(rc);
    finish(t, CURLE_FAILED_INIT, /*added=*/false);
  }
}

core::Nanos Worker::launch_due_retries(core::Nanos now) {
  core::Nanos next = core::kNever;
  for (std::size_t i = 0; i < retrying_.size();) {
    Transfer* t = retrying_[i];
    if (t->retry_at <= now) {
      retrying_[i] = retrying_.back();
      retrying_.pop_back();
      launch(t);
      continue;
    }
    if (next == core::kNever || t->retry_at < next) next = t->retry_at;
    ++i;
  }
  return next;
}

bool Worker::schedule_retry(Transfer* t) {
  if (canceling_ || t->attempt >= static_cast<std::uint32_t>(std::max(0, config_.retries)) ||
      !is_retryable(t->rec)) {
    return false;
  }
  const core::Nanos wait = retry_backoff(config_.seed, t->rec.id, t->attempt, t->retry_after_s);
  core::RequestRecord next;
  next.id = t->rec.id;
  next.phase = t->rec.phase;
  next.endpoint = t->rec.endpoint;
  next.intended = t->rec.intended;
  next.scheduled = t->rec.done + wait;
  next.request_id = t->rec.request_id;
  next.nonstream_sample = t->rec.nonstream_sample;
  next.session = t->rec.session;  // a retried turn stays its session's turn
  next.turn = t->rec.turn;
  t->rec.retried = true;
  (*sink_)(std::move(t->rec));
  t->rec = std::move(next);
  t->retry_at = t->rec.scheduled;
  ++t->attempt;
  retrying_.push_back(t);
  return true;
}

int Worker::on_socket(CURL*, curl_socket_t fd, int what, void* userp, void* socketp) {
  auto* self = static_cast<Worker*>(userp);
  epoll_event ev{};
  ev.data.u64 = fd_tag(fd);
  if (what == CURL_POLL_REMOVE) {
    epoll_ctl(self->epoll_fd_, EPOLL_CTL_DEL, fd, nullptr);
    curl_multi_assign(self->multi_, fd, nullptr);
    return 0;
  }
  ev.events = 0;
  if (what & CURL_POLL_IN) ev.events |= EPOLLIN;
  if (what & CURL_POLL_OUT) ev.events |= EPOLLOUT;
  if (socketp == nullptr) {
    epoll_ctl(self->epoll_fd_, EPOLL_CTL_ADD, fd, &ev);
    curl_multi_assign(self->multi_, fd, self);  // any non-null marker: "registered"
  } else {
    epoll_ctl(self->epoll_fd_, EPOLL_CTL_MOD, fd, &ev);
  }
  return 0;
}

int Worker::on_timer(CURLM*, long timeout_ms, void* userp) {
  auto* self = static_cast<Worker*>(userp);
  if (timeout_ms < 0) {
    self->curl_deadline_ = core::kNever;
  } else if (timeout_ms == 0) {
    self->curl_deadline_ = core::kNever;
    self->curl_timeout_now_ = true;
  } else {
    self->curl_deadline_ = self->clock_.now() + timeout_ms * 1'000'000;
  }
  return 0;
}

std::size_t Worker::on_header(char* data, std::size_t size, std::size_t n, void* userp) {
  const core::Nanos now = static_cast<Transfer*>(userp)->worker->clock_.now();
  auto* t = static_cast<Transfer*>(userp);
  const std::size_t len = size * n;
  return t->worker->header_line(t, std::string_view(data, len), now) ? len : 0;
}

bool Worker::header_line(Transfer* t, std::string_view line, core::Nanos now) {
  Worker* self = this;
  t->last_activity = now;
  if (!count_reply_bytes(t, line.size())) return false;
  if (t->rec.headers == core::kNever && t->reply_bytes > kMaxHeaderBytes) {
    abort_transfer(t, core::ErrorClass::kProtocol,
                   "the response headers exceed " + std::to_string(kMaxHeaderBytes / 1024) +
                       " KiB: a broken server or proxy");
    return false;
  }
  if (line.rfind("HTTP/", 0) == 0) {
    // A new status line (e.g. after "100 Continue"): forget earlier headers.
    t->event_stream = t->stream;
    t->html = false;
    t->rec.headers = core::kNever;
  } else if (line == "\r\n" || line == "\n") {
    t->rec.headers = now;
  } else if (header_is(line, "content-type")) {
    // A streamed request gets SSE unless the server says it sent one JSON document instead
    // (it ignored "stream"), or a web page; some gateways label SSE text/plain or not at all.
    t->html = line.find("text/html") != std::string_view::npos;
    t->event_stream =
        t->stream && !t->html && line.find("application/json") == std::string_view::npos;
  } else if (header_is(line, "retry-after")) {
    const std::string value(header_value(line));
    char* end = nullptr;
    const double seconds = std::strtod(value.c_str(), &end);
    if (end != value.c_str() && *end == '\0' && seconds >= 0) {
      t->retry_after_s = seconds;
    } else if (const time_t at = curl_getdate(value.c_str(), nullptr); at > 0) {
      t->retry_after_s = std::max(0.0, std::difftime(at, std::time(nullptr)));
    }
  } else if (header_is(line, "location")) {
    t->location.assign(header_value(line).substr(0, 2048));
  } else if (header_is(line, "content-encoding") || header_is(line, "transfer-encoding")) {
    // Only identity was asked for (and chunked framing, which libcurl removes).
    const std::string_view value = header_value(line);
    std::string lower(value);
    for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (!lower.empty() && lower != "identity" && lower != "chunked") {
      self->abort_transfer(
          t, core::ErrorClass::kProtocol,
          "the server sent a body encoded '" + std::string(value.substr(0, 40)) +
              "' although the request asked for none (Accept-Encoding: identity); it is refused "
              "unread, since a compressed stream is buffered and moves every token stamp");
      return false;
    }
  }
  return true;
}

bool Worker::count_reply_bytes(Transfer* t, std::size_t len) {
  t->reply_bytes += static_cast<std::int64_t>(len);
  if (t->reply_bytes <= t->limits.bytes) return true;
  abort_transfer(t, core::ErrorClass::kProtocol,
                 "the reply exceeded " + mib_text(t->limits.bytes) + " for max_tokens " +
                     std::to_string(t->spec->max_tokens) +
                     ": a server that does not stop (--max-reply-bytes raises the bound)");
  return false;
}

std::size_t Worker::on_write(char* data, std::size_t size, std::size_t n, void* userp) {
  auto* t = static_cast<Transfer*>(userp);
  const core::Nanos now = t->worker->clock_.now();  // the stamp comes first, before any parsing
  const std::size_t len = size * n;
  if (!t->status_known) {
    curl_easy_getinfo(t->easy, CURLINFO_RESPONSE_CODE, &t->status);
    t->status_known = true;
  }
  // Returning less than len ends the transfer.
  return t->worker->body_bytes(t, std::string_view(data, len), now) ? len : 0;
}

bool Worker::body_bytes(Transfer* t, std::string_view bytes, core::Nanos now) {
  Worker* self = this;
  const char* data = bytes.data();
  const std::size_t len = bytes.size();
  t->last_byte = now;
  t->last_activity = now;
  if (!count_reply_bytes(t, len)) return false;
  const bool success = t->status >= 200 && t->status < 300;
  if (success && t->event_stream) {
    t->sse.feed(std::string_view(data, len), [t, self, now](std::string_view event) {
      if (!t->aborted) self->on_event(t, event, now);
    });
    if (t->sse.overflowed() && !t->aborted) {
      self->abort_transfer(t, core::ErrorClass::kMalformed,
                           "an SSE event or line exceeded " +
                               mib_text(static_cast<std::int64_t>(t->sse.max_event_bytes())) +
                               " (--max-event-bytes): a broken server or the wrong URL");
    }
    return !t->aborted;
  }
  if (success && !t->html) {
    if (static_cast<std::int64_t>(t->body.size() + len) > t->limits.body_bytes) {
      self->abort_transfer(t, core::ErrorClass::kProtocol,
                           "the reply body exceeded " + mib_text(t->limits.body_bytes) +
                               " for max_tokens " + std::to_string(t->spec->max_tokens) +
                               " (--max-reply-bytes raises the bound)");
      return false;
    }
    t->body.append(data, len);
  } else if (t->body.size() < kMaxErrorBody) {
    t->body.append(data, std::min(len, kMaxErrorBody - t->body.size()));
  }
  return true;
}

void Worker::on_event(Transfer* t, std::string_view data, core::Nanos now) {
  const ApiEvent ev = adapter_->parse_event(data);
  switch (ev.kind) {
    case ApiEvent::Kind::kDone:
      t->done_seen = true;
      return;
    case ApiEvent::Kind::kError:
      abort_transfer(t, core::ErrorClass::kServerError, ev.error_message);
      return;
    case ApiEvent::Kind::kMalformed:
      abort_transfer(t, core::ErrorClass::kMalformed, ev.error_message);
      return;
    case ApiEvent::Kind::kData:
      break;
  }
  if (ev.last) t->done_seen = true;
  if (ev.content_bytes > 0) {
    if (static_cast<std::int64_t>(t->rec.chunks.size()) >= t->limits.chunks) {
      abort_transfer(t, core::ErrorClass::kProtocol,
                     "the stream sent more than " + std::to_string(t->limits.chunks) +
                         " content chunks for max_tokens " + std::to_string(t->spec->max_tokens) +
                         ": a server that does not stop");
      return;
    }
    if (t->rec.first_token == core::kNever) t->rec.first_token = now;
    if (t->rec.first_reasoning == core::kNever && !ev.reasoning_text.empty()) {
      t->rec.first_reasoning = now;
    }
    if (t->rec.first_answer == core::kNever &&
        (!ev.content_text.empty() || !ev.tool_text.empty())) {
      t->rec.first_answer = now;
    }
    t->rec.last_token = now;
    t->rec.chunks.push_back(core::ChunkStamp{now, 1});
    t->rec.chunk_text_bytes.push_back(
        static_cast<std::int32_t>(std::min<std::int64_t>(ev.content_bytes, INT32_MAX)));
    t->rec.output_chars += ev.content_bytes;
    if (keep_answers_) {
      if (!text_fits(t, t->rec.answer_text.size(), ev.content_text.size())) return;
      t->rec.answer_text.append(ev.content_text);
    }
    if (config_.keep_text) {
      if (!text_fits(t, t->rec.output_text.size(), static_cast<std::size_t>(ev.content_bytes))) {
        return;
      }
      t->rec.output_text.append(ev.reasoning_text);
      t->rec.output_text.append(ev.content_text);
      t->rec.output_text.append(ev.tool_text);
    }
  }
  if (!ev.finish_reason.empty()) t->rec.finish_reason.assign(ev.finish_reason);
  if (ev.prompt_tokens >= 0) t->usage_prompt = ev.prompt_tokens;
  if (ev.completion_tokens >= 0) t->usage_completion = ev.completion_tokens;
  if (ev.reasoning_tokens >= 0) t->rec.reasoning_tokens = ev.reasoning_tokens;
  if (ev.has_timings) t->rec.server_timings = ev.timings;
  if (t->rec.response_id.empty() && !ev.response_id.empty()) {
    t->rec.response_id.assign(core::utf8_prefix(ev.response_id, core::kMaxResponseIdBytes));
  }
}

bool Worker::text_fits(Transfer* t, std::size_t kept, std::size_t adding) {
  if (static_cast<std::int64_t>(kept + adding) <= t->limits.text_bytes) return true;
  abort_transfer(t, core::ErrorClass::kProtocol,
                 "the reply's text exceeded " + mib_text(t->limits.text_bytes) +
                     " for max_tokens " + std::to_string(t->spec->max_tokens));
  return false;
}

void Worker::abort_transfer(Transfer* t, core::ErrorClass error, std::string_view message) {
  t->aborted = true;
  t->rec.error = error;
  t->rec.error_message.assign(message);
}

void Worker::socket_action(curl_socket_t fd, int mask) {
  int running = 0;
  curl_multi_socket_action(multi_, fd, mask, &running);
}

void Worker::drain_completed() {
  int pending = 0;
  while (CURLMsg* msg = curl_multi_info_read(multi_, &pending)) {
    if (msg->msg != CURLMSG_DONE) continue;
    Transfer* t = nullptr;
    curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE, &t);
    const CURLcode result = msg->data.result;
    finish(t, result, /*added=*/true);  // removes the handle, which invalidates msg
  }
}

void Worker::finish(Transfer* t, CURLcode result, bool added) {
  if (added && t->in_multi) curl_multi_remove_handle(multi_, t->easy);
  t->in_multi = false;
  if (t->conn != nullptr && t->conn->h2 != nullptr) {
    detach_h2(t);  // its stream is reset; the connection carries on
  } else if (t->conn != nullptr) {
    // A reply not read to its end leaves its connection unusable.
    close_connection(t->conn);
    t->conn = nullptr;
  }
  core::RequestRecord& rec = t->rec;
  // A reply that ended cleanly is done when its last bytes arrived, not when this loop turn got
  // to it; any other end is stamped now.
  rec.done = result == CURLE_OK && t->last_byte != core::kNever ? t->last_byte : clock_.now();
  if (result == CURLE_OK && t->event_stream && !t->aborted) {
    // A last event not followed by a blank line is still an event.
    const core::Nanos at = rec.done;
    t->sse.finish([this, t, at](std::string_view event) {
      if (!t->aborted) on_event(t, event, at);
    });
  }
  long status = 0;
  if (t->native) {
    status = t->status;
  } else {
    curl_easy_getinfo(t->easy, CURLINFO_RESPONSE_CODE, &status);
    curl_off_t connect_us = 0;
    if (config_.per_request_connections &&
        curl_easy_getinfo(t->easy, CURLINFO_CONNECT_TIME_T, &connect_us) == CURLE_OK &&
        connect_us > 0) {
      rec.connected = rec.sent + connect_us * 1000;
    }
  }
  rec.http_status = static_cast<int>(status);

  if (!t->aborted) classify(t, result, status);
  ReplyUsage usage;
  usage.prompt = t->usage_prompt;
  usage.completion = t->usage_completion;
  usage.completion_limit = t->limits.usage_tokens;
  usage.max_tokens = t->spec->max_tokens;
  usage.input_tokens = t->spec->input_tokens;
  usage.input_source = t->spec->input_source;
  settle_tokens(usage, rec);

  if (schedule_retry(t)) return;
  t->active = false;
  --active_;
  if (config_.endpoints.size() > 1 && config_.routing != Routing::kBySpec) {
    route_.inflight[t->endpoint].fetch_sub(1, std::memory_order_relaxed);
  }
  if (slots_limited_) freed_at_.push_back(rec.done);
  source_->done(rec);
  (*sink_)(std::move(rec));
  free_.push_back(t);
}

void Worker::classify(Transfer* t, CURLcode result, long status) {
  ReplyFacts reply;
  reply.transport = result;
  reply.transport_error = t->curl_error;
  reply.status = status;
  if (status >= 300 && status < 400) {
    char* location = nullptr;
    if (!t->native) curl_easy_getinfo(t->easy, CURLINFO_REDIRECT_URL, &location);
    reply.location = t->native ? std::string_view(t->location)
                               : std::string_view(location != nullptr ? location : "");
  }
  reply.body = t->body;
  reply.html = t->html;
  reply.event_stream = t->event_stream;
  reply.done_seen = t->done_seen;
  reply.api = config_.api;
  reply.inputs =
      t->spec != nullptr ? static_cast<std::int64_t>(1 + t->spec->more_inputs.size()) : 1;
  reply.keep_text = config_.keep_text;
  reply.keep_answer = keep_answers_;
  ReplyUsage usage;
  usage.prompt = t->usage_prompt;
  usage.completion = t->usage_completion;
  classify_reply(reply, *adapter_, t->rec, usage);
  t->usage_prompt = usage.prompt;
  t->usage_completion = usage.completion;
}

core::Nanos Worker::expire_waits(core::Nanos now) {
  const core::Nanos ttft = seconds_to_nanos(config_.ttft_timeout_s);
  const core::Nanos stall = seconds_to_nanos(config_.stall_timeout_s);
  const core::Nanos connect = seconds_to_nanos(config_.connect_timeout_s);
  const core::Nanos total = seconds_to_nanos(config_.timeout_s);
  for (auto& owned : pool_) {
    Transfer* t = owned.get();
    if (!t->in_multi && t->conn == nullptr) continue;
    if (t->conn != nullptr && !(t->conn->connected && (!t->conn->tls || t->conn->secured)) &&
        connect > 0 && now - t->rec.sent >= connect) {
      abort_transfer(t, core::ErrorClass::kConnectTimeout,
                     "Connection timed out after " +
                         std::to_string((now - t->rec.sent) / 1'000'000) +
                         " milliseconds (--connect-timeout)");
      finish(t, CURLE_ABORTED_BY_CALLBACK, /*added=*/true);
    } else if (t->conn != nullptr && total > 0 && now - t->rec.sent >= total) {
      abort_transfer(t, core::ErrorClass::kTimeout,
                     "Operation timed out after " +
                         std::to_string((now - t->rec.sent) / 1'000'000) + " milliseconds with " +
                         std::to_string(t->reply_bytes) + " bytes received (--timeout)");
      finish(t, CURLE_ABORTED_BY_CALLBACK, /*added=*/true);
    } else if (ttft > 0 && t->rec.first_token == core::kNever && now - t->rec.sent >= ttft) {
      abort_transfer(t, core::ErrorClass::kTtftTimeout,
                     "no first token within " + core::format_seconds(config_.ttft_timeout_s) +
                         " (--ttft-timeout)");
      finish(t, CURLE_ABORTED_BY_CALLBACK, /*added=*/true);
    } else if (stall > 0 && t->reply_bytes > 0 && now - t->last_activity >= stall) {
      abort_transfer(t, core::ErrorClass::kStallTimeout,
                     "no byte for " + core::format_seconds(config_.stall_timeout_s) +
                         " in the middle of the reply (--stall-timeout), after " +
                         std::to_string(t->rec.chunks.size()) + " content chunks");
      finish(t, CURLE_ABORTED_BY_CALLBACK, /*added=*/true);
    }
  }
  return active_ > 0 ? now + wait_check_period_ : core::kNever;
}

void Worker::cancel_all() {
  canceling_ = true;
  retrying_.clear();
  h2_requeue_.clear();  // still active: finished below
  for (auto& owned : pool_) {
    Transfer* t = owned.get();
    if (!t->active) continue;
    t->aborted = true;
    t->rec.error = core::ErrorClass::kCanceled;
    t->rec.error_message = "the run was stopped before the request ended";
    finish(t, CURLE_ABORTED_BY_CALLBACK, /*added=*/true);
  }
}

void Worker::arm_timer(core::Nanos wake) {
  // Re-arming costs a syscall, and curl moves its deadline after nearly every event. A timer that
  // is already set to fire no later than `wake` is left alone: waking early only costs one loop
  // turn, while a syscall per event would cost every event.
  if (wake == core::kNever || (armed_ != core::kNever && armed_ <= wake)) return;
  armed_ = wake;
  itimerspec spec{};
  const auto tp = clock_.to_time_point(std::max<core::Nanos>(wake, 1));
  const auto ns =
      std::chrono::duration_cast<std::chrono::nanoseconds>(tp.time_since_epoch()).count();
  spec.it_value.tv_sec = static_cast<time_t>(ns / 1'000'000'000);
  spec.it_value.tv_nsec = static_cast<long>(ns % 1'000'000'000);
  if (spec.it_value.tv_sec == 0 && spec.it_value.tv_nsec == 0) spec.it_value.tv_nsec = 1;
  timerfd_settime(timer_fd_, TFD_TIMER_ABSTIME, &spec, nullptr);
}

void Worker::disarm_timer() {
  armed_ = core::kNever;
  itimerspec spec{};
  timerfd_settime(timer_fd_, TFD_TIMER_ABSTIME, &spec, nullptr);
}

}  // namespace tokenbench::client
