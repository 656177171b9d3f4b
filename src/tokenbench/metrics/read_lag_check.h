#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tokenbench/core/read_lag.h"
#include "tokenbench/metrics/summary.h"

namespace tokenbench::metrics {

/// The read lag of some reads (docs/METRICS.md, "Read lag"), in milliseconds.
struct ReadLagFigures {
  std::uint64_t reads = 0;
  double p50_ms = kUndefined;
  double p99_ms = kUndefined;
  double max_ms = kUndefined;
};

/// The client's read lag over the measure phase: every worker's and all of them together, and
/// the requests' share of chunks read more than one ITL late. Measured only where the kernel
/// stamped the reads; otherwise `measured` is false and `not_measured` says why (never 0).
struct ReadLagCheck {
  bool measured = false;
  std::string not_measured;
  ReadLagFigures overall;
  std::vector<ReadLagFigures> workers;
  /// The mean over measured requests of their share of chunks read late (RequestRecord::
  /// read_late_share), and how many requests had one.
  double late_chunk_share = kUndefined;
  std::int64_t requests_judged = 0;
  /// The worst window's p99 (core::ReadLagWindow) of any worker, ms.
  double worst_window_p99_ms = kUndefined;
};

/// The figures of `h`.
ReadLagFigures read_lag_figures(const core::ReadLagHistogram& h);

/// The check from each worker's log; `stamp_sources` (Checks::stamp_sources) says why it was not
/// measured when no log holds a read; `late_share_sum` and `late_share_n` are the requests'
/// read_late_share summed and counted.
ReadLagCheck read_lag_check(const std::vector<core::ReadLagLog>& logs,
                            const std::map<std::string, std::int64_t>& stamp_sources,
                            double late_share_sum, std::int64_t late_share_n);

/// Adds the check to summary.json's checks.client object (`read_lag_*` beside the workers' CPU,
/// and each worker's own) and returns the Checks block's line.
void add_read_lag_json(const ReadLagCheck& check, nlohmann::json& client);
std::string render_read_lag(const ReadLagCheck& check);

}  // namespace tokenbench::metrics
