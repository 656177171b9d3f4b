#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "tokenbench/core/run_config.h"

namespace tokenbench::experiment {

/// The levels an interrupted experiment had completed, for --resume: reads ROOT/FILE (sweep.json
/// or search.json, rewritten after every level), and for each entry of its `list` array marked
/// "complete": true, the summary.json of its "dir" subdirectory. Keyed by that dir name. Missing
/// files give an empty map; a level whose summary.json is unreadable is left out (it runs again).
std::map<std::string, nlohmann::json> completed_levels(const std::string& root,
                                                       const std::string& file,
                                                       const std::string& list);

/// Throws RunError (a configuration error) when expected.output_dir/config.yaml, a level kept by
/// --resume, was measured with another configuration than `expected` (the level's configuration
/// now): resuming must not mix measurements of different workloads. The run's start time and
/// how figures are judged and shown (percentiles, SLOs, console style) are not compared.
void check_same_configuration(const core::RunConfig& expected);

/// When DIR is the root of an experiment (a sweep, a search or a multi-target run) rather than
/// one run's results: the one-line hint that says so and to pass a subdirectory; else "".
std::string experiment_root_hint(const std::string& dir);

/// Writes `doc` to ROOT/FILE atomically (pretty-printed JSON).
void write_journal(const std::string& root, const std::string& file, const nlohmann::json& doc);

/// write_journal, never throwing: "" when written, else why not ("cannot write ROOT/FILE: No
/// space left on device"). A sweep or search goes on without its journal and prints it instead.
std::string try_write_journal(const std::string& root, const std::string& file,
                              const nlohmann::json& doc) noexcept;

}  // namespace tokenbench::experiment
