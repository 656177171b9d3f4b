#pragma once

#include <sys/types.h>

#include <chrono>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tokenbench/core/request.h"

namespace tokenbench::e2e {

/// What a finished child process left behind.
struct ProcessResult {
  int exit_code = -1;  ///< -1 when it was killed by a signal or timed out
  bool timed_out = false;
  std::string out;  ///< everything it wrote to stdout
  std::string err;  ///< everything it wrote to stderr
};

/// Runs `args` (args[0] is the program) to completion, killing it after `timeout`. `env` entries
/// are set in the child on top of the parent's environment ("" value: unset).
ProcessResult run_process(const std::vector<std::string>& args,
                          std::chrono::seconds timeout = std::chrono::seconds(60),
                          const std::map<std::string, std::string>& env = {});

/// A child process started in the background; killed (SIGTERM, then SIGKILL) on destruction.
class BackgroundProcess {
 public:
  explicit BackgroundProcess(const std::vector<std::string>& args,
                             const std::map<std::string, std::string>& env = {});
  ~BackgroundProcess();
  BackgroundProcess(const BackgroundProcess&) = delete;
  BackgroundProcess& operator=(const BackgroundProcess&) = delete;

  /// Waits up to `timeout` for a stdout line containing `needle`; returns the line ("" on timeout).
  std::string wait_for_line(const std::string& needle, std::chrono::milliseconds timeout);
  /// Sends `sig` and waits for the exit; returns the exit code (-1 for death by signal).
  int stop(int sig);
  pid_t pid() const { return pid_; }

 private:
  pid_t pid_ = -1;
  int out_fd_ = -1;
  std::string buffered_;
};

/// serve-sim started on a free loopback port with `extra_args`; its base URL once listening.
class SimProcess {
 public:
  explicit SimProcess(const std::vector<std::string>& extra_args = {});
  const std::string& url() const { return url_; }

 private:
  BackgroundProcess process_;
  std::string url_;
};

/// serve-sim with --request-log: what the server was asked, request by request (API, stream,
/// prompt tokens, max_tokens, ignore_eos, LoRA adapter), for checking a client's workload from the
/// server's side. Short fixed delays unless `args` say otherwise.
class LoggedSim {
 public:
  explicit LoggedSim(const std::string& name,
                     std::vector<std::string> args = {"--ttft-ms", "1", "--itl-ms", "0.05"});
  const std::string& url() const { return sim_.url(); }
  std::string port() const { return url().substr(url().rfind(':') + 1); }
  /// The requests logged so far, warmup included, in arrival order.
  std::vector<nlohmann::json> saw() const;

 private:
  std::string log_;
  SimProcess sim_;
};

/// The arguments of `tokenbench run --base-url URL --output-dir DIR --quiet` followed by `extra`.
std::vector<std::string> run_args(const std::string& url, const std::string& dir,
                                  std::vector<std::string> extra);

/// `a` followed by `b` (command lines built from shared pieces).
std::vector<std::string> with(std::vector<std::string> a, const std::vector<std::string>& b);

/// A JSON file, parsed (throws when it is missing or malformed).
nlohmann::json read_json(const std::string& path);

/// A JSON Lines file, one parsed object per non-empty line.
std::vector<nlohmann::json> read_jsonl(const std::string& path);

/// A requests.jsonl file's records as its reader sees them: the fields a line leaves out when
/// they hold their usual value (streamed true, error "none", error_message "") filled in.
std::vector<nlohmann::json> read_records(const std::string& path);

/// The content-chunk stamps of one requests.jsonl record, read as `tokenbench report` reads them
/// (microsecond stamps; records/chunk_codec.h).
std::vector<core::ChunkStamp> chunks_of(const nlohmann::json& record);

/// A stamp of requests.jsonl in ns, rounded down to the microsecond as chunk stamps are.
std::int64_t floor_us(const nlohmann::json& stamp_ns);

/// A fresh empty directory under the test temp dir.
std::string make_temp_dir(const std::string& name);

/// Reads a whole file ("" when missing).
std::string slurp(const std::string& path);

/// How many lines `text` holds (its '\n's): a one-line error is 1.
int count_lines(const std::string& text);

}  // namespace tokenbench::e2e
