// End-to-end load benchmark: the real engine against serve-sim with zero model delays, so that
// the figures are the client's own costs. Prints client CPU per streamed token (getrusage of this
// process: engine and recorder) beside the simulator's CPU per token (measured in the same run,
// from /proc), and token throughput, for each stream count. Reports the median of --repeat runs.
//
// usage: tokenbench_load_bench [--streams 1,64,512] [--tokens 256] [--repeat 3] [--itl-ms 0]
//                              [--preset NAME] [--per-stream N]
// With --itl-ms > 0 the simulator spaces tokens, so that events arrive one by one rather than
// coalesced into large reads: the harder case for the client per token. With --preset the
// simulator runs its engine model (e.g. `zero`: the engine thread with every cost zero) instead of
// fixed delays, so the server's figure includes the engine thread and its hand-off to the io
// thread. --per-stream sets the requests per stream (default 8, or 4 with --itl-ms).

#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "tokenbench/core/run_config.h"
#include "tokenbench/driver/benchmark.h"
#include "tokenbench/report/recorder.h"
#include "tokenbench/sim/engine_params.h"
#include "tokenbench/sim/sim_config.h"
#include "tokenbench/sim/sim_server.h"
#include "tokenbench/workload/workload.h"

namespace {

struct Sample {
  double wall_s = 0;
  double tokens = 0;
  double client_cpu_s = 0;
  double server_cpu_s = 0;
  long failed = 0;
};

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
pid_t start_sim(std::uint16_t& port, double itl_ms, const std::string& preset) {
  int fds[2];
  if (pipe(fds) != 0) std::exit(1);
  const pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    tokenbench::sim::SimConfig config;
    config.port = 0;
    config.timing.ttft_ms = 0;
    config.timing.itl_ms = itl_ms;
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
  tokenbench::report::Recorder recorder("/tmp/tokenbench-load-bench.jsonl");
  const double cpu0 = cpu_seconds_self();
  const double sim0 = cpu_seconds_of(sim);
  const auto t0 = std::chrono::steady_clock::now();
  bench.run([&recorder](tokenbench::core::RequestRecord&& r) { recorder.add(std::move(r)); });
  recorder.close();
  Sample s;
  s.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  s.client_cpu_s = cpu_seconds_self() - cpu0;
  s.server_cpu_s = cpu_seconds_of(sim) - sim0;
  for (const auto& r : recorder.records()) {
    s.tokens += static_cast<double>(r.chunks.size());
    s.failed += r.ok() ? 0 : 1;
  }
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
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
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
  const pid_t sim = start_sim(port, itl_ms, preset);
  std::printf(
      "| streams | requests x tokens | tok/s | client CPU us/token | server CPU us/token "
      "| client/server | failed |\n|---|---|---|---|---|---|---|\n");
  for (int n : streams) {
    std::vector<double> tps, client_us, server_us;
    long failed = 0;
    double total_tokens = 0;
    for (int r = 0; r < repeat; ++r) {
      const Sample s = run_once(port, sim, n, tokens, itl_ms > 0, per_stream);
      tps.push_back(s.tokens / s.wall_s);
      client_us.push_back(s.client_cpu_s * 1e6 / s.tokens);
      server_us.push_back(s.server_cpu_s * 1e6 / s.tokens);
      failed += s.failed;
      total_tokens = s.tokens;
    }
    std::printf("| %d | %d x %d | %.0f | %.3f | %.3f | %.2f | %ld |\n", n,
                static_cast<int>(total_tokens) / tokens, tokens, median(tps), median(client_us),
                median(server_us), median(client_us) / median(server_us), failed);
    std::fflush(stdout);
  }
  kill(sim, SIGKILL);
  waitpid(sim, nullptr, 0);
  return 0;
}
