// tokenbench_h2_server: an independent HTTP/2 (h2c, prior knowledge) streaming server for the
// HTTP/2 benchmark (issue 13, scripts/bench-http2.sh), on nghttp2's server API.
//
// It shares no code with tokenbench. One thread, one epoll loop. Every POST is answered with an
// OpenAI-style SSE stream: N token events (N = the request's "max_tokens", or --max-tokens when
// absent; chat.completion.chunk events when the path names chat/completions, text_completion
// otherwise), each in a DATA frame of its own, --itl-ms apart (0: all in one write), then a usage
// event carrying completion_tokens = N and `data: [DONE]` with END_STREAM. Many streams share one
// connection, up to --max-streams (SETTINGS_MAX_CONCURRENT_STREAMS). Token k of a stream is due
// at first + k * --itl-ms (absolute, a min-heap behind one timerfd). On exit (SIGTERM, SIGINT or
// --max-seconds) it prints one line:
//   h2_server: tokens=T streams=S connections=C gap_mean_ms= gap_p99_ms= cpu_us_per_token=
// where gaps are between consecutive token writes of one stream, stamped after the write.
//
// usage: tokenbench_h2_server [--port 0] [--itl-ms 1] [--max-tokens 16] [--max-streams 256]
//                             [--max-seconds 600]
// The first stdout line is `port=P`. It listens on 127.0.0.1 only.

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <nghttp2/nghttp2.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <queue>
#include <string>
#include <string_view>
#include <vector>

namespace {

struct Options {
  int port = 0;
  double itl_ms = 1;
  long max_tokens = 16;
  uint32_t max_streams = 256;
  double max_seconds = 600;
};

int64_t now_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

const char kEvent[] =
    "data: {\"id\":\"h2\",\"object\":\"text_completion\",\"choices\":[{\"index\":0,"
    "\"text\":\" tok\",\"finish_reason\":null}]}\n\n";
const char kChatEvent[] =
    "data: {\"id\":\"h2\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,"
    "\"delta\":{\"content\":\" tok\"},\"finish_reason\":null}]}\n\n";

struct Stream {
  std::string body;
  bool chat = false;  // the path names chat/completions: chat chunks
  long n_tokens = 0;
  long next = 0;          // the next token to write
  int64_t first_due = 0;  // token k is due at first_due + k * itl
  int64_t last_write = -1;
  std::string pending;  // the DATA being framed
  size_t frame = 0;     // the most bytes one DATA frame takes from it (0: as many as fit)
  bool answering = false;
};

struct Conn {
  int fd = -1;
  nghttp2_session* session = nullptr;
  std::map<int32_t, Stream> streams;
  std::string out;
  size_t out_off = 0;
  bool want_out = false;
  uint64_t gen = 0;              // tells this connection from an earlier one on the same fd
  std::vector<int32_t> blocked;  // streams whose last DATA waits for the socket
};

struct Due {
  int64_t due;
  uint64_t seq;
  int fd;
  uint64_t gen;
  int32_t stream;
  bool operator>(const Due& o) const { return due != o.due ? due > o.due : seq > o.seq; }
};

class Server {
 public:
  explicit Server(const Options& opt)
      : opt_(opt), itl_ns_(static_cast<int64_t>(opt.itl_ms * 1e6)) {}
  int run();

 private:
  static ssize_t read_pending(nghttp2_session*, int32_t, uint8_t* buf, size_t length,
                              uint32_t* flags, nghttp2_data_source* source, void*);
  void on_accept();
  void on_readable(Conn& c);
  void start(Conn& c, int32_t id);
  void write_token(Conn& c, int32_t id, Stream& st);
  bool flush(Conn& c);
  void close_conn(Conn& c);
  void arm();
  void summary();

