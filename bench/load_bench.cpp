// End-to-end load benchmark: the real engine against serve-sim with zero model delays, so that
// the figures are the client's own costs. Prints client CPU per streamed token (getrusage of this
// process: engine and recorder) beside the simulator's CPU per token (measured in the same run,
// from /proc), and token throughput, for each stream count. Reports the median of --repeat runs.
//
// usage: tokenbench_load_bench [--streams 1,64,512] [--tokens 256] [--repeat 3] [--itl-ms 0]
//                              [--preset NAME] [--per-stream N] [--floor]
// With --itl-ms > 0 the simulator spaces tokens, so that events arrive one by one rather than
// coalesced into large reads: the harder case for the client per token. With --preset the
// simulator runs its engine model (e.g. `zero`: the engine thread with every cost zero) instead of
// fixed delays, so the server's figure includes the engine thread and its hand-off to the io
// thread. --per-stream sets the requests per stream (default 8, or 4 with --itl-ms).
// With fixed delays the simulator runs with --debug-lateness, and the table adds how late it
// wrote its tokens (write minus due time, from its /metrics histogram over the run: the upper
// bound of the bucket holding the median and the 99th percentile), how many it wrote early, and
// how many tokens its writes carried on average (tokens due together share a write); -1: n/a.
// --floor runs the same client against bench/sse_floor.cpp instead of serve-sim: a minimal
// epoll server writing one pre-rendered event per token per stream on a single periodic timer
// (every --itl-ms), the floor of the server's CPU per paced event.

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "sse_floor.h"
#include "tokenbench/core/run_config.h"
#include "tokenbench/driver/benchmark.h"
#include "tokenbench/records/recorder.h"
#include "tokenbench/sim/engine_params.h"
#include "tokenbench/sim/sim_config.h"
#include "tokenbench/sim/sim_server.h"
#include "tokenbench/workload/workload.h"

namespace {

// The simulator's lateness histogram (cumulative counts per bound, +Inf last) and early count.
struct Lateness {
  std::vector<double> bounds;
  std::vector<double> cumulative;
  double early = 0;
  double writes = 0;
};

struct Sample {
  double wall_s = 0;
  double tokens = 0;
  double client_cpu_s = 0;
  double server_cpu_s = 0;
  long failed = 0;
  Lateness lateness;  ///< over this run (a difference of two scrapes)
};

// GET /metrics over a plain blocking socket; empty on any failure.
std::string scrape_metrics(std::uint16_t port) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return {};
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  std::string reply;
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0) {
    const std::string req = "GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
    if (write(fd, req.data(), req.size()) == static_cast<ssize_t>(req.size())) {
      std::array<char, 65536> buf;
      ssize_t n = 0;
      while ((n = read(fd, buf.data(), buf.size())) > 0) reply.append(buf.data(), n);
    }
  }
  close(fd);
  return reply;
}

Lateness parse_lateness(const std::string& text) {
  Lateness l;
  std::istringstream in(text);
  std::string line;
  const std::string bucket = "tokenbench_sim:token_lateness_seconds_bucket{le=\"";
  const std::string early = "tokenbench_sim:tokens_early_total ";
  const std::string writes = "tokenbench_sim:stream_writes_total ";
  while (std::getline(in, line)) {
    if (line.rfind(bucket, 0) == 0) {
      const auto end = line.find('"', bucket.size());
      const std::string le = line.substr(bucket.size(), end - bucket.size());
      l.bounds.push_back(le == "+Inf" ? 1e300 : std::stod(le));
      l.cumulative.push_back(std::stod(line.substr(line.rfind(' ') + 1)));
    } else if (line.rfind(early, 0) == 0) {
      l.early = std::stod(line.substr(early.size()));
    } else if (line.rfind(writes, 0) == 0) {
      l.writes = std::stod(line.substr(writes.size()));
    }
  }
  return l;
}

Lateness minus(Lateness a, const Lateness& b) {
  for (std::size_t i = 0; i < a.cumulative.size() && i < b.cumulative.size(); ++i) {
    a.cumulative[i] -= b.cumulative[i];
  }
  a.early -= b.early;
  a.writes -= b.writes;
  return a;
}

// The upper bound of the bucket that holds quantile q, in microseconds; -1 without data.
double quantile_bound_us(const Lateness& l, double q) {
  if (l.cumulative.empty() || l.cumulative.back() <= 0) return -1;
  const double rank = q * l.cumulative.back();
  for (std::size_t i = 0; i < l.cumulative.size(); ++i) {
    if (l.cumulative[i] >= rank) return l.bounds[i] * 1e6;
  }
  return -1;
}

double cpu_seconds_self() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
         static_cast<double>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

double cpu_seconds_of(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::istringstream fields(stat.substr(stat.rfind(')') + 2));
  std::string f;
  double utime = 0, stime = 0;
  for (int i = 3; i <= 15 && fields >> f; ++i) {
    if (i == 14) utime = std::stod(f);
    if (i == 15) stime = std::stod(f);
  }
  return (utime + stime) / static_cast<double>(sysconf(_SC_CLK_TCK));
}

// Runs serve-sim in a child process (forked before this process starts any thread), so that its
// CPU is not counted as the client's. Returns the child's pid and writes its port.
pid_t start_sim(std::uint16_t& port, double itl_ms, const std::string& preset, bool floor_server,
                int tokens) {
  int fds[2];
  if (pipe(fds) != 0) std::exit(1);
  const pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    if (floor_server)
      tokenbench::bench::run_floor_server(static_cast<int>(itl_ms * 1000), tokens, fds[1]);
    tokenbench::sim::SimConfig config;
    config.port = 0;
    config.timing.ttft_ms = 0;
    config.timing.itl_ms = itl_ms;
    config.measure_lateness = true;
    if (!preset.empty()) {
      const auto params = tokenbench::sim::find_engine_preset(preset);
      if (!params) _exit(2);
      config.mode = tokenbench::sim::TimingMode::kEngine;
      config.engine = *params;
    }
    tokenbench::sim::SimServer server(config);
    server.start();
    const std::uint16_t p = server.port();
    if (write(fds[1], &p, sizeof p) != sizeof p) _exit(1);
    close(fds[1]);
    pause();
    _exit(0);
  }
  close(fds[1]);
  if (read(fds[0], &port, sizeof port) != sizeof port) std::exit(1);
  close(fds[0]);
  return pid;
}

