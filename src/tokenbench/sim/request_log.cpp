#include "tokenbench/sim/request_log.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace tokenbench::sim {

RequestLog::RequestLog(const std::string& path)
    : file_(std::fopen(path.c_str(), "w")), opened_(core::Clock::now()) {
  if (file_ == nullptr) {
    throw std::runtime_error(fmt::format("--request-log '{}': {}", path, std::strerror(errno)));
  }
}

RequestLog::~RequestLog() {
  if (file_ != nullptr) std::fclose(file_);
}

void RequestLog::write(const CompletionRequest& request, std::uint64_t arrival,
                       core::Clock::time_point received) {
  const double at_ms = std::chrono::duration<double, std::milli>(received - opened_).count();
  const std::string line = fmt::format(
      "{{\"arrival\":{},\"at_ms\":{:.3f},\"api\":\"{}\",\"stream\":{},\"prompt_tokens\":{},"
      "\"max_tokens\":{},\"min_tokens\":{},\"ignore_eos\":{},\"lora\":{}}}\n",
      arrival, at_ms, to_string(request.api), request.stream, request.prompt_tokens,
      request.max_tokens, request.min_tokens, request.ignore_eos, request.lora);
  const std::lock_guard lock(mutex_);
  std::fwrite(line.data(), 1, line.size(), file_);
  std::fflush(file_);  // whole lines, readable while the server runs
}

}  // namespace tokenbench::sim
