#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "tokenbench/distributed/comm.h"

namespace tokenbench::distributed {

/// A distributed run's records travel from each member to the leader in batches the leader asks
/// for, one part (target) at a time (docs/DISTRIBUTED.md, "Protocol"): neither side holds a
/// rank's records whole, and the leader merges them as they come.
///
///   leader -> member   ask: "P" (the next batch of part P's records), or "end"
///   member -> leader   batch: "L" and requests.jsonl lines; "E": part P has no more;
///                      "X" and why: its file cannot be read

/// Most bytes of lines in one batch (a longer line goes alone).
inline constexpr std::size_t kBatchBytes = std::size_t{1} << 20;

/// Member: answers the leader's asks for its records of one measurement (part p's in `files[p]`,
/// a requests.rank-K.jsonl[.zst] it wrote and closed) until the leader says "end" or is lost.
void serve_records(Comm& comm, const std::vector<std::string>& files);

/// Leader: a member's requests.jsonl lines of one part, asked for a batch at a time.
class RemoteLines {
 public:
  RemoteLines(Comm& comm, int rank, std::size_t part) : comm_(comm), rank_(rank), part_(part) {}

  /// The next line into `line`; false at the end of its records, or when they stopped coming
  /// (failure() says why).
  bool next(std::string& line);
  /// Why the records stopped before their end: the member went silent, or could not read its
  /// file; "" when they came whole (or are still coming).
  const std::string& failure() const { return failure_; }

 private:
  Comm& comm_;
  int rank_;
  std::size_t part_;
  std::string batch_;
  std::size_t pos_ = 0;
  bool ended_ = false;
  std::string failure_;
};

/// Leader: tells each of `ranks` (members serving their records) that no more will be asked for.
void end_records(Comm& comm, const std::vector<int>& ranks);

}  // namespace tokenbench::distributed
