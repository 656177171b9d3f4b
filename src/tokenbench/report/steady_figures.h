#pragma once

// --steady-state auto: the figures of a run's steady-state window (metrics/steady_state.h), from
// a second read of its requests file: nothing is kept while the run goes.

#include <nlohmann/json.hpp>
#include <string>

#include "tokenbench/core/run_config.h"
#include "tokenbench/report/run_figures.h"

namespace tokenbench::report {

/// summary.json's tokenbench.steady_state and the console's line.
struct SteadyFigures {
  nlohmann::json json;
  std::string console;
};

/// The window figures.steady() found, and the summary figures of the measured requests sent in
/// it (read again from DIR's requests file, in model time under --sim-time), beside the whole
/// run's (`whole`: its summary.json); or why none was found. Throws std::runtime_error when the
/// file cannot be read.
SteadyFigures steady_state_figures(const std::string& dir, const RunFigures& figures,
                                   const nlohmann::json& whole, const core::RunConfig& config);

}  // namespace tokenbench::report
