// End to end: the live view appears on a terminal (a pseudo-terminal here) and never in a pipe.

#include <gtest/gtest.h>
#include <poll.h>
#include <pty.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>

#include "process.h"

namespace tokenbench::e2e {
namespace {

// Runs `args` with stdin, stdout and stderr on a pseudo-terminal; everything it wrote.
std::string run_on_pty(const std::vector<std::string>& args) {
  int master = -1;
  const pid_t pid = forkpty(&master, nullptr, nullptr, nullptr);
  if (pid == 0) {
    std::vector<char*> argv;
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execv(argv[0], argv.data());
    _exit(127);
  }
  std::string out;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  char buf[4096];
  while (std::chrono::steady_clock::now() < deadline) {
    pollfd p{master, POLLIN, 0};
    if (poll(&p, 1, 200) <= 0) continue;
    const ssize_t n = read(master, buf, sizeof buf);
    if (n <= 0) break;  // EIO once the child closed the terminal
    out.append(buf, static_cast<std::size_t>(n));
  }
  close(master);
  int status = 0;
  waitpid(pid, &status, 0);
  return out;
}

TEST(EndToEndLiveView, ShowsOnATerminalAndNotInAPipe) {
  SimProcess sim({"--ttft-ms", "5", "--itl-ms", "2"});
  const std::string dir = make_temp_dir("live_view_tty");
  const std::vector<std::string> args{TOKENBENCH_BINARY,  "run", "--base-url",     sim.url(),
                                      "--num-prompts",    "60",  "--request-rate", "100",
                                      "--output-len",     "8",   "--output-dir",   dir,
                                      "--server-metrics", "off", "--gpu-metrics",  "off"};
  const std::string tty = run_on_pty(args);
  EXPECT_NE(tty.find("in flight"), std::string::npos) << tty;
  EXPECT_NE(tty.find("\x1b[2K"), std::string::npos) << tty;
  EXPECT_NE(tty.find("60/60 done"), std::string::npos) << tty;  // the last frame
  EXPECT_NE(tty.find("TTFT p50 "), std::string::npos) << tty;

  const std::string piped_dir = make_temp_dir("live_view_pipe");
  std::vector<std::string> piped = args;
  std::replace(piped.begin(), piped.end(), dir, piped_dir);
  const auto r = run_process(piped);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err.find("in flight"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find('\x1b'), std::string::npos) << r.err;
  EXPECT_EQ(r.out.find('\x1b'), std::string::npos) << r.out;
}

}  // namespace
}  // namespace tokenbench::e2e
