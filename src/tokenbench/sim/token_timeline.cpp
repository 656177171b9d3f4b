#include "tokenbench/sim/token_timeline.h"

#include <algorithm>
#include <chrono>

namespace tokenbench::sim {
namespace {
constexpr std::uint64_t kJitterStream = 0x717e;
}  // namespace

TokenTimeline::TokenTimeline(const TimingConfig& timing, std::uint64_t seed, std::uint64_t arrival,
                             core::Clock::time_point start)
    : timing_(timing), rng_(mix_keys(seed ^ kJitterStream, arrival)), last_(start) {}

core::Clock::duration TokenTimeline::draw(double base_ms) {
  double ms = base_ms;
  if (timing_.jitter_ms > 0) ms += (rng_.unit() * 2.0 - 1.0) * timing_.jitter_ms;
  ms = std::max(0.0, ms);
  return std::chrono::duration_cast<core::Clock::duration>(
      std::chrono::duration<double, std::milli>(ms));
}

core::Clock::time_point TokenTimeline::next() {
  last_ += draw(started_ ? timing_.itl_ms : timing_.ttft_ms);
  started_ = true;
  return last_;
}

}  // namespace tokenbench::sim
