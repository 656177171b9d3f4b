#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "tokenbench/core/request.h"
#include "tokenbench/core/run_config.h"
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
/// (or the concurrency limit), not the server, shaped the test.
struct OfferedLoad {
  double requested_rate = kUndefined;  ///< --request-rate; undefined for inf (all at once)
  double achieved_rate = kUndefined;   ///< (sent - 1) / (last send - first send), measure phase
  int concurrency_limit = 0;           ///< --max-concurrency; 0: none
  std::int64_t concurrency_observed = 0;
  double send_lag_p50_ms = kUndefined;  ///< queue time: sent - scheduled
  double send_lag_p99_ms = kUndefined;
};

/// Self-checks of one run (summary.json `tokenbench.checks`; docs/METRICS.md "Self-checks").
struct Checks {
  std::optional<TailCheck> ttft;
  std::optional<TailCheck> e2el;
  OfferedLoad offered;
  std::vector<std::string> findings;  ///< one line each, printed with the run
};

Checks run_checks(const std::vector<core::RequestRecord>& records, const Summary& summary,
                  const core::RunConfig& config);

nlohmann::json checks_to_json(const Checks& checks);

/// "Checks:" and one line per finding, for the console.
std::string render_checks(const Checks& checks);

}  // namespace tokenbench::metrics
