#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tokenbench/core/request.h"

namespace tokenbench::metrics {

/// Ids listed per consistency check, at most.
inline constexpr std::size_t kConsistencyIdsShown = 5;

/// One per-request consistency check over the successful measured requests (docs/METRICS.md
/// "Self-checks"): how many it could examine, how many fell outside its tolerance, and the first
/// of those by id.
struct ConsistencyCheck {
  std::string name;     ///< "e2el", "tps", "usage_chunks" or "usage_tokenizer"
  std::string rule;     ///< what is compared and the tolerance, in words
  std::string reading;  ///< what a request outside the tolerance means
  std::int64_t checked = 0;
  std::int64_t outside = 0;
  std::vector<std::uint64_t> first_ids;  ///< ascending, at most kConsistencyIdsShown
};

/// Tolerances of the checks.
inline constexpr double kE2elToleranceMs = 5.0;  ///< ... or kRelativeTolerance of E2EL
inline constexpr double kRelativeTolerance = 0.05;
inline constexpr std::int64_t kTokenTolerance = 2;  ///< ... or kRelativeTolerance of the count

/// Runs the four checks over the successful measured requests of `records`:
///  - e2el: E2EL to the transfer's end (done - sent) against TTFT + TPOT x (N-1);
///  - tps: the decode rate counted from the chunks' tokens against 1000 / TPOT;
///  - usage_chunks: the server's usage count against the content chunks (more chunks than
///    tokens is impossible for a correct server);
///  - usage_tokenizer: the usage count against the local tokenizer's (--tokenizer only).
/// A check that no request could take has checked == 0.
std::vector<ConsistencyCheck> check_consistency(const std::vector<core::RequestRecord>& records);

/// check_consistency fed one record at a time, in any order, in bounded memory (the ids kept are
/// the smallest kConsistencyIdsShown). Not thread-safe.
class ConsistencyChecker {
 public:
  ConsistencyChecker();
  void add(const core::RequestRecord& record);
  /// The four checks, in check_consistency's order.
  std::vector<ConsistencyCheck> finish() const;

 private:
  ConsistencyCheck e2el_, tps_, chunks_, tokenizer_;
};

}  // namespace tokenbench::metrics
