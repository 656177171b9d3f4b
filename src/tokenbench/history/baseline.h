#pragma once

// `tokenbench compare --baseline last|best|ID NEW`: the baseline run taken from the history
// (docs/HISTORY.md), a run of NEW's own workload identity, instead of a directory.

#include <string>

#include "tokenbench/history/store.h"

namespace tokenbench::history {

/// The baseline for the run in `new_dir` (a results directory, or a repeated run's root):
/// - "last": the latest run of the same workload identity that started before it (or in the
///   same second: starts are kept to the second);
/// - "best": among those, the one with the best `figure` (higher_is_better decides);
/// - a history id: that run (of any identity; compare then checks the workloads).
/// Runs whose results directory is gone, and NEW's own runs, are never chosen. Throws
/// std::runtime_error with a one-line reason when there is none.
RunEntry choose_baseline(const Store& store, const std::string& new_dir, const std::string& which,
                         const std::string& figure);

}  // namespace tokenbench::history
