#pragma once

// --steady-state auto: the measure window of a run's steady state, found from its records (the
// requests in flight and the output rate over time), without keeping them.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tokenbench/core/request.h"

namespace tokenbench::metrics {

/// The window found, on the run's clock.
struct SteadyWindow {
  core::Nanos start = 0;
  core::Nanos end = 0;
  double target_in_flight = 0;  ///< what "full" meant (the concurrency limit, or the median)
};

/// Builds a run's time series a record at a time (measure phase, not retried): the requests in
/// flight (+1 at sent, -1 at done) and the output tokens (at their chunks' stamps, or at the end
/// of a request without chunks), in buckets of 100 ms that double in width whenever there would
/// be more than kMaxBuckets, so that its memory is bounded whatever the run's length.
///
/// finish() reads the window by this rule (docs/EXPERIMENTS.md, "Steady state"):
/// - the target is the concurrency limit when there is one (`max_concurrency` > 0), else the
///   median of the in-flight count over the middle half of the run;
/// - the window starts at the first bucket whose in-flight count reaches 90% of the target and
///   from which the output rate has stabilised: the first such bucket whose next three buckets'
///   mean output is within 10% of the median output of the buckets that reach the target;
/// - it ends at the last bucket whose in-flight count reaches 90% of the target (after it the
///   queue drains);
/// - nullopt when that leaves fewer than 5 buckets, or nothing reached the target.
///
/// Not thread-safe: one thread feeds it.
class SteadyStateBuilder {
 public:
  static constexpr std::size_t kMaxBuckets = 4096;
  static constexpr core::Nanos kFirstWidth = 100'000'000;  // 100 ms

  explicit SteadyStateBuilder(int max_concurrency) : max_concurrency_(max_concurrency) {}
  void add(const core::RequestRecord& record);
  std::optional<SteadyWindow> finish() const;
  /// Why finish() found none, for the summary ("" when it found one).
  std::string why_none() const;

 private:
  std::size_t bucket_of(core::Nanos t);
  void widen();
  int max_concurrency_;
  core::Nanos width_ = kFirstWidth;
  core::Nanos origin_ = -1;  // the first stamp seen, rounded down
  std::vector<std::int64_t> in_flight_delta_;
  std::vector<double> output_;
};

}  // namespace tokenbench::metrics
