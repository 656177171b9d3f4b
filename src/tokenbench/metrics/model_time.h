#pragma once

#include <vector>

#include "tokenbench/core/request.h"
#include "tokenbench/core/run_config.h"

namespace tokenbench::metrics {

/// The factor that turns a run's real time into the simulated model's time: serve-sim's
/// --time-scale X (config.sim_time_scale) under --sim-time, else 1 (figures stay in real time).
double model_time_factor(const core::RunConfig& config);

/// `records` as the simulated model's time saw them (--sim-time against serve-sim --time-scale
/// X; docs/METRICS.md, "Simulated time"). What the server took is X times longer: the wait for a
/// slot (intended to scheduled), and everything from the send on (TTFT, every chunk, E2EL, the
/// server's own timings). What the client itself took is not: the queue time (scheduled to sent)
/// stays as measured. So a record's scheduled stamp becomes X * scheduled, its sent stamp
/// X * scheduled + (sent - scheduled), and a later stamp t the new sent plus X * (t - sent).
/// kNever stays kNever. A factor of 1 returns the records unchanged.
/// One record of in_model_time, in place.
void rescale_to_model_time(core::RequestRecord& record, double factor);

std::vector<core::RequestRecord> in_model_time(std::vector<core::RequestRecord> records,
                                               double factor);

}  // namespace tokenbench::metrics
