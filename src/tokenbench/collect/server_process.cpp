#include "tokenbench/collect/server_process.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <stdexcept>
#include <thread>
#include <vector>

#include "tokenbench/client/http_get.h"
#include "tokenbench/core/text.h"

namespace tokenbench::collect {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

std::string ended(int status) {
  if (WIFEXITED(status)) return "exited with status " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) {
    return "killed by signal " + std::to_string(WTERMSIG(status)) + " (" +
           std::string(::strsignal(WTERMSIG(status))) + ")";
  }
  return "ended";
}

// One line a log gets before a hook's output, so that a reader sees which command wrote it.
void append_line(const std::string& path, const std::string& line) {
  std::ofstream(path, std::ios::app) << line << '\n';
}

// What a GET answered, for the message of a server that never became ready.
std::string answered(const std::string& url, const client::HttpGetResult& r) {
  if (!r.transport_ok) return "GET " + url + ": " + r.error;
  return "GET " + url + " answered HTTP " + std::to_string(r.status);
}

}  // namespace

ServerProcess::ServerProcess(const std::string& command, const std::string& log_path)
    : child_({"/bin/sh", "-c", command}, log_path) {}

std::string ServerProcess::how_it_ended() const { return ended(child_.status()); }

void ServerProcess::stop(std::chrono::milliseconds grace) { child_.terminate(grace); }

Readiness wait_until_ready(ServerProcess* server, const std::string& base_url, double timeout_s,
                           const std::function<bool()>& stop, std::chrono::milliseconds interval) {
  const auto start = Clock::now();
  Readiness out;
  bool health_passed = false;
  const std::string health = base_url + "/health";
  const std::string models = base_url + "/v1/models";
  for (;;) {
    if (server != nullptr && server->exited()) {
      out.why = "the server " + server->how_it_ended() + " before it was ready";
      break;
    }
    if (stop && stop()) {
      out.why = "stopped while waiting for the server";
      break;
    }
    const double left = timeout_s - seconds_since(start);
    if (left <= 0) {
      out.why = "not ready after " + core::format_seconds(timeout_s) +
                " (--serve-ready-timeout); last: " + out.why;
      break;
    }
    const std::string& url = health_passed ? models : health;
    const auto reply = client::http_get(url, {}, std::min(left, 5.0));
    const bool ok = reply.transport_ok && reply.status >= 200 && reply.status < 300;
    if (!health_passed && (ok || (reply.transport_ok && reply.status == 404))) {
      health_passed = true;  // a 404: no /health there; /v1/models decides
      continue;
    }
    if (health_passed && ok) {
      out.ready = true;
      break;
    }
    out.why = answered(url, reply);
    std::this_thread::sleep_for(interval);
  }
  out.waited_s = seconds_since(start);
  return out;
}

std::string run_hook(const std::string& command, const std::string& log_path, double timeout_s) {
  append_line(log_path, "# tokenbench hook: " + command);
  try {
    ChildProcess child({"/bin/sh", "-c", command}, log_path);
    const auto start = Clock::now();
    while (!child.exited()) {
      if (seconds_since(start) > timeout_s) {
        child.terminate(std::chrono::seconds(5));
        return "timed out after " + core::format_seconds(timeout_s);
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    const int status = child.status();
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return "";
    return ended(status);
  } catch (const std::exception& e) {
    return e.what();
  }
}

std::string log_tail(const std::string& path, std::size_t lines, std::size_t max_bytes) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) return "";
  const auto size = static_cast<std::size_t>(in.tellg());
  const std::size_t from = size > max_bytes ? size - max_bytes : 0;
  in.seekg(static_cast<std::streamoff>(from));
  std::string text(size - from, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  std::vector<std::string_view> all;
  for (std::size_t pos = 0; pos < text.size();) {
    const auto nl = text.find('\n', pos);
    const auto end = nl == std::string::npos ? text.size() : nl;
    all.push_back(std::string_view(text).substr(pos, end - pos));
    pos = end + 1;
  }
  // The first line read may be cut in the middle: it is left out when the file was longer.
  std::size_t first = from > 0 && !all.empty() ? 1 : 0;
  first = std::max(first, all.size() > lines ? all.size() - lines : std::size_t{0});
  std::string out;
  for (std::size_t i = first; i < all.size(); ++i) out += core::one_line(all[i]) + "\n";
  return out;
}

int free_loopback_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) throw std::runtime_error(std::string("no free port: ") + std::strerror(errno));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  socklen_t len = sizeof addr;
  const bool ok = ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0 &&
                  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0;
  const int err = errno;
  ::close(fd);
  if (!ok) throw std::runtime_error(std::string("no free port: ") + std::strerror(err));
  return ntohs(addr.sin_port);
}

}  // namespace tokenbench::collect
