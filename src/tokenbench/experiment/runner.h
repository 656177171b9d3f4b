#pragma once

// experiment/ composes measurements (sweeps, searches, targets compared): it runs each with the
// Runner of measure/, which tells one measurement in order (measure/runner.h).

#include "tokenbench/measure/outcome.h"
#include "tokenbench/measure/runner.h"

namespace tokenbench::experiment {

using measure::LevelResult;
using measure::RunError;
using measure::Runner;
using measure::RunOutcome;

}  // namespace tokenbench::experiment