Sample run_once(std::uint16_t port, pid_t sim, int streams, int tokens, bool paced,
                int per_stream) {
  tokenbench::core::RunConfig c;
  c.base_url = "http://127.0.0.1:" + std::to_string(port);
  c.model = "sim-model";
  c.max_concurrency = streams;
  c.workers = 1;
  // Paced streams take tokens x ITL each: fewer requests keep the run short.
  c.num_prompts = std::max(paced ? 16 : 200, streams * per_stream);
  c.input_len = 16;
  c.output_len = tokens;
  tokenbench::driver::Benchmark bench(c, {tokenbench::driver::Target{}},
                                      tokenbench::workload::build_workload(c));
  double chunks = 0;
  double failed = 0;
  tokenbench::records::Recorder recorder(
      "/tmp/tokenbench-load-bench.jsonl", {}, tokenbench::records::RecordsCompression::kNone, 0,
      [&chunks, &failed](const tokenbench::core::RequestRecord& r) {
        chunks += static_cast<double>(r.chunks.size());
        failed += r.ok() ? 0 : 1;
      });
  const double cpu0 = cpu_seconds_self();
  const Lateness late0 = parse_lateness(scrape_metrics(port));
  const double sim0 = cpu_seconds_of(sim);
  const auto t0 = std::chrono::steady_clock::now();
  bench.run([&recorder](tokenbench::core::RequestRecord&& r) { recorder.add(std::move(r)); });
  recorder.close();
  Sample s;
  s.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  s.client_cpu_s = cpu_seconds_self() - cpu0;
  s.server_cpu_s = cpu_seconds_of(sim) - sim0;
  s.lateness = minus(parse_lateness(scrape_metrics(port)), late0);
  s.tokens = chunks;
  s.failed = failed;
  return s;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<int> streams{1, 64, 512};
  int tokens = 256;
  int repeat = 3;
  double itl_ms = 0;
  int per_stream = 0;
  std::string preset;
  bool floor_server = false;
  for (int i = 1; i < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--floor") {
      floor_server = true;
      --i;  // takes no value
      continue;
    }
    if (i + 1 >= argc) break;
    if (flag == "--streams") {
      streams.clear();
      std::stringstream ss(argv[i + 1]);
      std::string item;
      while (std::getline(ss, item, ',')) streams.push_back(std::stoi(item));
    } else if (flag == "--tokens") {
      tokens = std::stoi(argv[i + 1]);
    } else if (flag == "--repeat") {
      repeat = std::stoi(argv[i + 1]);
    } else if (flag == "--itl-ms") {
      itl_ms = std::stod(argv[i + 1]);
    } else if (flag == "--preset") {
      preset = argv[i + 1];
    } else if (flag == "--per-stream") {
      per_stream = std::stoi(argv[i + 1]);
    }
  }
  if (per_stream <= 0) per_stream = itl_ms > 0 ? 4 : 8;
  rlimit lim{};
  if (getrlimit(RLIMIT_NOFILE, &lim) == 0) {
    lim.rlim_cur = lim.rlim_max;
    setrlimit(RLIMIT_NOFILE, &lim);
  }
  std::uint16_t port = 0;
  if (floor_server && itl_ms <= 0) {
    std::fprintf(stderr, "--floor needs --itl-ms > 0\n");
    return 1;
  }
  const pid_t sim = start_sim(port, itl_ms, preset, floor_server, tokens);
  std::printf(
      "| streams | requests x tokens | tok/s | client CPU us/token | server CPU us/token "
      "| client/server | failed | late p50 us | late p99 us | early | tokens/write |\n"
      "|---|---|---|---|---|---|---|---|---|---|---|\n");
  for (int n : streams) {
    std::vector<double> tps, client_us, server_us, late50, late99, per_write;
    double early = 0;
    long failed = 0;
    double total_tokens = 0;
    for (int r = 0; r < repeat; ++r) {
      const Sample s = run_once(port, sim, n, tokens, itl_ms > 0, per_stream);
      tps.push_back(s.tokens / s.wall_s);
      client_us.push_back(s.client_cpu_s * 1e6 / s.tokens);
      server_us.push_back(s.server_cpu_s * 1e6 / s.tokens);
      failed += s.failed;
      late50.push_back(quantile_bound_us(s.lateness, 0.5));
      late99.push_back(quantile_bound_us(s.lateness, 0.99));
      early += s.lateness.early;
      const double timed = s.lateness.cumulative.empty() ? 0 : s.lateness.cumulative.back();
      per_write.push_back(s.lateness.writes > 0 ? timed / s.lateness.writes : -1);
      total_tokens = s.tokens;
    }
    std::printf("| %d | %d x %d | %.0f | %.3f | %.3f | %.2f | %ld | %.0f | %.0f | %.0f | %.2f |\n",
                n, static_cast<int>(total_tokens) / tokens, tokens, median(tps), median(client_us),
                median(server_us), median(client_us) / median(server_us), failed, median(late50),
                median(late99), early, median(per_write));
    std::fflush(stdout);
  }
  kill(sim, SIGKILL);
  waitpid(sim, nullptr, 0);
  return 0;
}
