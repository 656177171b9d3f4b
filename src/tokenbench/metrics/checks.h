#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "tokenbench/core/clock.h"
#include "tokenbench/core/read_lag.h"
#include "tokenbench/core/request.h"
#include "tokenbench/core/run_config.h"
#include "tokenbench/metrics/consistency.h"
#include "tokenbench/metrics/read_lag_check.h"
#include "tokenbench/metrics/streaming_distribution.h"
#include "tokenbench/metrics/summary.h"

namespace tokenbench::metrics {

/// How long a distribution's tail is: p95/p50 and p99/p50, read as healthy below 2x and as a long
/// tail above 3x.
struct TailCheck {
  double p95_over_p50 = 0;
  double p99_over_p50 = 0;
  std::string reading;  ///< "healthy", "moderate tail" or "long tail"
};

/// The load the client actually offered, against what was asked: a shortfall means the client
/// (or the concurrency limit), not the server, shaped the test. The client's own doing, so in real
/// time even under --sim-time.
struct OfferedLoad {
  double requested_rate = kUndefined;  ///< --request-rate; undefined for inf (all at once)
  double achieved_rate = kUndefined;   ///< (sent - 1) / (last send - first send), measure phase
  int concurrency_limit = 0;           ///< --max-concurrency; 0: none
  /// What the limit counts when not requests: "jobs" or "sessions" (a job's calls, a session's
  /// turns are requests, and concurrency_observed counts requests in flight).
  std::string limit_unit;
  std::int64_t concurrency_observed = 0;
  double send_lag_p50_ms = kUndefined;  ///< queue time: sent - scheduled
  double send_lag_p99_ms = kUndefined;
};

/// Coordinated omission made visible (open-loop runs): how long requests waited for a free slot
/// past their intended arrival, and the latencies a user arriving on schedule saw. The wait is the
/// server's doing: in model time under --sim-time, like the latencies.
struct ArrivalWait {
  std::int64_t requests = 0;        ///< measured requests with an intended arrival
  std::int64_t waited = 0;          ///< of them, those sent for a slot later than intended
  double wait_p50_ms = kUndefined;  ///< scheduled - intended
  double wait_p99_ms = kUndefined;
  double ttft_p99_ms = kUndefined;  ///< the usual, from the send
  double ttft_from_intended_p99_ms = kUndefined;
  double e2el_p99_ms = kUndefined;
  double e2el_from_intended_p99_ms = kUndefined;
};

/// One worker thread's CPU use over the measure phase, from its thread CPU clock.
struct WorkerCpu {
  double cpu_s = 0;          ///< CPU time used
  double busy_mean_pct = 0;  ///< CPU time / wall time over the phase
  double busy_peak_pct = 0;  ///< the busiest window of at least kCpuWindowS
  /// Time runnable but not running (waiting on a run queue: the scheduler's run_delay) / wall
  /// time, over the phase and in its worst window; undefined where the kernel does not say.
  double wait_mean_pct = kUndefined;
  double wait_peak_pct = kUndefined;
};

/// Share of a window a worker thread may spend on the CPU before it counts as saturated.
inline constexpr double kSaturatedBusyPct = 90.0;
/// The shortest window of the peak busy share, in seconds.
inline constexpr double kCpuWindowS = 1.0;
/// Share of a window a worker thread may wait for a CPU (runnable, not running) before its reads
/// and sends count as held back by another process.
inline constexpr double kCpuWaitPct = 20.0;

/// The client's own health: each worker thread's CPU use. A saturated worker stamps late.
struct ClientHealth {
  std::vector<WorkerCpu> workers;
  bool saturated = false;  ///< some worker's peak reached kSaturatedBusyPct
  bool starved = false;    ///< some worker's wait peak reached kCpuWaitPct
};

/// Each worker's CPU use from its clock readings (core::CpuSample, in time order).
ClientHealth client_health(const std::vector<std::vector<core::CpuSample>>& samples);

/// Self-checks of one run (summary.json `tokenbench.checks`; docs/METRICS.md "Self-checks").
struct Checks {
  std::optional<TailCheck> ttft;
  std::optional<TailCheck> e2el;
  OfferedLoad offered;
  std::vector<ConsistencyCheck> consistency;
  std::optional<ArrivalWait> arrival_wait;  ///< open-loop runs only
  std::optional<ClientHealth> client;       ///< when CPU readings exist
  /// The client's read lag (measured with kernel stamps only; metrics/read_lag_check.h).
  ReadLagCheck read_lag;
  /// Measured requests by where their receive stamps came from ("kernel", "user"): kernel
  /// receive times, or the client's clock when the read returned (docs/METRICS.md, Stamps).
  std::map<std::string, std::int64_t> stamp_sources;
  std::vector<std::string> findings;  ///< one line each, printed with the run
};

/// Runs every check; `client_cpu` holds each worker thread's CPU readings (none: no client
/// health check). `records` are as measured (real time); `summary` is in the figures' time (model
/// time under --sim-time: metrics::in_model_time, whose queue time stays real).
Checks run_checks(const std::vector<core::RequestRecord>& records, const Summary& summary,
                  const core::RunConfig& config,
                  const std::vector<std::vector<core::CpuSample>>& client_cpu = {},
                  const std::vector<core::ReadLagLog>& read_lag = {});

/// run_checks fed one record at a time (as measured: real time), in any order, without keeping
/// them; finish() runs the checks that need the summary. Its memory is bounded: the arrival
/// waits are a StreamingDistribution (exact up to `exact_limit` values). Not thread-safe.
class ChecksBuilder {
 public:
  /// `factor`: metrics::model_time_factor of the run (the arrival wait is in the figures' time).
  explicit ChecksBuilder(double factor, std::size_t exact_limit = std::size_t{1} << 16);
  void add(const core::RequestRecord& record);
  /// The checks, as run_checks gives them for the records added; `read_lag`: each worker's
  /// (records::RunNotes::read_lag).
  Checks finish(const Summary& summary, const core::RunConfig& config,
                const std::vector<std::vector<core::CpuSample>>& client_cpu = {},
                const std::vector<core::ReadLagLog>& read_lag = {}) const;

 private:
  void add_offered(const Summary& summary, const core::RunConfig& config, Checks& c) const;
  void add_consistency(Checks& c) const;
  void add_arrival_wait(const Summary& summary, Checks& c) const;
  static void add_client_health(const std::vector<std::vector<core::CpuSample>>& client_cpu,
                                Checks& c);

  double factor_;
  ConsistencyChecker consistency_;
  std::map<std::string, std::int64_t> stamp_sources_;
  std::int64_t sent_ = 0;
  core::Nanos first_sent_ = core::kNever;
  core::Nanos last_sent_ = core::kNever;
  StreamingDistribution waits_;  // ms, in the figures' time
  std::int64_t waited_ = 0;
  double late_share_sum_ = 0;  // measured requests' read_late_share, summed and counted
  std::int64_t late_share_n_ = 0;
};

nlohmann::json checks_to_json(const Checks& checks);

/// "Checks:" and one line per finding, for the console.
std::string render_checks(const Checks& checks);

}  // namespace tokenbench::metrics
