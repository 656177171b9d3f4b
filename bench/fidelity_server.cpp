// tokenbench_fidelity_server: an independent reference server for measuring the client (issue 13).
//
// It shares no code with tokenbench or serve-sim, so that what it reports about its own writes is
// an outside view of the client's stamps. One thread, one epoll loop, HTTP/1.1 keep-alive. It
// answers POST /v1/completions and /v1/chat/completions with an OpenAI-style SSE stream in chunked
// transfer encoding: N token events (N = the request's max_tokens, or --max-tokens when absent),
// then a usage event carrying completion_tokens = N and `data: [DONE]`, in the same write() as the
// last token. GET /v1/models lists one model, "fidelity".
//
// Timing: the first token is due --ttft-ms after the request was parsed, token k at
// first + k * --itl-ms (absolute due times, so a late write never shifts the ones after it). Due
// writes sit in one min-heap; one timerfd (absolute, CLOCK_MONOTONIC) is armed at the earliest.
// Each write() carries one event, or --burst K events (K tokens per write, so the client reads
// many tokens at once); writes of one stream are --itl-ms apart.
//
// Measured: the CLOCK_MONOTONIC time right after each write() returns, for every token it
// completed. The gap between consecutive token writes of the same response is the server's own
// inter-token latency, the reference a client's ITL is compared with. On exit (SIGTERM, SIGINT,
// or --max-seconds) it prints one summary line:
//   fidelity_server: tokens=T writes=W responses=R gap_mean_ms= gap_p50_ms= gap_p99_ms=
//   gap_p999_ms= cpu_us_per_event= max_conns=
// where gaps count every pair of consecutive token writes within one response (not the first
// token's wait), and cpu_us_per_event is the process's user + system CPU (getrusage) over tokens
// written. With --log FILE it also writes every token write as a binary record, little-endian:
// struct { uint32 conn; uint32 response; uint32 token; uint32 reserved; int64 write_ns; }.
//
// usage: tokenbench_fidelity_server [--port 0] [--ttft-ms 0] [--itl-ms 1] [--burst 1]
//                                   [--max-tokens 16] [--log FILE] [--max-seconds 600]
// The first stdout line is `port=P` (the bound port; --port 0 picks a free one). It listens on
// 127.0.0.1 only, with a backlog of 65535, and raises RLIMIT_NOFILE to its hard limit.

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cinttypes>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <queue>
#include <string>
#include <string_view>
#include <vector>

namespace {

struct Options {
  int port = 0;
  double ttft_ms = 0;
  double itl_ms = 1;
  int burst = 1;
  long max_tokens = 16;
  const char* log_path = nullptr;
  double max_seconds = 600;
};

int64_t now_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

struct LogRecord {
  uint32_t conn;
  uint32_t response;
  uint32_t token;
  uint32_t reserved;
  int64_t write_ns;
};

// A token whose bytes end at `end` in the connection's output; stamped once they are written.
struct PendingToken {
  size_t end;
  uint32_t token;
};

struct Conn {
  int fd = -1;
  uint32_t id = 0;
  std::string in;
  std::string out;     // bytes not yet accepted by the kernel
  size_t out_off = 0;  // first unwritten byte of `out`
  std::vector<PendingToken> pending;
  bool want_out = false;  // EPOLLOUT armed
  // The response under way.
  bool streaming = false;
  bool chat = false;
  uint32_t response = 0;  // a process-wide response number
  uint64_t gen = 0;       // invalidates heap entries of a closed connection or a finished response
  long n_tokens = 0;
  long next_token = 0;   // the first token not yet rendered
  long write_index = 0;  // writes rendered so far in this response
  long prompt_tokens = 0;
  int64_t first_due = 0;
  int64_t last_write_ns = -1;  // last token write of this response
};

struct Due {
  int64_t due;
  uint64_t seq;  // FIFO among equal due times, so streams take turns
  int fd;
  uint64_t gen;
  bool operator>(const Due& o) const { return due != o.due ? due > o.due : seq > o.seq; }
};

class Server {
 public:
  explicit Server(const Options& opt) : opt_(opt) {}
  int run();

 private:
  void on_accept();
  void on_readable(Conn& c);
  void on_writable(Conn& c);
  bool try_request(Conn& c);
  bool start_stream(Conn& c, std::string_view path, std::string_view body);
  void render_write(Conn& c);
  bool flush(Conn& c);
  void close_conn(Conn& c);
  void arm_timer();
  void print_summary();
  void write_log();

