#pragma once

#include <atomic>
#include <cstddef>
#include <deque>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

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

/// --stop-on-saturation: stops an open-loop run (a finite --request-rate) whose server cannot keep
/// up. Finished requests (ok, measured, not retried) are put in windows of kWindow of the time they
/// ended; each window with at least kMinRequests gives the median wait for a first token,
/// first_token - intended arrival (scheduled when none): the queue before sending (behind
/// --max-concurrency) and the server's alike. Over the last
/// kWindows such windows, the run is saturated when the least-squares slope of those medians
/// against time is positive with a t-statistic above kMinT (steadily rising, not noise), so is
/// the slope over the last half of them (still rising: not a warm-up that levelled off), and the
/// last median is at least kGrowth times the first (the wait grew, not wobbled). Thread-safe.
class SaturationGuard {
 public:
  static constexpr core::Nanos kWindow = 1'000'000'000;  // 1 s
  static constexpr std::size_t kWindows = 8;
  static constexpr std::size_t kMinRequests = 3;
  static constexpr double kMinT = 3.0;
  static constexpr double kGrowth = 2.0;
  explicit SaturationGuard(bool enabled) : enabled_(enabled) {}
  /// Counts a finished request; true exactly once, when the run should stop.
  bool observe(const core::RequestRecord& record);
  /// Why it stopped the run, or "".
  std::string verdict() const;

  /// The rule on a series of window medians (ms), oldest first: the verdict's text when the
  /// last kWindows of them are saturated, else "". Pure; for tests.
  static std::string judge(const std::vector<std::pair<double, double>>& medians_by_time);

 private:
  void close_window();
  const bool enabled_;
  mutable std::mutex mutex_;
  std::int64_t window_ = -1;                        // index of the open window
  std::vector<double> waits_;                       // its waits (ms)
  std::vector<std::pair<double, double>> medians_;  // (window start s, median wait ms)
  bool decided_ = false;
  std::string verdict_;
};

}  // namespace tokenbench::measure
