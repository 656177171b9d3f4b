#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tokenbench/core/clock.h"
#include "tokenbench/core/request.h"
#include "tokenbench/distributed/session.h"

namespace tokenbench::distributed {

/// Moves every stamp of `record` (and of its chunks) by `delta` nanoseconds; kNever stays.
void shift_record(core::RequestRecord& record, core::Nanos delta);

/// A rank's requests file in a results directory: requests.rank-K.jsonl (".zst" when `zstd`).
std::string rank_records_file(int rank, bool zstd);

/// What the leader measured itself at one level (stamps on its own run clock).
struct LeaderShare {
  std::vector<std::string> files;  ///< per part (target): its records file, written and closed
  std::vector<std::vector<core::CpuSample>> cpu;
  core::Nanos measure_start = core::kNever;
  core::Nanos measure_end = core::kNever;
  bool canceled = false;
};

/// One merged record of part `part`, on the leader's run clock.
using MergedRecord = std::function<void(std::size_t part, const core::RequestRecord& record)>;

/// One measurement of a distributed run, merged on the leader's run clock. The records went to
/// merge_level's `each` as they were merged; none is kept.
struct Merged {
  std::vector<std::vector<core::CpuSample>> cpu;  ///< every rank's workers
  core::Nanos measure_start = core::kNever;       ///< the earliest rank's
  core::Nanos measure_end = core::kNever;         ///< the latest rank's
  bool canceled = false;                          ///< some rank was interrupted
  bool partial = false;  ///< some rank's share is missing, whole or in part
  /// Per part, its summary.json's tokenbench.distributed (distributed.json): the ranks, their
  /// requests there, clock offsets and client health, and what is missing (docs/DISTRIBUTED.md).
  std::vector<nlohmann::json> distributed;
};

/// Leader: merges its own share with the members' reports. Each part's records, the leader's
/// (read from its file) and each member's (asked for a batch at a time:
/// distributed/record_transfer.h), go to `each` in the order requests ended, each stamp moved
/// onto the leader's run clock through the member's origin and measured clock offset: memory
/// holds a batch per member, not the records. A member that sent no report is looked for in
/// `part_dirs` (a shared directory: its requests.rank-K.jsonl[.zst], flushed once a second while
/// it ran); what it measured is then kept, and either way the statement of what is missing says
/// so, as it says of a member that stopped answering while it sent its records.
Merged merge_level(Session& session, LeaderShare own, std::vector<RankReport> reports,
                   const std::vector<std::string>& part_dirs, bool zstd, const MergedRecord& each);

}  // namespace tokenbench::distributed