  Options opt_;
  int64_t itl_ns_;
  int ep_ = -1, lfd_ = -1, tfd_ = -1, sfd_ = -1;
  int64_t armed_ = -1;
  uint64_t seq_ = 0;
  uint64_t next_gen_ = 1;
  std::vector<std::unique_ptr<Conn>> conns_;  // by fd
  std::priority_queue<Due, std::vector<Due>, std::greater<Due>> heap_;
  std::vector<int64_t> gaps_;
  uint64_t tokens_ = 0, streams_ = 0, connections_ = 0;
};

ssize_t Server::read_pending(nghttp2_session*, int32_t, uint8_t* buf, size_t length,
                             uint32_t* flags, nghttp2_data_source* source, void*) {
  auto* st = static_cast<Stream*>(source->ptr);
  size_t n = std::min(length, st->pending.size());
  if (st->frame > 0) n = std::min(n, st->frame);
  std::memcpy(buf, st->pending.data(), n);
  st->pending.erase(0, n);
  if (st->pending.empty()) {
    *flags |= NGHTTP2_DATA_FLAG_EOF;
    if (st->next < st->n_tokens) *flags |= NGHTTP2_DATA_FLAG_NO_END_STREAM;
  }
  return static_cast<ssize_t>(n);
}

long json_max_tokens(const std::string& body, long fallback) {
  const size_t at = body.find("\"max_tokens\"");
  if (at == std::string::npos) return fallback;
  const size_t colon = body.find(':', at);
  if (colon == std::string::npos) return fallback;
  const long v = std::strtol(body.c_str() + colon + 1, nullptr, 10);
  return v > 0 ? v : fallback;
}

int Server::run() {
  signal(SIGPIPE, SIG_IGN);
  rlimit rl{};
  if (getrlimit(RLIMIT_NOFILE, &rl) == 0) {
    rl.rlim_cur = rl.rlim_max;
    setrlimit(RLIMIT_NOFILE, &rl);
  }
  lfd_ = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  const int one = 1;
  setsockopt(lfd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(static_cast<uint16_t>(opt_.port));
  if (bind(lfd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 || listen(lfd_, 4096) != 0) {
    std::fprintf(stderr, "h2_server: cannot listen: %s\n", std::strerror(errno));
    return 1;
  }
  socklen_t len = sizeof addr;
  getsockname(lfd_, reinterpret_cast<sockaddr*>(&addr), &len);
  std::printf("port=%d\n", ntohs(addr.sin_port));
  std::fflush(stdout);

  ep_ = epoll_create1(EPOLL_CLOEXEC);
  tfd_ = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
  sigset_t mask;
  sigemptyset(&mask);
  sigaddset(&mask, SIGTERM);
  sigaddset(&mask, SIGINT);
  sigprocmask(SIG_BLOCK, &mask, nullptr);
  sfd_ = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
  for (const int fd : {lfd_, tfd_, sfd_}) {
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.fd = fd;
    epoll_ctl(ep_, EPOLL_CTL_ADD, fd, &ev);
  }
  const int64_t deadline = now_ns() + static_cast<int64_t>(opt_.max_seconds * 1e9);
  epoll_event events[256];
  while (now_ns() < deadline) {
    arm();
    const int n = epoll_wait(ep_, events, 256, 1000);
    for (int i = 0; i < n; ++i) {
      const int fd = events[i].data.fd;
      if (fd == sfd_) {
        summary();
        return 0;
      }
      if (fd == lfd_) {
        on_accept();
        continue;
      }
      if (fd == tfd_) {
        uint64_t x;
        [[maybe_unused]] const ssize_t r = read(tfd_, &x, sizeof x);
        armed_ = -1;
        continue;
      }
      if (fd >= static_cast<int>(conns_.size()) || !conns_[fd]) continue;
      Conn& c = *conns_[fd];
      if (events[i].events & EPOLLOUT) {
        if (!flush(c)) continue;
        if (!c.want_out) {
          // The socket took everything: the streams that waited for it go on at once.
          for (const int32_t id : c.blocked) heap_.push({now_ns(), seq_++, c.fd, c.gen, id});
          c.blocked.clear();
        }
      }
      if (events[i].events & (EPOLLIN | EPOLLHUP | EPOLLERR)) on_readable(c);
    }
    // Write every token that is due.
    const int64_t now = now_ns();
    while (!heap_.empty() && heap_.top().due <= now) {
      const Due d = heap_.top();
      heap_.pop();
      if (d.fd >= static_cast<int>(conns_.size()) || !conns_[d.fd]) continue;
      Conn& c = *conns_[d.fd];
      if (c.gen != d.gen) continue;
      const auto it = c.streams.find(d.stream);
      if (it == c.streams.end()) continue;
      write_token(c, d.stream, it->second);
      if (conns_[d.fd]) flush(c);
    }
  }
  summary();
  return 0;
}

void Server::arm() {
  if (heap_.empty()) return;
  const int64_t due = heap_.top().due;
  if (armed_ != -1 && armed_ <= due) return;
  armed_ = due;
  itimerspec spec{};
  spec.it_value.tv_sec = due / 1000000000;
  spec.it_value.tv_nsec = due % 1000000000;
  if (spec.it_value.tv_sec == 0 && spec.it_value.tv_nsec == 0) spec.it_value.tv_nsec = 1;
  timerfd_settime(tfd_, TFD_TIMER_ABSTIME, &spec, nullptr);
}

void Server::on_accept() {
  while (true) {
    const int fd = accept4(lfd_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) return;
    const int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (fd >= static_cast<int>(conns_.size())) conns_.resize(static_cast<size_t>(fd) + 1);
    conns_[fd] = std::make_unique<Conn>();
    Conn& c = *conns_[fd];
    c.fd = fd;
    c.gen = next_gen_++;
    ++connections_;
    nghttp2_session_callbacks* cb = nullptr;
    nghttp2_session_callbacks_new(&cb);
    nghttp2_session_callbacks_set_on_header_callback(
        cb, [](nghttp2_session*, const nghttp2_frame* frame, const uint8_t* name, size_t namelen,
               const uint8_t* value, size_t valuelen, uint8_t, void* user) {
          const std::string_view n(reinterpret_cast<const char*>(name), namelen);
          const std::string_view v(reinterpret_cast<const char*>(value), valuelen);
          if (n == ":path" && v.find("chat") != std::string_view::npos) {
            static_cast<Conn*>(user)->streams[frame->hd.stream_id].chat = true;
          }
          return 0;
        });
    nghttp2_session_callbacks_set_on_data_chunk_recv_callback(
        cb, [](nghttp2_session*, uint8_t, int32_t id, const uint8_t* data, size_t n, void* user) {
          static_cast<Conn*>(user)->streams[id].body.append(reinterpret_cast<const char*>(data), n);
          return 0;
        });
    nghttp2_session_callbacks_set_on_frame_recv_callback(
        cb, [](nghttp2_session*, const nghttp2_frame* frame, void* user) {
          auto* conn = static_cast<Conn*>(user);
          if ((frame->hd.type == NGHTTP2_HEADERS || frame->hd.type == NGHTTP2_DATA) &&
              (frame->hd.flags & NGHTTP2_FLAG_END_STREAM) != 0) {
            conn->streams[frame->hd.stream_id].answering = true;  // started after the read
          }
          return 0;
        });
    nghttp2_session_callbacks_set_on_stream_close_callback(
        cb, [](nghttp2_session*, int32_t id, uint32_t, void* user) {
          static_cast<Conn*>(user)->streams.erase(id);
          return 0;
        });
    nghttp2_session_server_new(&c.session, cb, &c);
    nghttp2_session_callbacks_del(cb);
    const nghttp2_settings_entry settings[] = {
        {NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS, opt_.max_streams}};
    nghttp2_submit_settings(c.session, NGHTTP2_FLAG_NONE, settings, 1);
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.fd = fd;
    epoll_ctl(ep_, EPOLL_CTL_ADD, fd, &ev);
    flush(c);
  }
}

void Server::on_readable(Conn& c) {
  char buf[65536];
  while (true) {
    const ssize_t n = recv(c.fd, buf, sizeof buf, 0);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
    if (n <= 0 || nghttp2_session_mem_recv(c.session, reinterpret_cast<uint8_t*>(buf),
                                           static_cast<size_t>(n)) < 0) {
      close_conn(c);
      return;
    }
  }
  for (auto& [id, st] : c.streams) {
    if (st.answering && st.n_tokens == 0) start(c, id);
  }
  flush(c);
}

void Server::start(Conn& c, int32_t id) {
  Stream& st = c.streams[id];
  st.n_tokens = json_max_tokens(st.body, opt_.max_tokens);
  st.first_due = now_ns();
  ++streams_;
  static const nghttp2_nv headers[] = {
      {(uint8_t*)":status", (uint8_t*)"200", 7, 3, NGHTTP2_NV_FLAG_NONE},
      {(uint8_t*)"content-type", (uint8_t*)"text/event-stream", 12, 17, NGHTTP2_NV_FLAG_NONE},
  };
  nghttp2_submit_headers(c.session, NGHTTP2_FLAG_NONE, id, nullptr, headers, 2, nullptr);
  heap_.push({st.first_due, seq_++, c.fd, c.gen, id});
}

void Server::write_token(Conn& c, int32_t id, Stream& st) {
  if (!st.pending.empty()) {  // the last DATA still waits for the socket
    c.blocked.push_back(id);
    return;
  }
  const char* event = st.chat ? kChatEvent : kEvent;
  // --itl-ms 0: every token at once, each in a DATA frame of its own, in one write.
  const long count = itl_ns_ == 0 ? st.n_tokens - st.next : 1;
  st.frame = std::strlen(event);
  for (long i = 0; i < count; ++i) st.pending += event;
  st.next += count;
  if (st.next == st.n_tokens) {
    char usage[160];
    std::snprintf(usage, sizeof usage,
                  "data: {\"id\":\"h2\",\"object\":\"text_completion\",\"choices\":[],\"usage\":"
                  "{\"prompt_tokens\":1,\"completion_tokens\":%ld}}\n\ndata: [DONE]\n\n",
                  st.n_tokens);
    st.pending += usage;
  }
  nghttp2_data_provider provider{};
  provider.source.ptr = &st;
  provider.read_callback = &Server::read_pending;
  nghttp2_submit_data(c.session,
                      st.next == st.n_tokens ? NGHTTP2_FLAG_END_STREAM : NGHTTP2_FLAG_NONE, id,
                      &provider);
  tokens_ += static_cast<uint64_t>(count);
  const bool more = st.next < st.n_tokens;
  const int64_t next_due = st.first_due + st.next * itl_ns_;
  if (!flush(c)) return;
  const auto it = c.streams.find(id);
  if (it == c.streams.end()) return;  // the last token closed it
  const int64_t now = now_ns();
  if (count == 1 && st.last_write >= 0) gaps_.push_back(now - st.last_write);
  st.last_write = now;
  if (more && st.pending.empty()) {
    heap_.push({next_due, seq_++, c.fd, c.gen, id});
  } else if (more) {
    c.blocked.push_back(id);
  }
}

bool Server::flush(Conn& c) {
  while (true) {
    if (c.out_off == c.out.size()) {
      c.out.clear();
      c.out_off = 0;
      const uint8_t* data = nullptr;
      ssize_t n;
      while ((n = nghttp2_session_mem_send(c.session, &data)) > 0) {
        c.out.append(reinterpret_cast<const char*>(data), static_cast<size_t>(n));
      }
      if (n < 0) {
        close_conn(c);
        return false;
      }
      if (c.out.empty()) break;
    }
    const ssize_t w = send(c.fd, c.out.data() + c.out_off, c.out.size() - c.out_off, MSG_NOSIGNAL);
    if (w > 0) {
      c.out_off += static_cast<size_t>(w);
      continue;
    }
    if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      if (!c.want_out) {
        epoll_event ev{};
        ev.events = EPOLLIN | EPOLLOUT;
        ev.data.fd = c.fd;
        epoll_ctl(ep_, EPOLL_CTL_MOD, c.fd, &ev);
        c.want_out = true;
      }
      return true;
    }
    close_conn(c);
    return false;
  }
  if (c.want_out) {
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.fd = c.fd;
    epoll_ctl(ep_, EPOLL_CTL_MOD, c.fd, &ev);
    c.want_out = false;
  }
  if (nghttp2_session_want_read(c.session) == 0 && nghttp2_session_want_write(c.session) == 0) {
    close_conn(c);
    return false;
  }
  return true;
}

void Server::close_conn(Conn& c) {
  const int fd = c.fd;
  epoll_ctl(ep_, EPOLL_CTL_DEL, fd, nullptr);
  nghttp2_session_del(c.session);
  close(fd);
  conns_[fd].reset();
}

void Server::summary() {
  double mean = 0, p99 = 0;
  if (!gaps_.empty()) {
    double sum = 0;
    for (const int64_t g : gaps_) sum += static_cast<double>(g);
    mean = sum / static_cast<double>(gaps_.size()) / 1e6;
    std::sort(gaps_.begin(), gaps_.end());
    p99 = static_cast<double>(gaps_[static_cast<size_t>(0.99 * (gaps_.size() - 1))]) / 1e6;
  }
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  const double cpu_us =
      (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e6 + ru.ru_utime.tv_usec + ru.ru_stime.tv_usec;
  std::printf(
      "h2_server: tokens=%llu streams=%llu connections=%llu gap_mean_ms=%.3f gap_p99_ms=%.3f "
      "cpu_us_per_token=%.3f\n",
      static_cast<unsigned long long>(tokens_), static_cast<unsigned long long>(streams_),
      static_cast<unsigned long long>(connections_), mean, p99,
      tokens_ > 0 ? cpu_us / static_cast<double>(tokens_) : 0.0);
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  Options opt;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const auto value = [&]() -> const char* {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "h2_server: %s needs a value\n", a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--port") {
      opt.port = std::atoi(value());
    } else if (a == "--itl-ms") {
      opt.itl_ms = std::atof(value());
    } else if (a == "--max-tokens") {
      opt.max_tokens = std::atol(value());
    } else if (a == "--max-streams") {
      opt.max_streams = static_cast<uint32_t>(std::atol(value()));
    } else if (a == "--max-seconds") {
      opt.max_seconds = std::atof(value());
    } else {
      std::fprintf(stderr,
                   "h2_server: unknown option %s (usage: tokenbench_h2_server [--port 0] "
                   "[--itl-ms 1] [--max-tokens 16] [--max-streams 256] [--max-seconds 600])\n",
                   a.c_str());
      return 2;
    }
  }
  Server server(opt);
  return server.run();
}
