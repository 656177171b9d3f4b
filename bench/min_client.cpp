/* tokenbench_min_client: the floor, the least a client can do to follow streamed responses.
 *
 * N keep-alive connections (--streams) to 127.0.0.1:--port, all opened before timing starts.
 * Each sends a POST (--path, max_tokens = --max-tokens), then the client does nothing but
 * epoll_wait and recv into one shared buffer, counting `data: ` occurrences and looking for the
 * end of the chunked body (CRLF "0" CRLF CRLF); then it sends the next request on the same
 * connection, until --requests requests have completed. No parsing, no stamps, no records: what
 * is left is the kernel's cost of delivering the bytes and one wake-up per read, the cost any
 * client pays. tokenbench's CPU per token is compared with this (scripts/bench-fidelity.sh).
 *
 * Prints one line:
 *   min_client: streams=N requests=R tokens=T wall_s=W tokens_per_s=X cpu_us_per_token=C
 * where tokens counts `data: ` events minus two per response (the usage event and [DONE], which
 * tokenbench_fidelity_server sends after the last token), wall_s runs from the first request sent
 * to the last response complete, and cpu_us_per_token is this process's user + system CPU
 * (getrusage) over the same interval divided by tokens. Exit status 1 if a connection failed.
 *
 * usage: tokenbench_min_client --port P [--streams 64] [--requests 640] [--max-tokens 256]
 *                              [--path /v1/completions] [--max-seconds 600]
 * Plain C style compiled as C++ (the project enables only CXX), with no tokenbench code: it is the
 * reference, not the product.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MIN_CLIENT_BUF (256 * 1024)

struct stream {
  int fd;
  char tail[8]; /* the last bytes of the previous read, for patterns split across reads */
  size_t tail_len;
  int busy; /* a request is in flight */
};

