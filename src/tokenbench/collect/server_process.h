#pragma once

// The server under test when tokenbench starts it itself (a server-configuration sweep,
// `run --serve-cmd`): the process, its readiness, the shell hooks around it, and its log.

#include <sys/types.h>

#include <chrono>
#include <functional>
#include <memory>
#include <string>

#include "tokenbench/collect/child_process.h"

namespace tokenbench::collect {

/// `sh -c COMMAND` in a process group of its own, its stdout and stderr appended to `log_path`
/// (server.log). Stopped on stop() or destruction: SIGTERM to its group, SIGKILL after the grace
/// period, always reaped.
class ServerProcess {
 public:
  /// Throws std::runtime_error with one line when it cannot be started.
  ServerProcess(const std::string& command, const std::string& log_path);

  pid_t pid() const { return child_.pid(); }
  /// True once it has exited on its own (reaps it).
  bool exited() { return child_.exited(); }
  /// "exited with status 1" or "killed by signal 9 (Killed)": how it ended, once it has.
  std::string how_it_ended() const;
  /// Stops it (SIGTERM to its group, then SIGKILL after `grace`); idempotent.
  void stop(std::chrono::milliseconds grace);

 private:
  ChildProcess child_;
};

/// What waiting for a server found.
struct Readiness {
  bool ready = false;
  double waited_s = 0;
  std::string why;  ///< when not ready: what it last answered, or that it exited
};

/// Waits until the server at `base_url` is ready: GET /health answers 2xx (a 404 there means it
/// has no such endpoint and is passed over), then GET /v1/models answers 2xx. Polls every
/// `interval` until `timeout_s`; gives up at once when `server` (null: one tokenbench did not
/// start) exits or `stop()` returns true.
Readiness wait_until_ready(ServerProcess* server, const std::string& base_url, double timeout_s,
                           const std::function<bool()>& stop,
                           std::chrono::milliseconds interval = std::chrono::milliseconds(200));

/// Runs a hook (`sh -c COMMAND`, its output appended to `log_path` after a line naming it) to
/// its end. "" when it exited 0; else why not ("exited with status 2", "timed out after 600 s",
/// "cannot start ..."). Killed (its group) at `timeout_s`.
std::string run_hook(const std::string& command, const std::string& log_path, double timeout_s);

/// The last `lines` lines of a log file (at most `max_bytes` read from its end), made safe to
/// print (one_line per line, control characters escaped); "" when it is missing or empty.
std::string log_tail(const std::string& path, std::size_t lines = 20, std::size_t max_bytes = 8192);

/// A TCP port on 127.0.0.1 free now (bound to port 0, then closed), for `{port}`. Throws
/// std::runtime_error when none can be had.
int free_loopback_port();

}  // namespace tokenbench::collect
