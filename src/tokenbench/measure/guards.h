#pragma once

#include <atomic>
#include <cstddef>
#include <deque>
#include <mutex>
#include <string>

#include "tokenbench/core/request.h"

namespace tokenbench::measure {

/// with the same client error (HTTP 4xx other than 429: a wrong endpoint or model, a prompt over
/// the context length), the run cannot succeed and should stop. Thread-safe (the engine's
/// workers call observe); after its decision it costs one relaxed load per request.
class FailFast {
 public:
  explicit FailFast(int limit) : limit_(limit) {}
  /// Counts a finished request; true exactly once, when the run should stop.
  bool observe(const core::RequestRecord& record);
  /// Why it stopped the run, or "".
  std::string verdict() const;

 private:
  const int limit_;
  std::atomic<bool> decided_{false};
  mutable std::mutex mutex_;
  int seen_ = 0;
  int status_ = 0;
  std::string message_;
  std::string verdict_;
};

/// --max-error-rate: stops a run that is only measuring errors. Over a sliding window of the last
/// kWindow finished requests (retried attempts and canceled requests aside), once kMinimum have
/// finished, more than `max_rate` of them failing stops the run. Thread-safe.
class ErrorRateGuard {
 public:
  static constexpr std::size_t kWindow = 50;
  static constexpr std::size_t kMinimum = 20;
  explicit ErrorRateGuard(double max_rate) : max_rate_(max_rate) {}
  /// Counts a finished request; true exactly once, when the run should stop.
  bool observe(const core::RequestRecord& record);
  /// Why it stopped the run, or "".
  std::string verdict() const;

 private:
  const double max_rate_;
  mutable std::mutex mutex_;
  std::deque<core::ErrorClass> window_;
  std::size_t failed_ = 0;
  bool decided_ = false;
  std::string verdict_;
};

}  // namespace tokenbench::measure