static const char kData[] = "data: ";
static const char kEnd[] = "\r\n0\r\n\r\n";

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double cpu_s(void) {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
         (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

static size_t count_in(const char* p, size_t n, const char* pat, size_t len) {
  size_t count = 0;
  const char* end = p + n;
  while (p < end) {
    const char* hit = (const char*)memmem(p, (size_t)(end - p), pat, len);
    if (!hit) break;
    ++count;
    p = hit + len;
  }
  return count;
}

/* Occurrences of pat that start in `tail` and end in `head` (split across two reads). */
static size_t count_split(const char* tail, size_t tail_len, const char* head, size_t head_len,
                          const char* pat, size_t len) {
  char joint[32];
  size_t a = tail_len < len - 1 ? tail_len : len - 1;
  size_t b = head_len < len - 1 ? head_len : len - 1;
  memcpy(joint, tail + tail_len - a, a);
  memcpy(joint + a, head, b);
  size_t count = 0;
  for (size_t i = 0; i < a && i + len <= a + b; ++i)
    if (memcmp(joint + i, pat, len) == 0) ++count;
  return count;
}

static int send_all(int fd, const char* p, size_t n) {
  while (n > 0) {
    ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
    if (w < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN) {
        struct timespec pause = {0, 100000};
        nanosleep(&pause, NULL);
        continue;
      }
      return -1;
    }
    p += w;
    n -= (size_t)w;
  }
  return 0;
}

static void usage(const char* msg) {
  fprintf(stderr,
          "tokenbench_min_client: %s\nusage: tokenbench_min_client --port P [--streams 64] "
          "[--requests 640] [--max-tokens 256] [--path /v1/completions] [--max-seconds 600]\n",
          msg);
  exit(2);
}

int main(int argc, char** argv) {
  long port = 0, streams = 64, requests = 640, max_tokens = 256;
  double max_seconds = 600;
  const char* path = "/v1/completions";
  for (int i = 1; i < argc; i += 2) {
    if (i + 1 >= argc) usage("a flag without its value");
    const char* v = argv[i + 1];
    if (strcmp(argv[i], "--port") == 0)
      port = atol(v);
    else if (strcmp(argv[i], "--streams") == 0)
      streams = atol(v);
    else if (strcmp(argv[i], "--requests") == 0)
      requests = atol(v);
    else if (strcmp(argv[i], "--max-tokens") == 0)
      max_tokens = atol(v);
    else if (strcmp(argv[i], "--path") == 0)
      path = v;
    else if (strcmp(argv[i], "--max-seconds") == 0)
      max_seconds = atof(v);
    else
      usage("unknown flag");
  }
  if (port <= 0 || port > 65535 || streams < 1 || requests < 1 || max_tokens < 1)
    usage("--port, --streams, --requests and --max-tokens must be positive");
  if (streams > requests) streams = requests;

  struct rlimit lim;
  if (getrlimit(RLIMIT_NOFILE, &lim) == 0 && lim.rlim_cur < lim.rlim_max) {
    lim.rlim_cur = lim.rlim_max;
    setrlimit(RLIMIT_NOFILE, &lim);
  }

  int chat = strstr(path, "chat") != NULL;
  char body[512];
  int body_len =
      chat ? snprintf(body, sizeof body,
                      "{\"model\":\"fidelity\",\"messages\":[{\"role\":\"user\",\"content\":"
                      "\"hello\"}],\"max_tokens\":%ld,\"stream\":true}",
                      max_tokens)
           : snprintf(body, sizeof body,
                      "{\"model\":\"fidelity\",\"prompt\":\"hello\",\"max_tokens\":%ld,"
                      "\"stream\":true}",
                      max_tokens);
  char request[1024];
  int request_len = snprintf(request, sizeof request,
                             "POST %s HTTP/1.1\r\nHost: 127.0.0.1:%ld\r\nContent-Type: "
                             "application/json\r\nContent-Length: %d\r\n\r\n%s",
                             path, port, body_len, body);

  struct stream* s = (struct stream*)calloc((size_t)streams, sizeof *s);
  int ep = epoll_create1(0);
  struct sockaddr_in addr;
  memset(&addr, 0, sizeof addr);
  addr.sin_family = AF_INET;
  addr.sin_port = htons((unsigned short)port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  for (long i = 0; i < streams; ++i) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0 || connect(fd, (struct sockaddr*)&addr, sizeof addr) != 0) {
      fprintf(stderr, "min_client: connection %ld: %s\n", i, strerror(errno));
      return 1;
    }
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    s[i].fd = fd;
    struct epoll_event ev;
    ev.events = EPOLLIN;
    ev.data.u64 = (uint64_t)i;
    epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev);
  }
  /* Sockets stay blocking for send (a request always fits the send buffer); reads use
   * MSG_DONTWAIT. */

  static char buf[MIN_CLIENT_BUF];
  struct epoll_event events[1024];
  long sent = 0, done = 0;
  size_t data_events = 0;
  double t0 = now_s(), c0 = cpu_s();
  for (long i = 0; i < streams; ++i) {
    if (send_all(s[i].fd, request, (size_t)request_len) != 0) {
      fprintf(stderr, "min_client: send: %s\n", strerror(errno));
      return 1;
    }
    s[i].busy = 1;
    ++sent;
  }
  while (done < requests) {
    if (now_s() - t0 > max_seconds) {
      fprintf(stderr, "min_client: --max-seconds reached with %ld of %ld done\n", done, requests);
      return 1;
    }
    int n = epoll_wait(ep, events, 1024, 1000);
    for (int e = 0; e < n; ++e) {
      struct stream* st = &s[events[e].data.u64];
      for (;;) {
        ssize_t r = recv(st->fd, buf, sizeof buf, MSG_DONTWAIT);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0 && errno == EAGAIN) break;
        if (r <= 0) {
          fprintf(stderr, "min_client: connection closed: %s\n", r ? strerror(errno) : "EOF");
          return 1;
        }
        size_t len = (size_t)r;
        data_events += count_in(buf, len, kData, sizeof kData - 1) +
                       count_split(st->tail, st->tail_len, buf, len, kData, sizeof kData - 1);
        size_t ends = count_in(buf, len, kEnd, sizeof kEnd - 1) +
                      count_split(st->tail, st->tail_len, buf, len, kEnd, sizeof kEnd - 1);
        /* Keep the last bytes for a pattern split across this read and the next. */
        if (len >= sizeof st->tail) {
          memcpy(st->tail, buf + len - sizeof st->tail, sizeof st->tail);
          st->tail_len = sizeof st->tail;
        } else {
          size_t keep = st->tail_len + len > sizeof st->tail ? sizeof st->tail - len : st->tail_len;
          memmove(st->tail, st->tail + st->tail_len - keep, keep);
          memcpy(st->tail + keep, buf, len);
          st->tail_len = keep + len;
        }
        if (ends > 0) {
          ++done;
          st->busy = 0;
          st->tail_len = 0;
          if (sent < requests) {
            if (send_all(st->fd, request, (size_t)request_len) != 0) {
              fprintf(stderr, "min_client: send: %s\n", strerror(errno));
              return 1;
            }
            st->busy = 1;
            ++sent;
          }
        }
        if (len < sizeof buf) break;
      }
    }
  }
  double wall = now_s() - t0, cpu = cpu_s() - c0;
  long tokens = (long)data_events - 2 * done;
  printf(
      "min_client: streams=%ld requests=%ld tokens=%ld wall_s=%.4f tokens_per_s=%.0f "
      "cpu_us_per_token=%.4f\n",
      streams, done, tokens, wall, tokens / wall, tokens > 0 ? cpu * 1e6 / tokens : 0.0);
  for (long i = 0; i < streams; ++i) close(s[i].fd);
  free(s);
  return 0;
}
