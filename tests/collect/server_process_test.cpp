// The server under test when tokenbench starts it: its log, its end, readiness, hooks.

#include "tokenbench/collect/server_process.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace tokenbench::collect {
namespace {

std::string temp_dir(const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("tb-server-" + name + "-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir.string();
}

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

bool alive(pid_t pid) { return ::kill(pid, 0) == 0 || errno != ESRCH; }

TEST(ServerProcess, KeepsItsOutputAndSaysHowItEnded) {
  const std::string dir = temp_dir("exit");
  ServerProcess server("echo starting; echo oops >&2; exit 3", dir + "/server.log");
  for (int i = 0; i < 500 && !server.exited(); ++i) ::usleep(10000);
  ASSERT_TRUE(server.exited());
  EXPECT_EQ(server.how_it_ended(), "exited with status 3");
  EXPECT_EQ(slurp(dir + "/server.log"), "starting\noops\n");
}

TEST(ServerProcess, StopEndsItsWholeProcessGroup) {
  const std::string dir = temp_dir("group");
  const std::string pids = dir + "/pids";
  // The shell starts a child that ignores SIGTERM: SIGKILL after the grace period ends it too.
  ServerProcess server("sh -c 'trap \"\" TERM; echo $$ > " + pids + "; sleep 60' & wait",
                       dir + "/server.log");
  for (int i = 0; i < 500 && slurp(pids).empty(); ++i) ::usleep(10000);
  const pid_t child = std::stoi(slurp(pids));
  ASSERT_TRUE(alive(child));
  server.stop(std::chrono::milliseconds(200));
  for (int i = 0; i < 200 && alive(child); ++i) ::usleep(10000);  // init reaps the orphan
  EXPECT_FALSE(alive(child));
  EXPECT_TRUE(server.exited());
}

TEST(ServerProcess, NeverReadyWhenItExitsOrDoesNotAnswer) {
  const std::string dir = temp_dir("ready");
  ServerProcess gone("exit 1", dir + "/a.log");
  const auto a = wait_until_ready(&gone, "http://127.0.0.1:" + std::to_string(free_loopback_port()),
                                  5, nullptr, std::chrono::milliseconds(20));
  EXPECT_FALSE(a.ready);
  EXPECT_EQ(a.why, "the server exited with status 1 before it was ready");

  ServerProcess silent("sleep 30", dir + "/b.log");
  const auto b =
      wait_until_ready(&silent, "http://127.0.0.1:" + std::to_string(free_loopback_port()), 0.3,
                       nullptr, std::chrono::milliseconds(20));
  EXPECT_FALSE(b.ready);
  EXPECT_NE(b.why.find("not ready after 0.3 s (--serve-ready-timeout); last: GET "),
            std::string::npos)
      << b.why;
  EXPECT_NE(b.why.find("/health"), std::string::npos) << b.why;

  bool asked = false;
  const auto c =
      wait_until_ready(&silent, "http://127.0.0.1:1", 30, [&asked] { return asked = true; });
  EXPECT_FALSE(c.ready);
  EXPECT_EQ(c.why, "stopped while waiting for the server");
}

TEST(ServerProcess, HooksRunToTheirEndAndSayWhyTheyFailed) {
  const std::string dir = temp_dir("hooks");
  const std::string log = dir + "/hooks.log";
  EXPECT_EQ(run_hook("echo rolled out", log, 10), "");
  EXPECT_EQ(run_hook("echo no >&2; exit 2", log, 10), "exited with status 2");
  EXPECT_EQ(run_hook("sleep 5", log, 0.2), "timed out after 0.2 s");
  EXPECT_EQ(slurp(log),
            "# tokenbench hook: echo rolled out\nrolled out\n# tokenbench hook: echo no >&2; "
            "exit 2\nno\n# tokenbench hook: sleep 5\n");
}

TEST(ServerProcess, LogTailIsTheLastLinesMadeSafe) {
  const std::string dir = temp_dir("tail");
  const std::string path = dir + "/server.log";
  {
    std::ofstream out(path);
    for (int i = 1; i <= 30; ++i) out << "line " << i << "\n";
    out << "bell\a here\n";
  }
  EXPECT_EQ(log_tail(path, 3), "line 29\nline 30\nbell\\x07 here\n");
  // Only the last 20 bytes read: the first, cut line is left out.
  EXPECT_EQ(log_tail(path, 10, 20), "line 30\nbell\\x07 here\n");
  EXPECT_EQ(log_tail(dir + "/missing.log"), "");
}

TEST(ServerProcess, FreePortsAreLoopbackPorts) {
  const int port = free_loopback_port();
  EXPECT_GT(port, 0);
  EXPECT_LT(port, 65536);
}

}  // namespace
}  // namespace tokenbench::collect
