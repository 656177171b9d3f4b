#pragma once

#include <cstdint>

#include "tokenbench/core/clock.h"
#include "tokenbench/sim/sim_rng.h"

namespace tokenbench::sim {

/// The fixed-delay timing model of the first simulator version (all values in milliseconds).
struct TimingConfig {
  double ttft_ms = 50.0;   ///< from request receipt to the first token
  double itl_ms = 10.0;    ///< between consecutive tokens
  double jitter_ms = 0.0;  ///< each delay gets uniform noise in [-j, +j], clamped at 0
};

/// When each output token of one request is emitted. This is the one place that decides the
/// per-request token timing: a later continuous-batching engine model replaces it, and the HTTP
/// side only ever asks "when is the next token due?".
///
/// Deterministic for a (seed, arrival) pair. Owned by the request's stream; not thread-safe.
class TokenTimeline {
 public:
  TokenTimeline(const TimingConfig& timing, std::uint64_t seed, std::uint64_t arrival,
                core::Clock::time_point start);

  /// The emit time of the next token (token 0 first); each call advances by one token.
  /// Times never decrease.
  core::Clock::time_point next();

  /// Delays every token not yet returned by `delay` (used by the stall fault).
  void delay(core::Clock::duration delay) { last_ += delay; }

 private:
  core::Clock::duration draw(double base_ms);

  TimingConfig timing_;
  SimRng rng_;
  core::Clock::time_point last_;
  bool started_ = false;
};

}  // namespace tokenbench::sim
