#pragma once

#include <cstdint>
#include <vector>

#include "tokenbench/distributed/comm.h"

namespace tokenbench::distributed {

/// One clock probe (NTP's exchange, in steady-clock nanoseconds): the leader sent at `sent`
/// (its clock), the follower read `peer` (its clock) on arrival and answered at once, and the
/// answer came back at `back` (the leader's clock).
struct Probe {
  std::int64_t sent = 0;
  std::int64_t peer = 0;
  std::int64_t back = 0;
};

/// A follower's clock against the leader's: follower time = leader time + offset_ns, within
/// ±uncertainty_ns.
struct ClockOffset {
  std::int64_t offset_ns = 0;
  std::int64_t uncertainty_ns = 0;  ///< half the probe's round trip
  std::int64_t rtt_ns = 0;
  int probes = 0;
};

/// The offset from the probe of least round trip (NTP's minimum-delay filter): its reading
/// `peer` lies somewhere in [sent, back] of the leader's clock, so offset = peer - (sent + back)
/// / 2 and the error is at most (back - sent) / 2. Probes whose back precedes sent are ignored.
/// Throws std::invalid_argument when no probe is usable.
ClockOffset estimate_offset(const std::vector<Probe>& probes);

/// Probes per follower at each common start: at least kProbes; while the best round trip is
/// still over kQuickRttNs (a busy host delays the answers), more, up to kMaxProbes or
/// kProbeBudgetMs of probing.
inline constexpr int kProbes = 16;
inline constexpr int kMaxProbes = 256;
inline constexpr std::int64_t kQuickRttNs = 200'000;
inline constexpr int kProbeBudgetMs = 250;

/// The leader's side: probes follower `peer` as above (it must be answering with answer_probe)
/// and estimates its offset. Throws std::runtime_error when the follower is lost or stays silent
/// for `timeout_ms`.
ClockOffset probe_clock(Comm& comm, int peer, int timeout_ms = 5000);

/// The follower's side of one probe: answers the leader's ping, if one arrived, with this
/// process's steady clock. True when it answered.
bool answer_probe(Comm& comm);

/// The steady clock now, in nanoseconds since its epoch (what probes exchange).
std::int64_t steady_now_ns();

}  // namespace tokenbench::distributed
