#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tokenbench/core/clock.h"
#include "tokenbench/core/request.h"
#include "tokenbench/distributed/merge.h"
#include "tokenbench/distributed/session.h"

namespace tokenbench::experiment {

/// A follower's report of one measurement: its records as requests.jsonl lines, its workers'
/// CPU readings and measure window, all on its own run clock (`clock`), with the clock's origin.
distributed::RankReport rank_report(const distributed::Session& session,
                                    const core::RunClock& clock,
                                    const distributed::LeaderShare& share);

/// The leader's merged outputs beside the ranks' own files in `dir`: requests.jsonl (or
/// requests.jsonl.zst with `zstd`), and distributed.json. Throws std::runtime_error naming the
/// file when it cannot be written.
void write_merged_records(const std::string& dir, const std::vector<core::RequestRecord>& records,
                          bool zstd, const nlohmann::json& distributed);

}  // namespace tokenbench::experiment
