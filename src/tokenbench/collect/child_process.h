#pragma once

#include <sys/types.h>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace tokenbench::collect {

/// The full path of `program` found on $PATH (an executable regular file), or nullopt. A name
/// with a '/' is checked as given.
std::optional<std::string> find_on_path(const std::string& program);

/// A helper program run as a child (posix_spawnp, no shell) in a process group of its own, with
/// its stdout and stderr on one pipe that the owner reads, and stdin on /dev/null. Ends it on
/// terminate() or destruction: SIGTERM to its group, then SIGKILL after a grace period, and
/// always reaps it (no zombie). Not thread-safe: one owner thread reads; terminate() may be
/// called from another thread only after the reader stopped reading (see GpuSampler).
class ChildProcess {
 public:
  /// Starts `args` (args[0] is looked up on $PATH). Throws std::runtime_error with one line when
  /// it cannot be started.
  explicit ChildProcess(const std::vector<std::string>& args);
  /// Starts `args` with its stdout and stderr appended to the file `output_file` (created when
  /// missing) instead of a pipe: a server whose log nobody reads as it runs (--serve-cmd).
  ChildProcess(const std::vector<std::string>& args, const std::string& output_file);
  ~ChildProcess();
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  /// The read end of the child's stdout/stderr pipe (close-on-exec, blocking); -1 when its output
  /// goes to a file.
  int output_fd() const { return out_fd_; }
  pid_t pid() const { return pid_; }

  /// Ends the child if it still runs (SIGTERM to its process group; SIGKILL when it has not
  /// exited after `grace`) and reaps it. Returns its wait status, or nullopt when it was reaped
  /// before. Idempotent.
  std::optional<int> terminate(std::chrono::milliseconds grace = std::chrono::milliseconds(500));

  /// Reaps the child if it has exited on its own (non-blocking); true when it has.
  bool exited();

  /// The wait status once reaped (exited() or terminate() returned it); meaningless before.
  int status() const { return status_; }

 private:
  void spawn(const std::vector<std::string>& args, const std::string* output_file);

  pid_t pid_ = -1;
  int out_fd_ = -1;
  bool reaped_ = false;
  int status_ = 0;
};

}  // namespace tokenbench::collect
