#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

#include "tokenbench/core/clock.h"
#include "tokenbench/core/run_config.h"

namespace tokenbench::load {

/// A ramp of the arrival rate from start_rps to the schedule's rate over duration_s seconds.
struct Ramp {
  core::RampKind kind = core::RampKind::kNone;
  double start_rps = 1.0;
  double duration_s = 0.0;
};

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
  /// Generates `count` arrivals (kUnbounded: no bound), and with `duration_s` > 0 only those
  /// before it: a run sends none after its duration.
  /// Offsets never decrease.
  ///
  /// `ramp` (kind other than kNone) ramps the instantaneous rate λ(t) from r0 = ramp.start_rps at
  /// t = 0 up to R = `rate` at t = D = ramp.duration_s, after which it stays at R:
  ///   kLinear:      λ(t) = r0 + (R − r0)·t/D
  ///   kExponential: λ(t) = r0·(R/r0)^(t/D)
  /// Arrivals follow the time-rescaling theorem: the usual gaps (gamma with shape `burstiness`, or
  /// constant) are drawn at rate 1 in operational time u, with cumulative sums S_0 = 0, S_1, ...
  /// (mean gap 1), and arrival k is due at t_k = Λ⁻¹(S_k), where Λ(t) = ∫₀ᵗ λ is the cumulative
  /// intensity:
  ///   kLinear:      Λ(t) = r0·t + (R − r0)·t²/(2D)                  for t ≤ D
  ///   kExponential: Λ(t) = r0·(e^{kt} − 1)/k, k = ln(R/r0)/D       for t ≤ D (r0·t when R = r0)
  ///   both:         Λ(t) = Λ(D) + R·(t − D)                         for t > D
  /// So kConstant puts arrival k exactly where Λ reaches k, and kGamma with burstiness 1 is an
  /// inhomogeneous Poisson process of intensity λ. The first request is still due at 0, and a
  /// duration-limited schedule still holds every arrival before `duration_s`. kNone gives exactly
  /// the schedule (the same random draws and offsets) of a call without `ramp`.
  ///
  /// Throws std::invalid_argument on a rate that is not finite and > 0, a burstiness not > 0, a
  /// kUnbounded count without a duration, and, for a ramp: start_rps not finite and > 0
  /// ("--ramp-up-start-rps must be > 0"), start_rps > rate ("--ramp-up-start-rps must not exceed
  /// --request-rate"), or duration_s not finite and > 0 ("--ramp-up needs --ramp-up-duration S >
  /// 0"). The ramp's fields are not looked at when its kind is kNone.
  static ArrivalSchedule open_loop(std::size_t count, double duration_s, double rate,
                                   core::ArrivalKind kind, double burstiness, std::uint64_t seed,
                                   const Ramp& ramp = {});

  /// A trace replayed on its own clock (--replay): request i is due at (times_s[i] - times_s[0])
  /// / speed seconds, for the first `count` requests of the trace (all of it when count is
  /// kUnbounded), cut where that reaches `duration_s` (> 0; 0 for no cut). Throws
  /// std::invalid_argument on a speed not finite and > 0, or times that go back.
  static ArrivalSchedule replay(const std::vector<double>& times_s, std::size_t count,
                                double duration_s, double speed);

  std::size_t size() const { return size_; }
  /// The offset of request `i` (i < size()) in nanoseconds from the phase start.
  core::Nanos offset(std::size_t i) const { return offsets_.empty() ? 0 : offsets_[i]; }

 private:
  std::size_t size_ = 0;
  std::vector<core::Nanos> offsets_;  // empty: every offset is 0
};

}  // namespace tokenbench::load
