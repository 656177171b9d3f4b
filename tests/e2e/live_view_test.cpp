// End to end: the live view appears on a terminal (a pseudo-terminal here) and never in a pipe.

#include <gtest/gtest.h>
#include <poll.h>
#include <pty.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <regex>
#include <sstream>

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

// Lines of `text` that start with `prefix`.
std::vector<std::string> lines_starting(const std::string& text, const std::string& prefix) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(prefix, 0) == 0) out.push_back(line);
  }
  return out;
}

TEST(EndToEndLiveView, WithoutATerminalAPlainLineEveryInterval) {
  // 12 requests of 12 tokens 25 ms apart, 2 at a time: about 2 s.
  SimProcess sim({"--ttft-ms", "5", "--itl-ms", "25"});
  const auto command = [&sim](const std::string& dir, const std::string& extra) {
    return std::string(TOKENBENCH_BINARY) + " run --base-url " + sim.url() +
           " --num-prompts 12 --max-concurrency 2 --input-len 16 --output-len 12 "
           "--server-metrics off --gpu-metrics off --output-dir " +
           dir + " " + extra;
  };
  // stderr into a pipe (stdout to /dev/null), as under CI or `... 2>&1 | tee log`.
  auto r = run_process({"/bin/sh", "-c",
                        command(make_temp_dir("progress_pipe"), "--progress-interval 0.5") +
                            " 2>&1 >/dev/null | cat"});
  ASSERT_EQ(r.exit_code, 0) << r.out;
  const auto lines = lines_starting(r.out, "tokenbench: progress ");
  EXPECT_GE(lines.size(), 2u) << r.out;
  for (const auto& line : lines) {
    EXPECT_NE(line.find("/12 done, 0 failed, "), std::string::npos) << line;
    EXPECT_NE(line.find(" output tok/s, TTFT p50 "), std::string::npos) << line;
  }
  EXPECT_EQ(r.out.find('\x1b'), std::string::npos) << r.out;
  // Output flowed while it ran: some line counts tokens per second.
  const std::regex tps(R"(failed, ([0-9]+) output tok/s)");
  bool flowing = false;
  for (const auto& line : lines) {
    std::smatch m;
    if (std::regex_search(line, m, tps) && std::stoi(m[1]) > 0) flowing = true;
  }
  EXPECT_TRUE(flowing) << r.out;

  // stderr into a file (nohup ... > log): the same lines.
  r = run_process(
      {"/bin/sh", "-c", command(make_temp_dir("progress_file"), "--progress-interval 0.5")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_GE(lines_starting(r.err, "tokenbench: progress ").size(), 2u) << r.err;

  // --quiet keeps silence, and --progress-interval 0 turns the lines off.
  for (const std::string extra : {"--progress-interval 0.5 --quiet", "--progress-interval 0"}) {
    r = run_process({"/bin/sh", "-c", command(make_temp_dir("progress_off"), extra)});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.err.find("tokenbench: progress"), std::string::npos) << extra << r.err;
  }
}

}  // namespace
}  // namespace tokenbench::e2e
