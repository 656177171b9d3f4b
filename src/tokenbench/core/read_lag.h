#pragma once

// The client's read lag (docs/METRICS.md, "Read lag"): for every read of the native transport
// whose bytes the kernel stamped, the time the worker got to the read minus the kernel's receive
// time of those bytes. A worker accounts each read in a ReadLagHistogram, without a syscall: the
// monotonic time its loop already took, and one bucket's count.

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "tokenbench/core/clock.h"

namespace tokenbench::core {

/// A log-linear histogram of lags in nanoseconds: exact below 16 ns, then 16 buckets per power
/// of two (each at most 1/16 of its lower edge wide) up to 2^40 ns (about 18 minutes; longer
/// lags count in the last bucket). A quantile is its bucket's upper edge, so it is at most 6.25 %
/// above the true value and never below it; the maximum is exact. 4.9 KB; not thread-safe.
class ReadLagHistogram {
 public:
  static constexpr int kSubBits = 4;
  static constexpr std::size_t kSub = std::size_t{1} << kSubBits;
  static constexpr int kMaxExponent = 40;
  static constexpr std::size_t kBuckets = kSub + (kMaxExponent - kSubBits + 1) * kSub;

  /// Counts one lag (a negative one, a clock step, counts as 0).
  void add(Nanos lag) {
    const Nanos v = lag < 0 ? 0 : lag;
    ++buckets_[index_of(v)];
    ++count_;
    if (v > max_) max_ = v;
  }
  /// Adds every count of `other` (another worker's, another window's).
  void merge(const ReadLagHistogram& other);
  void clear() { *this = ReadLagHistogram{}; }

  std::uint64_t count() const { return count_; }
  Nanos max() const { return max_; }
  /// The nearest-rank quantile `q` (0..1]: the upper edge of the bucket holding the rank,
  /// at most the maximum; 0 when empty.
  Nanos quantile(double q) const;
  /// Reads of more than `threshold` ns, as far as the buckets tell (a bucket straddling the
  /// threshold counts as above it).
  std::uint64_t count_above(Nanos threshold) const;

  /// The bucket of `v` (>= 0), and the lags a bucket holds: [lower_edge, upper_edge].
  static std::size_t index_of(Nanos v);
  static Nanos lower_edge(std::size_t index);
  static Nanos upper_edge(std::size_t index);

  /// The counts, for writing; set_bucket and set_max rebuild a histogram read back.
  const std::array<std::uint64_t, kBuckets>& buckets() const { return buckets_; }
  void set_bucket(std::size_t index, std::uint64_t n);
  void set_max(Nanos max) { max_ = max; }

 private:
  std::array<std::uint64_t, kBuckets> buckets_{};
  std::uint64_t count_ = 0;
  Nanos max_ = 0;
};

/// One window of a worker's reads (Worker::kCpuSamplePeriod long): its end on the run's clock,
/// its reads and their lag's p50, p99 and maximum.
struct ReadLagWindow {
  Nanos end = 0;
  std::uint64_t reads = 0;
  Nanos p50 = 0;
  Nanos p99 = 0;
  Nanos max = 0;
};

/// One worker's read lag over the measure phases: every read, and the windows in time order.
struct ReadLagLog {
  ReadLagHistogram total;
  std::vector<ReadLagWindow> windows;
};

/// The window `h` makes at `end` (its p50, p99 and maximum).
ReadLagWindow window_of(const ReadLagHistogram& h, Nanos end);

}  // namespace tokenbench::core
