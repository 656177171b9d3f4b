#pragma once

// The rows of the option table (run_options.h), one file per part of config.yaml; internal to
// core.

#include <string>
#include <vector>

#include "tokenbench/core/run_options.h"
#include "tokenbench/core/secret_fields.h"

namespace tokenbench::core::rows {

std::vector<RunOption> target_rows();    ///< target: run_option_rows_target.cpp
std::vector<RunOption> targets_rows();   ///< target: replicas, targets, LoRA adapters
std::vector<RunOption> load_rows();      ///< load: run_option_rows_load.cpp
std::vector<RunOption> workload_rows();  ///< workload: run_option_rows_workload.cpp
std::vector<RunOption> output_rows();    ///< metrics and the top level

/// A URL as config.yaml keeps it: credentials in its query redacted.
inline std::string shown_url(const std::string& url) { return redact_query(url); }

}  // namespace tokenbench::core::rows
