#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "tokenbench/core/run_config.h"

namespace tokenbench::cli {

/// The share of the memory available (/proc/meminfo's MemAvailable) that a workload may hold
/// under --max-workload-memory auto.
inline constexpr double kWorkloadMemoryShare = 0.75;

/// The memory the kernel says a new allocation can take without swapping (MemAvailable in
/// `meminfo`, a /proc/meminfo's text), in bytes; none when it does not say.
std::optional<std::int64_t> mem_available(const std::string& meminfo);

/// --max-workload-memory: refuses, before anything is built, a workload that would not fit: the
/// prompts it holds for the run, the requests made ahead of the schedule and the schedule
/// (workload/workload.h's estimate).
/// `limit` is "auto" (kWorkloadMemoryShare of MemAvailable; no check when unknown), 0 (no check)
/// or a byte size. Throws UsageError in one line with the estimate and what to do.
void check_workload_memory(const core::RunConfig& config, const std::string& limit);

}  // namespace tokenbench::cli
