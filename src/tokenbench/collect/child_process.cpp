#include "tokenbench/collect/child_process.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <thread>

extern char** environ;

namespace tokenbench::collect {

std::optional<std::string> find_on_path(const std::string& program) {
  const auto executable = [](const std::string& path) {
    struct stat st {};
    return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
           ::access(path.c_str(), X_OK) == 0;
  };
  if (program.empty()) return std::nullopt;
  if (program.find('/') != std::string::npos) {
    return executable(program) ? std::optional<std::string>(program) : std::nullopt;
  }
  const char* path = std::getenv("PATH");
  const std::string dirs = path != nullptr ? path : "/usr/local/bin:/usr/bin:/bin";
  for (std::size_t start = 0; start <= dirs.size();) {
    const auto colon = dirs.find(':', start);
    const std::string dir =
        dirs.substr(start, colon == std::string::npos ? std::string::npos : colon - start);
    const std::string candidate = (dir.empty() ? std::string(".") : dir) + "/" + program;
    if (executable(candidate)) return candidate;
    if (colon == std::string::npos) break;
    start = colon + 1;
  }
  return std::nullopt;
}

ChildProcess::ChildProcess(const std::vector<std::string>& args) { spawn(args, nullptr); }

ChildProcess::ChildProcess(const std::vector<std::string>& args, const std::string& output_file) {
  spawn(args, &output_file);
}

void ChildProcess::spawn(const std::vector<std::string>& args, const std::string* output_file) {
  if (args.empty()) throw std::runtime_error("no program to start");
  int fds[2] = {-1, -1};
  if (output_file != nullptr) {
    fds[1] = ::open(output_file->c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fds[1] < 0) {
      throw std::runtime_error("cannot start " + args[0] + ": cannot open " + *output_file + ": " +
                               std::strerror(errno));
    }
  } else if (::pipe2(fds, O_CLOEXEC) != 0) {
    throw std::runtime_error(std::string("cannot start ") + args[0] +
                             ": pipe: " + std::strerror(errno));
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, fds[1], STDERR_FILENO);
  // The child gets stdin, stdout and stderr only: not the run's sockets and files.
  posix_spawn_file_actions_addclosefrom_np(&actions, STDERR_FILENO + 1);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  // Its own process group: a Ctrl-C at the terminal is the run's to handle, and terminate()
  // reaches whatever the child started (a shell script's sleep).
  sigset_t defaults;
  sigemptyset(&defaults);
  sigaddset(&defaults, SIGINT);
  sigaddset(&defaults, SIGTERM);
  sigaddset(&defaults, SIGPIPE);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  sigset_t none;
  sigemptyset(&none);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setpgroup(&attr, 0);
  posix_spawnattr_setflags(&attr,
                           POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
  std::vector<char*> argv;
  argv.reserve(args.size() + 1);
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  const int rc = ::posix_spawnp(&pid_, args[0].c_str(), &actions, &attr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  ::close(fds[1]);
  if (rc != 0) {
    if (fds[0] >= 0) ::close(fds[0]);
    pid_ = -1;
    throw std::runtime_error("cannot start " + args[0] + ": " + std::strerror(rc));
  }
  out_fd_ = fds[0];
}

ChildProcess::~ChildProcess() {
  terminate();
  if (out_fd_ >= 0) ::close(out_fd_);
}

bool ChildProcess::exited() {
  if (reaped_ || pid_ < 0) return true;
  const pid_t r = ::waitpid(pid_, &status_, WNOHANG);
  if (r == pid_ || (r < 0 && errno == ECHILD)) reaped_ = true;
  return reaped_;
}

std::optional<int> ChildProcess::terminate(std::chrono::milliseconds grace) {
  if (pid_ < 0 || reaped_) return std::nullopt;
  // The group first (the child's own children too), the child itself in case it left it.
  ::kill(-pid_, SIGTERM);
  ::kill(pid_, SIGTERM);
  const auto deadline = std::chrono::steady_clock::now() + grace;
  while (!exited() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  if (!reaped_) {
    ::kill(-pid_, SIGKILL);
    ::kill(pid_, SIGKILL);
    while (::waitpid(pid_, &status_, 0) < 0 && errno == EINTR) {
    }
    reaped_ = true;
  } else {
    ::kill(-pid_, SIGKILL);  // what the child left behind in its group
  }
  return status_;
}

}  // namespace tokenbench::collect
