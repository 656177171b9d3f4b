#include "tokenbench/sim/write_lateness.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <iterator>

namespace tokenbench::sim {
namespace {

// The single writer of a slot adds without a locked instruction.
template <typename T>
void bump(std::atomic<T>& a, T by) {
  a.store(a.load(std::memory_order_relaxed) + by, std::memory_order_relaxed);
}

}  // namespace

WriteLateness::WriteLateness(std::size_t loops) {
  for (std::size_t i = 0; i < std::max<std::size_t>(1, loops); ++i) {
    slots_.push_back(std::make_unique<Slot>());
  }
}

void WriteLateness::record(std::size_t loop, core::Clock::time_point due,
                           core::Clock::time_point written) {
  Slot& s = *slots_[loop % slots_.size()];
  const auto late = written - due;
  if (late.count() < 0) return bump<std::uint64_t>(s.early, 1);
  const double seconds = std::chrono::duration<double>(late).count();
  const auto it = std::lower_bound(kBounds.begin(), kBounds.end(), seconds);
  bump<std::uint64_t>(s.counts[static_cast<std::size_t>(it - kBounds.begin())], 1);
  bump<std::int64_t>(s.sum_ns, std::chrono::duration_cast<std::chrono::nanoseconds>(late).count());
}

void WriteLateness::count_write(std::size_t loop) {
  bump<std::uint64_t>(slots_[loop % slots_.size()]->writes, 1);
}

void WriteLateness::render(std::string& out) const {
  std::array<std::uint64_t, kBounds.size() + 1> counts{};
  std::uint64_t early = 0;
  std::uint64_t writes = 0;
  std::int64_t sum_ns = 0;
  for (const auto& s : slots_) {
    for (std::size_t i = 0; i < counts.size(); ++i) {
      counts[i] += s->counts[i].load(std::memory_order_relaxed);
    }
    early += s->early.load(std::memory_order_relaxed);
    writes += s->writes.load(std::memory_order_relaxed);
    sum_ns += s->sum_ns.load(std::memory_order_relaxed);
  }
  constexpr std::string_view kName = "tokenbench_sim:token_lateness_seconds";
  auto o = std::back_inserter(out);
  fmt::format_to(o,
                 "# HELP {0} Streamed token written minus its due time (--debug-lateness).\n"
                 "# TYPE {0} histogram\n",
                 kName);
  std::uint64_t cumulative = 0;
  for (std::size_t i = 0; i < kBounds.size(); ++i) {
    cumulative += counts[i];
    fmt::format_to(o, "{}_bucket{{le=\"{}\"}} {}\n", kName, kBounds[i], cumulative);
  }
  cumulative += counts.back();
  fmt::format_to(o, "{0}_bucket{{le=\"+Inf\"}} {1}\n{0}_count {1}\n{0}_sum {2}\n", kName,
                 cumulative, static_cast<double>(sum_ns) / 1e9);
  fmt::format_to(o,
                 "# HELP tokenbench_sim:tokens_early_total Streamed tokens written before they "
                 "were due.\n# TYPE tokenbench_sim:tokens_early_total counter\n"
                 "tokenbench_sim:tokens_early_total {}\n"
                 "# HELP tokenbench_sim:stream_writes_total Writes of streamed bytes.\n"
                 "# TYPE tokenbench_sim:stream_writes_total counter\n"
                 "tokenbench_sim:stream_writes_total {}\n",
                 early, writes);
}

}  // namespace tokenbench::sim
