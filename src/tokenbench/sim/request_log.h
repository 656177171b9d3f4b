#pragma once

// serve-sim --request-log FILE: one JSON line per generation request received, saying what the
// server was asked (API, streaming, prompt tokens as it counts them, max_tokens, min_tokens,
// ignore_eos, LoRA adapter) and when, so that a test (or a user) can check the workload a client
// sent from the server's side. Lines are written whole under a lock, from any io thread.

#include <cstdio>
#include <mutex>
#include <string>

#include "tokenbench/core/clock.h"
#include "tokenbench/sim/openai_request.h"

namespace tokenbench::sim {

class RequestLog {
 public:
  /// Opens (truncates) `path`; throws std::runtime_error naming it when it cannot be written.
  explicit RequestLog(const std::string& path);
  RequestLog(const RequestLog&) = delete;
  RequestLog& operator=(const RequestLog&) = delete;
  ~RequestLog();

  /// One line for `request`, received at `received` (its arrival index `arrival`).
  void write(const CompletionRequest& request, std::uint64_t arrival,
             core::Clock::time_point received);

 private:
  std::mutex mutex_;
  std::FILE* file_ = nullptr;
  core::Clock::time_point opened_;
};

}  // namespace tokenbench::sim
