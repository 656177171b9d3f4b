#include "process.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "tokenbench/records/records_io.h"

namespace tokenbench::e2e {
namespace {

using Clock = std::chrono::steady_clock;

pid_t spawn(const std::vector<std::string>& args, const std::map<std::string, std::string>& env,
            int out_fd, int err_fd) {
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    dup2(out_fd, STDOUT_FILENO);
    dup2(err_fd, STDERR_FILENO);
    const int devnull = open("/dev/null", O_RDONLY);
    dup2(devnull, STDIN_FILENO);
    for (const auto& [k, v] : env) {
      if (v.empty()) {
        unsetenv(k.c_str());
      } else {
        setenv(k.c_str(), v.c_str(), 1);
      }
    }
    std::vector<char*> argv;
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execv(argv[0], argv.data());
    _exit(127);
  }
  return pid;
}

int decode_status(int status) { return WIFEXITED(status) ? WEXITSTATUS(status) : -1; }

}  // namespace

ProcessResult run_process(const std::vector<std::string>& args, std::chrono::seconds timeout,
                          const std::map<std::string, std::string>& env) {
  const std::string dir = make_temp_dir("proc");
  const std::string out_path = dir + "/out", err_path = dir + "/err";
  const int out_fd = open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  const int err_fd = open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  const pid_t pid = spawn(args, env, out_fd, err_fd);
  close(out_fd);
  close(err_fd);
  ProcessResult r;
  const auto deadline = Clock::now() + timeout;
  int status = 0;
  while (true) {
    const pid_t w = waitpid(pid, &status, WNOHANG);
    if (w == pid) {
      r.exit_code = decode_status(status);
      break;
    }
    if (Clock::now() > deadline) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      r.timed_out = true;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  r.out = slurp(out_path);
  r.err = slurp(err_path);
  return r;
}

BackgroundProcess::BackgroundProcess(const std::vector<std::string>& args,
                                     const std::map<std::string, std::string>& env) {
  int fds[2];
  if (pipe(fds) != 0) throw std::runtime_error("pipe failed");
  const int devnull = open("/dev/null", O_WRONLY);
  pid_ = spawn(args, env, fds[1], devnull);
  close(fds[1]);
  close(devnull);
  out_fd_ = fds[0];
}

BackgroundProcess::~BackgroundProcess() {
  if (pid_ > 0) stop(SIGTERM);
  if (out_fd_ >= 0) close(out_fd_);
}

std::string BackgroundProcess::wait_for_line(const std::string& needle,
                                             std::chrono::milliseconds timeout) {
  const auto deadline = Clock::now() + timeout;
  while (Clock::now() < deadline) {
    std::size_t nl;
    while ((nl = buffered_.find('\n')) != std::string::npos) {
      std::string line = buffered_.substr(0, nl);
      buffered_.erase(0, nl + 1);
      if (line.find(needle) != std::string::npos) return line;
    }
    pollfd p{out_fd_, POLLIN, 0};
    if (poll(&p, 1, 50) > 0) {
      char buf[4096];
      const ssize_t n = read(out_fd_, buf, sizeof buf);
      if (n <= 0) return "";
      buffered_.append(buf, static_cast<std::size_t>(n));
    }
  }
  return "";
}

int BackgroundProcess::stop(int sig) {
  if (pid_ <= 0) return -1;
  kill(pid_, sig);
  int status = 0;
  const auto deadline = Clock::now() + std::chrono::seconds(5);
  while (waitpid(pid_, &status, WNOHANG) == 0) {
    if (Clock::now() > deadline) {
      kill(pid_, SIGKILL);
      waitpid(pid_, &status, 0);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  pid_ = -1;
  return decode_status(status);
}

SimProcess::SimProcess(const std::vector<std::string>& extra_args)
    : process_([&] {
        std::vector<std::string> args{TOKENBENCH_BINARY, "serve-sim", "--port", "0"};
        args.insert(args.end(), extra_args.begin(), extra_args.end());
        return args;
      }()) {
  const std::string line = process_.wait_for_line("listening on", std::chrono::seconds(10));
  const auto pos = line.find("http://");
  if (pos == std::string::npos) throw std::runtime_error("serve-sim did not start");
  url_ = line.substr(pos);
}

std::string make_temp_dir(const std::string& name) {
  static int counter = 0;
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  std::string test =
      info != nullptr ? std::string(info->test_suite_name()) + "." + info->name() : "none";
  const std::string dir = ::testing::TempDir() + "tokenbench-e2e-" + std::to_string(getpid()) +
                          "-" + test + "-" + name + "-" + std::to_string(counter++);
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

int count_lines(const std::string& text) {
  return static_cast<int>(std::count(text.begin(), text.end(), '\n'));
}

std::vector<std::string> run_args(const std::string& url, const std::string& dir,
                                  std::vector<std::string> extra) {
  std::vector<std::string> args{TOKENBENCH_BINARY, "run", "--base-url", url,
                                "--output-dir",    dir,   "--quiet"};
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

std::vector<std::string> with(std::vector<std::string> a, const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

nlohmann::json read_json(const std::string& path) { return nlohmann::json::parse(slurp(path)); }

std::vector<core::ChunkStamp> chunks_of(const nlohmann::json& record) {
  return records::record_from_json(record).chunks;
}

std::int64_t floor_us(const nlohmann::json& stamp_ns) {
  return stamp_ns.get<std::int64_t>() / 1000 * 1000;
}

std::vector<nlohmann::json> read_jsonl(const std::string& path) {
  std::vector<nlohmann::json> out;
  std::istringstream in(slurp(path));
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty()) out.push_back(nlohmann::json::parse(line));
  }
  return out;
}

std::vector<nlohmann::json> read_records(const std::string& path) {
  std::vector<nlohmann::json> records = read_jsonl(path);
  for (auto& r : records) {
    if (!r.contains("streamed")) r["streamed"] = true;
    if (!r.contains("error")) r["error"] = "none";
    if (!r.contains("error_message")) r["error_message"] = "";
  }
  return records;
}

namespace {

std::vector<std::string> with_request_log(std::vector<std::string> args, const std::string& log) {
  args.insert(args.end(), {"--request-log", log});
  return args;
}

}  // namespace

LoggedSim::LoggedSim(const std::string& name, std::vector<std::string> args)
    : log_(make_temp_dir(name) + "/requests.log"), sim_(with_request_log(std::move(args), log_)) {}

std::vector<nlohmann::json> LoggedSim::saw() const { return read_jsonl(log_); }

}  // namespace tokenbench::e2e
