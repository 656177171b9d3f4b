#pragma once

#include <chrono>
#include <cmath>
#include <cstdint>
#include <string>

namespace tokenbench::core {

/// The one clock of tokenbench. Every stamp in a run comes from it.
using Clock = std::chrono::steady_clock;

/// Nanoseconds since a run's origin. -1 marks "never happened".
using Nanos = std::int64_t;
inline constexpr Nanos kNever = -1;

/// A run's time origin: converts Clock readings into Nanos since the origin.
/// Immutable after construction; safe to share between threads.
class RunClock {
 public:
  RunClock() : origin_(Clock::now()) {}
  explicit RunClock(Clock::time_point origin) : origin_(origin) {}

  /// Nanoseconds elapsed since the origin, read now.
  Nanos now() const { return since_origin(Clock::now()); }
  Nanos since_origin(Clock::time_point t) const {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(t - origin_).count();
  }
  Clock::time_point to_time_point(Nanos ns) const { return origin_ + std::chrono::nanoseconds(ns); }
  Clock::time_point origin() const { return origin_; }
  /// The origin as nanoseconds since the steady clock's epoch (what ranks of a distributed run
  /// exchange: each rank's origin on its own steady clock).
  std::int64_t origin_ns() const {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(origin_.time_since_epoch()).count();
  }

 private:
  Clock::time_point origin_;
};

/// The largest span a schedule holds: 2^62 ns, about 146 years. A stamp plus such a span never
/// overflows.
inline constexpr Nanos kSaturatedNanos = Nanos{1} << 62;

/// `seconds` as Nanos (rounded), saturating instead of overflowing: NaN and anything not positive
/// give 0, anything from kSaturatedNanos up (infinity included) gives kSaturatedNanos.
inline Nanos saturated_nanos(double seconds) {
  const double ns = seconds * 1e9;
  if (!(ns > 0)) return 0;
  if (ns >= static_cast<double>(kSaturatedNanos)) return kSaturatedNanos;
  return static_cast<Nanos>(std::llround(ns));
}

inline double to_ms(Nanos ns) { return static_cast<double>(ns) / 1e6; }
inline double to_seconds(Nanos ns) { return static_cast<double>(ns) / 1e9; }

/// The CPU time the calling thread has used (CLOCK_THREAD_CPUTIME_ID), in nanoseconds.
Nanos thread_cpu_now();

/// The time the calling thread has waited on a run queue, runnable but not running (the
/// scheduler's run_delay, /proc/thread-self/schedstat), in nanoseconds; -1 where the kernel
/// does not say. Three syscalls: read it every so often, not per event.
Nanos thread_run_delay_now();

/// One reading of a thread's CPU clock at run-clock time `t`, and of its run-queue wait
/// (`run_delay`, -1 when unknown).
struct CpuSample {
  Nanos t = kNever;
  Nanos cpu = 0;
  Nanos run_delay = -1;
};

/// The current wall-clock time as an ISO 8601 UTC string, used only as a label.
std::string wall_clock_iso8601();

/// "2026-11-29T10:11:12Z" as "20261129-101112" (vLLM's result date; result folder names); any
/// other text is returned unchanged.
std::string compact_timestamp(const std::string& iso8601);

}  // namespace tokenbench::core
