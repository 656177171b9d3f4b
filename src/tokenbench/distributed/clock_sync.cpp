#include "tokenbench/distributed/clock_sync.h"

#include <algorithm>
#include <chrono>
#include <limits>
#include <stdexcept>
#include <string>

namespace tokenbench::distributed {

std::int64_t steady_now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

ClockOffset estimate_offset(const std::vector<Probe>& probes) {
  const Probe* best = nullptr;
  int usable = 0;
  for (const Probe& p : probes) {
    if (p.back < p.sent) continue;
    ++usable;
    if (best == nullptr || p.back - p.sent < best->back - best->sent) best = &p;
  }
  if (best == nullptr) throw std::invalid_argument("no usable clock probe");
  ClockOffset out;
  out.rtt_ns = best->back - best->sent;
  // The midpoint, without overflowing for clocks far from their epoch.
  out.offset_ns = best->peer - (best->sent + out.rtt_ns / 2);
  out.uncertainty_ns = (out.rtt_ns + 1) / 2;
  out.probes = usable;
  return out;
}

ClockOffset probe_clock(Comm& comm, int peer, int timeout_ms) {
  std::vector<Probe> probes;
  probes.reserve(kProbes);
  const auto budget_end =
      std::chrono::steady_clock::now() + std::chrono::milliseconds(kProbeBudgetMs);
  std::int64_t best_rtt = std::numeric_limits<std::int64_t>::max();
  for (int i = 0; i < kMaxProbes; ++i) {
    if (i >= kProbes &&
        (best_rtt <= kQuickRttNs || std::chrono::steady_clock::now() >= budget_end)) {
      break;
    }
    Probe p;
    p.sent = steady_now_ns();
    comm.send(peer, Tag::kPing, "");
    const auto answer =
        receive(comm, peer, Tag::kPong,
                std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms));
    p.back = steady_now_ns();
    if (!answer) {
      throw std::runtime_error("rank " + std::to_string(peer) + " did not answer the clock probe");
    }
    p.peer = std::stoll(*answer);
    best_rtt = std::min(best_rtt, p.back - p.sent);
    probes.push_back(p);
  }
  return estimate_offset(probes);
}

bool answer_probe(Comm& comm) {
  if (!comm.poll(0, Tag::kPing)) return false;
  comm.send(0, Tag::kPong, std::to_string(steady_now_ns()));
  return true;
}

}  // namespace tokenbench::distributed
