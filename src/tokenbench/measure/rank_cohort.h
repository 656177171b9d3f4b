#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tokenbench/core/clock.h"
#include "tokenbench/core/request.h"
#include "tokenbench/distributed/comm.h"
#include "tokenbench/distributed/merge.h"
#include "tokenbench/distributed/session.h"
#include "tokenbench/measure/cohort.h"

namespace tokenbench::measure {

/// The ranks of a distributed run (docs/DISTRIBUTED.md) as a Cohort, over the session's
/// protocol: the leader (rank 0) announces each measurement and merges; the followers measure
/// their share and report.
class RankCohort final : public Cohort {
 public:
  /// Owns `comm` (MPI's world); closes it at finish().
  explicit RankCohort(std::unique_ptr<distributed::Comm> comm);

  bool leads() const override { return session_.leader(); }
  void greet() override;
  void stand_by(const std::string& why) override;
  int follow(Runner& runner, const core::RunConfig& own) override;
  std::string who() const override;
  void finish(int exit_code) override;

  bool alone() const override { return false; }
  std::string ranks_label() const override;
  void share(const core::RunConfig& config, core::RunConfig& own) override;
  std::string records_file(records::RecordsCompression compression) const override;
  void unable(const std::string& why) override;
  void synchronize(driver::Benchmark& bench, std::function<bool()> canceled) override;
  std::optional<distributed::Merged> merge(distributed::LeaderShare own,
                                           const core::RunClock& clock,
                                           const std::vector<std::string>& dirs, bool zstd,
                                           const distributed::MergedRecord& each) override;

 private:
  std::unique_ptr<distributed::Comm> comm_;
  distributed::Session session_;
  bool announced_ = false;                   // leader: this measurement was announced
  core::Nanos common_start_ = core::kNever;  // this measurement's, once known
};

/// A follower's report of one measurement: its workers' CPU readings and measure window, on its
/// own run clock (`clock`), with the clock's origin. Its records follow, asked for by the leader
/// (distributed/record_transfer.h).
distributed::RankReport rank_report(const distributed::Session& session,
                                    const core::RunClock& clock,
                                    const distributed::LeaderShare& share);

}  // namespace tokenbench::measure
