#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace tokenbench::report {

/// The console's "Distributed" block from summary.json's tokenbench.distributed
/// (distributed/merge.h): one row per rank (host, status, its requests, send lag and CPU peak,
/// clock offset), what the clock offsets bound, and a line for each share that is missing.
/// "" for null.
std::string render_ranks(const nlohmann::json& distributed);

}  // namespace tokenbench::report
