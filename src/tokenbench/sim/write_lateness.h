#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "tokenbench/core/clock.h"

namespace tokenbench::sim {

/// How late the simulator writes its tokens (a debug instrument, SimConfig::measure_lateness):
/// for every streamed token of a fixed-delay reply, the time its write was issued minus the time
/// it was due, in a histogram per io loop. A token written before it was due counts as early
/// (never expected: the timers only fire at or after a deadline).
///
/// Each loop records only into its own slot, from its own thread (single writer, relaxed atomics,
/// no locked instructions); render() may run on any thread and sums the loops.
class WriteLateness {
 public:
  /// Upper bounds of the buckets in seconds (1, 2, 5 per decade, 1 µs to 1 s), without +Inf.
  static constexpr std::array<double, 19> kBounds{1e-6, 2e-6, 5e-6, 1e-5, 2e-5, 5e-5, 1e-4,
                                                  2e-4, 5e-4, 1e-3, 2e-3, 5e-3, 1e-2, 2e-2,
                                                  5e-2, 0.1,  0.2,  0.5,  1.0};

  explicit WriteLateness(std::size_t loops);

  /// Loop `loop` writes, at `written`, a token due at `due`. Only that loop's thread may call.
  void record(std::size_t loop, core::Clock::time_point due, core::Clock::time_point written);

  /// Loop `loop` writes a stream's bytes (one write call, however many tokens it carries).
  void count_write(std::size_t loop);

  /// Appends the Prometheus histogram tokenbench_sim:token_lateness_seconds and the counters
  /// tokenbench_sim:tokens_early_total and tokenbench_sim:stream_writes_total, summed over the
  /// loops. Any thread.
  void render(std::string& out) const;

 private:
  struct alignas(64) Slot {
    std::array<std::atomic<std::uint64_t>, kBounds.size() + 1> counts{};
    std::atomic<std::uint64_t> early{0};
    std::atomic<std::uint64_t> writes{0};
    std::atomic<std::int64_t> sum_ns{0};
  };
  std::vector<std::unique_ptr<Slot>> slots_;
};

}  // namespace tokenbench::sim
