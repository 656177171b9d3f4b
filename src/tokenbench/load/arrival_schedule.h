#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

#include "tokenbench/core/clock.h"
#include "tokenbench/core/run_config.h"

namespace tokenbench::load {

/// When each request of a phase is due, as offsets from the phase's start. Pure data, computed
/// before the run from a seed (LoadGen's precomputed query offsets). Immutable once built.
class ArrivalSchedule {
 public:
  static constexpr std::size_t kUnbounded = std::numeric_limits<std::size_t>::max();

  /// Every request due at once: closed-loop (concurrency) mode, or an infinite request rate.
  /// `count` may be kUnbounded for a duration-limited run.
  static ArrivalSchedule immediate(std::size_t count);

  /// Open-loop arrivals at `rate` requests/s. kGamma draws inter-arrival gaps from a gamma
  /// distribution with shape `burstiness` and mean 1/rate (burstiness 1 is a Poisson process), as
  /// vLLM does; kConstant spaces them exactly 1/rate apart. The first request is due at 0.
  /// Generates `count` arrivals, or when count is kUnbounded, every arrival before `duration_s`.
  static ArrivalSchedule open_loop(std::size_t count, double duration_s, double rate,
                                   core::ArrivalKind kind, double burstiness, std::uint64_t seed);

  std::size_t size() const { return size_; }
  /// The offset of request `i` (i < size()) in nanoseconds from the phase start.
  core::Nanos offset(std::size_t i) const { return offsets_.empty() ? 0 : offsets_[i]; }

 private:
  std::size_t size_ = 0;
  std::vector<core::Nanos> offsets_;  // empty: every offset is 0
};

}  // namespace tokenbench::load