  Options opt_;
  int ep_ = -1, lfd_ = -1, tfd_ = -1, sfd_ = -1;
  int64_t armed_ = -1;
  uint64_t seq_ = 0;
  uint64_t next_gen_ = 1;
  uint32_t next_conn_id_ = 0;
  uint32_t next_response_ = 0;
  std::vector<std::unique_ptr<Conn>> conns_;  // by fd
  std::priority_queue<Due, std::vector<Due>, std::greater<Due>> heap_;
  std::vector<int64_t> gaps_;
  std::vector<LogRecord> log_;
  uint64_t tokens_ = 0, writes_ = 0, responses_ = 0;
  size_t open_ = 0, max_open_ = 0;
  int64_t itl_ns_ = 0, ttft_ns_ = 0;
};

// Case-insensitive search of a header name at a line start; returns its value or "".
std::string_view header_value(std::string_view head, std::string_view name) {
  size_t pos = 0;
  while ((pos = head.find("\r\n", pos)) != std::string_view::npos) {
    pos += 2;
    if (head.size() - pos < name.size() + 1) break;
    bool match = true;
    for (size_t i = 0; i < name.size() && match; ++i)
      match = std::tolower(static_cast<unsigned char>(head[pos + i])) == name[i];
    if (match && head[pos + name.size()] == ':') {
      size_t v = pos + name.size() + 1;
      size_t e = head.find("\r\n", v);
      if (e == std::string_view::npos) e = head.size();
      while (v < e && head[v] == ' ') ++v;
      return head.substr(v, e - v);
    }
  }
  return {};
}

// The integer after `"key"` and a colon in a JSON body, or -1. Enough for the bodies clients send.
long json_int(std::string_view body, std::string_view key) {
  std::string quoted = "\"" + std::string(key) + "\"";
  size_t p = body.find(quoted);
  if (p == std::string_view::npos) return -1;
  p += quoted.size();
  while (p < body.size() && (body[p] == ' ' || body[p] == ':')) ++p;
  if (p >= body.size() || body[p] < '0' || body[p] > '9') return -1;
  long v = 0;
  while (p < body.size() && body[p] >= '0' && body[p] <= '9') v = v * 10 + (body[p++] - '0');
  return v;
}

void append_chunk(std::string& out, std::string_view data) {
  char size[16];
  int n = std::snprintf(size, sizeof size, "%zx\r\n", data.size());
  out.append(size, n);
  out.append(data);
  out.append("\r\n");
}

constexpr std::string_view kCompletionEvent =
    "data: {\"choices\":[{\"text\":\"tok\",\"index\":0}]}\n\n";
constexpr std::string_view kChatEvent =
    "data: {\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{\"content\":"
    "\"tok\"}}]}\n\n";

int Server::run() {
  rlimit lim{};
  if (getrlimit(RLIMIT_NOFILE, &lim) == 0 && lim.rlim_cur < lim.rlim_max) {
    lim.rlim_cur = lim.rlim_max;
    setrlimit(RLIMIT_NOFILE, &lim);
  }
  itl_ns_ = static_cast<int64_t>(std::llround(opt_.itl_ms * 1e6));
  ttft_ns_ = static_cast<int64_t>(std::llround(opt_.ttft_ms * 1e6));

  lfd_ = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  int one = 1;
  setsockopt(lfd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(opt_.port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (bind(lfd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      listen(lfd_, 65535) != 0) {
    std::perror("fidelity_server: bind/listen");
    return 1;
  }
  socklen_t len = sizeof addr;
  getsockname(lfd_, reinterpret_cast<sockaddr*>(&addr), &len);
  std::printf("port=%d\n", ntohs(addr.sin_port));
  std::fflush(stdout);

  sigset_t mask;
  sigemptyset(&mask);
  sigaddset(&mask, SIGTERM);
  sigaddset(&mask, SIGINT);
  sigprocmask(SIG_BLOCK, &mask, nullptr);
  signal(SIGPIPE, SIG_IGN);
  sfd_ = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
  tfd_ = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
  ep_ = epoll_create1(EPOLL_CLOEXEC);
  for (int fd : {lfd_, sfd_, tfd_}) {
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.fd = fd;
    epoll_ctl(ep_, EPOLL_CTL_ADD, fd, &ev);
  }

  const int64_t deadline = now_ns() + static_cast<int64_t>(opt_.max_seconds * 1e9);
  std::vector<epoll_event> events(1024);
  bool stop = false;
  while (!stop) {
    // Due writes first; a bounded batch so that reads and accepts are not starved when late.
    int64_t now = now_ns();
    for (int n = 0; n < 4096 && !heap_.empty() && heap_.top().due <= now; ++n) {
      Due d = heap_.top();
      heap_.pop();
      Conn* c = d.fd < static_cast<int>(conns_.size()) ? conns_[d.fd].get() : nullptr;
      if (c == nullptr || c->gen != d.gen || !c->streaming) continue;
      render_write(*c);
      if (n % 64 == 63) now = now_ns();
    }
    now = now_ns();
    if (now >= deadline) break;
    int timeout = -1;
    if (!heap_.empty() && heap_.top().due <= now) {
      timeout = 0;
    } else {
      arm_timer();
      timeout = static_cast<int>(std::min<int64_t>((deadline - now) / 1000000 + 1, 1000));
    }
    int n = epoll_wait(ep_, events.data(), static_cast<int>(events.size()), timeout);
    for (int i = 0; i < n; ++i) {
      int fd = events[i].data.fd;
      if (fd == lfd_) {
        on_accept();
      } else if (fd == sfd_) {
        stop = true;
      } else if (fd == tfd_) {
        uint64_t expirations;
        while (read(tfd_, &expirations, sizeof expirations) > 0) {
        }
        armed_ = -1;
      } else if (fd < static_cast<int>(conns_.size()) && conns_[fd]) {
        Conn& c = *conns_[fd];
        if (events[i].events & EPOLLOUT) on_writable(c);
        if (conns_[fd] && (events[i].events & (EPOLLIN | EPOLLHUP | EPOLLERR))) on_readable(c);
      }
    }
  }
  print_summary();
  write_log();
  return 0;
}

void Server::arm_timer() {
  if (heap_.empty()) return;
  int64_t due = heap_.top().due;
  if (due == armed_) return;
  itimerspec its{};
  its.it_value.tv_sec = due / 1000000000;
  its.it_value.tv_nsec = due % 1000000000;
  timerfd_settime(tfd_, TFD_TIMER_ABSTIME, &its, nullptr);
  armed_ = due;
}

void Server::on_accept() {
  for (;;) {
    int fd = accept4(lfd_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno == EINTR || errno == ECONNABORTED) continue;
      if (errno == EMFILE || errno == ENFILE)
        std::fprintf(stderr, "fidelity_server: accept: %s\n", std::strerror(errno));
      return;
    }
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (fd >= static_cast<int>(conns_.size())) conns_.resize(fd + 1024);
    auto c = std::make_unique<Conn>();
    c->fd = fd;
    c->id = next_conn_id_++;
    c->gen = next_gen_++;
    conns_[fd] = std::move(c);
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.fd = fd;
    epoll_ctl(ep_, EPOLL_CTL_ADD, fd, &ev);
    max_open_ = std::max(max_open_, ++open_);
  }
}

void Server::close_conn(Conn& c) {
  int fd = c.fd;
  epoll_ctl(ep_, EPOLL_CTL_DEL, fd, nullptr);
  close(fd);
  conns_[fd].reset();
  --open_;
}

void Server::on_readable(Conn& c) {
  char buf[16384];
  for (;;) {
    ssize_t n = recv(c.fd, buf, sizeof buf, 0);
    if (n > 0) {
      c.in.append(buf, static_cast<size_t>(n));
      if (static_cast<size_t>(n) < sizeof buf) break;
      continue;
    }
    if (n < 0 && (errno == EAGAIN || errno == EINTR)) break;
    close_conn(c);  // EOF or error
    return;
  }
  while (!c.streaming && try_request(c)) {
  }
}

// Parses one complete request from c.in, if there is one, and starts its reply. False when there
// is none yet or the connection was closed.
bool Server::try_request(Conn& c) {
  size_t head_end = c.in.find("\r\n\r\n");
  if (head_end == std::string::npos) return false;
  std::string_view head(c.in.data(), head_end);
  size_t content_length = 0;
  std::string_view cl = header_value(head, "content-length");
  for (char ch : cl) {
    if (ch < '0' || ch > '9') break;
    content_length = content_length * 10 + static_cast<size_t>(ch - '0');
  }
  size_t total = head_end + 4 + content_length;
  if (c.in.size() < total) return false;
  size_t sp1 = head.find(' ');
  size_t sp2 = sp1 == std::string_view::npos ? sp1 : head.find(' ', sp1 + 1);
  std::string method(head.substr(0, sp1));
  std::string path(sp2 == std::string_view::npos ? std::string_view()
                                                 : head.substr(sp1 + 1, sp2 - sp1 - 1));
  std::string body = c.in.substr(head_end + 4, content_length);
  c.in.erase(0, total);
  if (method == "POST" && (path == "/v1/completions" || path == "/v1/chat/completions")) {
    return start_stream(c, path, body);
  } else {
    std::string reply;
    std::string_view status = "404 Not Found";
    std::string_view json = "{\"error\":\"not found\"}";
    if (method == "GET" && path == "/v1/models") {
      status = "200 OK";
      json = "{\"object\":\"list\",\"data\":[{\"id\":\"fidelity\",\"object\":\"model\"}]}";
    }
    reply.append("HTTP/1.1 ").append(status).append("\r\nContent-Type: application/json\r\n");
    reply.append("Content-Length: ").append(std::to_string(json.size())).append("\r\n\r\n");
    reply.append(json);
    c.out.append(reply);
    if (!flush(c)) return false;
  }
  return true;
}

// Starts the reply's stream; false when the connection was closed.
bool Server::start_stream(Conn& c, std::string_view path, std::string_view body) {
  long n = json_int(body, "max_tokens");
  if (n < 0) n = json_int(body, "max_completion_tokens");
  if (n < 0) n = opt_.max_tokens;
  c.streaming = true;
  c.chat = path == "/v1/chat/completions";
  c.response = next_response_++;
  c.gen = next_gen_++;
  c.n_tokens = n;
  c.next_token = 0;
  c.write_index = 0;
  c.prompt_tokens = std::max<long>(1, static_cast<long>(body.size() / 4));
  c.last_write_ns = -1;
  ++responses_;
  c.out.append(
      "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\n"
      "Transfer-Encoding: chunked\r\n\r\n");
  if (!flush(c)) return false;
  c.first_due = now_ns() + ttft_ns_;
  heap_.push(Due{c.first_due, seq_++, c.fd, c.gen});
  return true;
}

// Renders the next write of c's response (one event, or --burst events) and writes it.
void Server::render_write(Conn& c) {
  std::string_view event = c.chat ? kChatEvent : kCompletionEvent;
  long k = std::min<long>(opt_.burst, c.n_tokens - c.next_token);
  for (long i = 0; i < k; ++i) {
    append_chunk(c.out, event);
    c.pending.push_back(PendingToken{c.out.size(), static_cast<uint32_t>(c.next_token++)});
  }
  bool last = c.next_token >= c.n_tokens;
  if (last) {
    char usage[160];
    int u = std::snprintf(usage, sizeof usage,
                          "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":%ld,"
                          "\"completion_tokens\":%ld,\"total_tokens\":%ld}}\n\n",
                          c.prompt_tokens, c.n_tokens, c.prompt_tokens + c.n_tokens);
    append_chunk(c.out, std::string_view(usage, static_cast<size_t>(u)));
    append_chunk(c.out, "data: [DONE]\n\n");
    c.out.append("0\r\n\r\n");
  }
  ++c.write_index;
  if (!flush(c)) return;  // closed
  if (last) {
    c.streaming = false;
    c.gen = next_gen_++;
    while (!c.streaming && try_request(c)) {
    }
  } else {
    heap_.push(Due{c.first_due + c.write_index * itl_ns_, seq_++, c.fd, c.gen});
  }
}

// Writes what it can of c.out; stamps the tokens whose bytes are now all written. Returns false
// when the connection was closed.
bool Server::flush(Conn& c) {
  while (c.out_off < c.out.size()) {
    ssize_t n = send(c.fd, c.out.data() + c.out_off, c.out.size() - c.out_off, MSG_NOSIGNAL);
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN) break;
      close_conn(c);
      return false;
    }
    int64_t t = now_ns();
    ++writes_;
    c.out_off += static_cast<size_t>(n);
    size_t done = 0;
    while (done < c.pending.size() && c.pending[done].end <= c.out_off) {
      const PendingToken& p = c.pending[done++];
      ++tokens_;
      if (opt_.log_path) log_.push_back(LogRecord{c.id, c.response, p.token, 0, t});
    }
    if (done > 0) {
      // One gap per write that completed tokens: a burst's tokens share their write's time.
      if (c.last_write_ns >= 0) gaps_.push_back(t - c.last_write_ns);
      c.last_write_ns = t;
      c.pending.erase(c.pending.begin(), c.pending.begin() + static_cast<long>(done));
    }
  }
  if (c.out_off == c.out.size()) {
    c.out.clear();
    c.out_off = 0;
  }
  bool want = c.out_off < c.out.size();
  if (want != c.want_out) {
    epoll_event ev{};
    ev.events = want ? EPOLLIN | EPOLLOUT : EPOLLIN;
    ev.data.fd = c.fd;
    epoll_ctl(ep_, EPOLL_CTL_MOD, c.fd, &ev);
    c.want_out = want;
  }
  return true;
}

void Server::on_writable(Conn& c) { flush(c); }

double percentile_ms(std::vector<int64_t>& v, double q) {
  if (v.empty()) return 0;
  // Linear interpolation between closest ranks (numpy's default).
  double pos = q * static_cast<double>(v.size() - 1);
  size_t lo = static_cast<size_t>(pos);
  size_t hi = std::min(lo + 1, v.size() - 1);
  std::nth_element(v.begin(), v.begin() + static_cast<long>(lo), v.end());
  double a = static_cast<double>(v[lo]);
  double b = a;
  if (hi != lo)
    b = static_cast<double>(*std::min_element(v.begin() + static_cast<long>(hi), v.end()));
  return (a + (b - a) * (pos - static_cast<double>(lo))) / 1e6;
}

void Server::print_summary() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  double cpu_us = static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e6 +
                  static_cast<double>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
  double mean = 0;
  for (int64_t g : gaps_) mean += static_cast<double>(g);
  mean = gaps_.empty() ? 0 : mean / static_cast<double>(gaps_.size()) / 1e6;
  double p50 = percentile_ms(gaps_, 0.50);
  double p99 = percentile_ms(gaps_, 0.99);
  double p999 = percentile_ms(gaps_, 0.999);
  std::printf("fidelity_server: tokens=%" PRIu64 " writes=%" PRIu64 " responses=%" PRIu64
              " gaps=%zu gap_mean_ms=%.4f gap_p50_ms=%.4f gap_p99_ms=%.4f gap_p999_ms=%.4f"
              " cpu_us_per_event=%.3f max_conns=%zu\n",
              tokens_, writes_, responses_, gaps_.size(), mean, p50, p99, p999,
              tokens_ ? cpu_us / static_cast<double>(tokens_) : 0.0, max_open_);
  std::fflush(stdout);
}

