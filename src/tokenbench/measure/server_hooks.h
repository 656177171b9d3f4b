#pragma once

#include <string>
#include <vector>

#include "tokenbench/core/run_config.h"
#include "tokenbench/measure/plan.h"

namespace tokenbench::measure {

/// --reset-prefix-cache: asks each target's server to forget its prefix cache before the run
/// sends anything (vLLM's POST /reset_prefix_cache; SGLang's POST /flush_cache where the first is
/// not found), so that a run's hit rate is its own, not the last run's. Returns a line per target
/// saying what it answered; a server that refuses or is not reached is said so, and the run goes
/// on.
std::vector<std::string> reset_prefix_caches(const Plan& plan, const core::RunConfig& config);

/// --profile: POST /start_profile (`start`) or /stop_profile to each target (vLLM's and SGLang's
/// paths), at the measure phase's start and end, so that only it is profiled. Returns a line per
/// target that did not answer 2xx ("" lines are left out).
std::vector<std::string> profile_servers(const Plan& plan, const core::RunConfig& config,
                                         bool start);

}  // namespace tokenbench::measure
