#pragma once

// --probe-rate R: tiny requests sent beside the load, outside its concurrency, as a new user
// arriving at that moment would send them. Their samples and their own accounting: never mixed
// into the load's figures. Pure functions; plain data.

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tokenbench/core/clock.h"

namespace tokenbench::telemetry {

/// One probe: when it was due and sent, when its first token (its first content bytes) and its
/// end arrived, on the run's clock, and how it ended.
struct ProbeSample {
  core::Nanos scheduled = core::kNever;
  core::Nanos sent = core::kNever;
  core::Nanos first_token = core::kNever;  ///< kNever: none came
  core::Nanos done = core::kNever;
  long status = 0;    ///< HTTP status; 0: no reply
  std::string error;  ///< "" for a success; else one line (HTTP 503, a transport error)
};

nlohmann::json probe_sample_to_json(const ProbeSample& s);
/// Throws std::runtime_error on a malformed line.
ProbeSample probe_sample_from_json(const nlohmann::json& j);

/// The probes' figures: how many were sent, answered and failed, and the distribution of their
/// TTFT and E2E latency (ms; times `factor` for the simulator's model time, --sim-time).
struct ProbeAccount {
  double rate = 0;
  std::int64_t sent = 0;
  std::int64_t completed = 0;
  std::int64_t failed = 0;
  std::string first_error;
  std::vector<double> ttft_ms;  ///< sorted
  std::vector<double> e2el_ms;  ///< sorted
};

ProbeAccount account_probes(const std::vector<ProbeSample>& samples, double rate, double factor);
/// summary.json's tokenbench.probes: {"rate", "sent", "completed", "failed", "first_error",
/// "ttft_ms": {"mean", "p50", "p90", "p99", "max"}, "e2el_ms": {...}}.
nlohmann::json probe_account_to_json(const ProbeAccount& a);
/// The console's line.
std::string render_probe_account(const ProbeAccount& a);

}  // namespace tokenbench::telemetry