void Server::write_log() {
  if (!opt_.log_path) return;
  FILE* f = std::fopen(opt_.log_path, "wb");
  if (!f) {
    std::perror(opt_.log_path);
    return;
  }
  std::fwrite(log_.data(), sizeof(LogRecord), log_.size(), f);
  std::fclose(f);
}

[[noreturn]] void usage(const char* msg) {
  std::fprintf(stderr,
               "tokenbench_fidelity_server: %s\nusage: tokenbench_fidelity_server [--port 0] "
               "[--ttft-ms 0] [--itl-ms 1] [--burst 1] [--max-tokens 16] [--log FILE] "
               "[--max-seconds 600]\n",
               msg);
  std::exit(2);
}

}  // namespace

int main(int argc, char** argv) {
  Options opt;
  for (int i = 1; i < argc; ++i) {
    std::string_view a = argv[i];
    if (i + 1 >= argc) usage(("missing value for " + std::string(a)).c_str());
    const char* v = argv[++i];
    char* end = nullptr;
    double x = std::strtod(v, &end);
    bool numeric = end != v && *end == '\0';
    if (a == "--log") {
      opt.log_path = v;
    } else if (!numeric) {
      usage(("not a number: " + std::string(a) + " " + v).c_str());
    } else if (a == "--port" && x >= 0 && x < 65536) {
      opt.port = static_cast<int>(x);
    } else if (a == "--ttft-ms" && x >= 0) {
      opt.ttft_ms = x;
    } else if (a == "--itl-ms" && x >= 0) {
      opt.itl_ms = x;
    } else if (a == "--burst" && x >= 1) {
      opt.burst = static_cast<int>(x);
    } else if (a == "--max-tokens" && x >= 1) {
      opt.max_tokens = static_cast<long>(x);
    } else if (a == "--max-seconds" && x > 0) {
      opt.max_seconds = x;
    } else {
      usage(("unknown flag or value out of range: " + std::string(a) + " " + v).c_str());
    }
  }
  Server server(opt);
  return server.run();
}
