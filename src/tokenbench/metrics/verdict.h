#pragma once

// Who held a run back (docs/METRICS.md, "Verdict"): the client, the server (queueing or
// compute), the network or HTTP framework, or no one. A pure rule over figures the run already
// has: the client's read lag, send lag and CPU, the TTFT and ITL the client measured, and the
// server's own account where its /metrics were scraped.

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tokenbench/metrics/checks.h"
#include "tokenbench/metrics/summary.h"

namespace tokenbench::metrics {

/// The client is late when its read lag's p99 exceeds one ITL (the run's ITL p50; a
/// non-streamed run's TTFT p50 / 10), and at least this much.
inline constexpr double kReadLagFloorMs = 0.1;
/// A client-bound verdict names the share of chunks read late when at least this.
inline constexpr double kLateChunkShare = 0.05;
/// The client sent late when its send lag's p99 exceeds this, and a tenth of TTFT p50.
inline constexpr double kSendLagBoundMs = 5.0;
/// The server queued when its queue time is at least this share of the client's mean TTFT, or
/// at least one request waited on average.
inline constexpr double kQueueShare = 0.2;
inline constexpr double kWaitingBound = 1.0;
/// The network or framework held TTFT back when the part outside the server's account is at
/// least this share of the mean TTFT, and this much.
inline constexpr double kOverheadShare = 0.3;
inline constexpr double kOverheadMinMs = 2.0;
/// A latency's tail is long past this p99/p50 (as the tail check reads it).
inline constexpr double kLongTailRatio = 3.0;

/// What the verdict reads: the client's side from the summary and checks, the server's from its
/// account (filled by the caller; `server` false when no /metrics were scraped).
struct VerdictInputs {
  ReadLagCheck read_lag;
  double itl_p50_ms = kUndefined;
  double itl_p99_ms = kUndefined;
  double ttft_p50_ms = kUndefined;
  double ttft_p99_ms = kUndefined;
  double ttft_mean_ms = kUndefined;
  double send_lag_p99_ms = kUndefined;
  double cpu_peak_pct = kUndefined;       ///< the busiest worker's peak
  double cpu_wait_peak_pct = kUndefined;  ///< the worst wait for a CPU of any worker's second
  int workers = 0;
  bool server = false;
  double queue_mean_ms = kUndefined;
  double waiting_mean = kUndefined;
  double waiting_max = kUndefined;
  double running_mean = kUndefined;
  double server_ttft_mean_ms = kUndefined;
  double server_itl_mean_ms = kUndefined;
  double ttft_overhead_ms = kUndefined;  ///< client TTFT mean - (queue + prefill)
};

/// The client-side inputs of `summary` and `checks` (the server's left unset).
VerdictInputs verdict_inputs(const Summary& summary, const Checks& checks);

struct Verdict {
  /// "client-bound", "server-bound", "network or framework" or "healthy".
  std::string bound;
  /// server-bound: "queueing", "compute", or "queueing or compute" without server telemetry.
  std::string kind;
  std::vector<std::string> evidence;  ///< the figures that decided it
  std::string remedy;                 ///< client-bound: what to change
  bool client_bound() const { return bound == "client-bound"; }
  /// "client-bound: evidence; evidence. Remedy: ..." in one line.
  std::string line() const;
};

/// The rule of docs/METRICS.md, "Verdict": client-bound first (then no other figure is the
/// server's), then server-bound by queueing, network or framework, server-bound by compute (a
/// long tail the server's own figures account for), else healthy.
Verdict judge(const VerdictInputs& in);

nlohmann::json verdict_to_json(const Verdict& v);

}  // namespace tokenbench::metrics
