#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>

namespace tokenbench::experiment {

/// The levels an interrupted experiment had completed, for --resume: reads ROOT/FILE (sweep.json
/// or search.json, rewritten after every level), and for each entry of its `list` array marked
/// "complete": true, the summary.json of its "dir" subdirectory. Keyed by that dir name. Missing
/// files give an empty map; a level whose summary.json is unreadable is left out (it runs again).
std::map<std::string, nlohmann::json> completed_levels(const std::string& root,
                                                       const std::string& file,
                                                       const std::string& list);

/// Writes `doc` to ROOT/FILE atomically (pretty-printed JSON).
void write_journal(const std::string& root, const std::string& file, const nlohmann::json& doc);

}  // namespace tokenbench::experiment
