#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tokenbench/core/clock.h"
#include "tokenbench/core/run_config.h"
#include "tokenbench/distributed/merge.h"
#include "tokenbench/driver/benchmark.h"
#include "tokenbench/records/records_sink.h"

namespace tokenbench::measure {

class Runner;

/// The processes that take each measurement together, behind one interface: this process alone
/// (SingleProcess), or the ranks of an mpirun job (RankCohort, rank_cohort.h, over
/// distributed::Session; docs/DISTRIBUTED.md). The Runner calls it at its steps, and
/// the command (cli's with_runner) around them; alone, every call is a no-op or a constant, so
/// the single-process path holds no rank arithmetic.
class Cohort {
 public:
  virtual ~Cohort() = default;

  // Around the command.

  /// This process writes the results and watches the server and GPUs: alone, or the leader.
  /// Else it follows (follow()): it measures its share of what the leader announces.
  virtual bool leads() const = 0;
  /// Once the Runner is made: the leader hears who takes part, each follower says it does.
  virtual void greet() {}
  /// A follower whose Runner could not be made (`why`): says so, and stays until the leader's
  /// finish, so that the job ends as one.
  virtual void stand_by(const std::string& why) { (void)why; }
  /// A follower's part of the command: runs each measurement the leader announces with `runner`
  /// (credentials from `own`, this rank's configuration) until the leader says finish. Returns
  /// the exit code: 0, or 2 when the leader was lost.
  virtual int follow(Runner& runner, const core::RunConfig& own) = 0;
  /// "rank 3: " before a follower's error line; "" for the leader or alone.
  virtual std::string who() const { return ""; }
  /// The command ends with `exit_code`: the leader tells the followers; every rank leaves MPI.
  virtual void finish(int exit_code) { (void)exit_code; }

  // Around each measurement, in the order the Runner calls them.

  /// This process measures by itself: its measure window is the run's, and a measurement
  /// canceled before its start is not run.
  virtual bool alone() const = 0;
  /// The start line's "4 ranks x " ("" alone).
  virtual std::string ranks_label() const = 0;
  /// Before the benchmark is built: announces the measurement `config` to the others and fits
  /// `own` (the benchmark's copy) to this process's share. Throws std::runtime_error when the
  /// load cannot be shared.
  virtual void share(const core::RunConfig& config, core::RunConfig& own) = 0;
  /// The requests file this process writes in a results directory.
  virtual std::string records_file(records::RecordsCompression compression) const = 0;
  /// A measurement that could not start (`why`): the others hear of it, so that nobody waits.
  virtual void unable(const std::string& why) = 0;
  /// Shards `bench`'s schedule among the processes and gates its measure phase on the common
  /// start; `canceled` stops the wait for the others.
  virtual void synchronize(driver::Benchmark& bench, std::function<bool()> canceled) = 0;
  /// After the phases: every process's records, merged on this process's run clock `clock`
  /// (the leader) and handed to `each` as they are merged (none is kept); nullopt when there is
  /// nothing to merge (alone) or this process does not write (a follower sends its share). `own`
  /// is this process's share; `dirs` are the parts' results directories (a lost rank's flushed
  /// records are looked for there).
  virtual std::optional<distributed::Merged> merge(distributed::LeaderShare own,
                                                   const core::RunClock& clock,
                                                   const std::vector<std::string>& dirs, bool zstd,
                                                   const distributed::MergedRecord& each) = 0;
};

/// One process measuring alone.
class SingleProcess final : public Cohort {
 public:
  bool leads() const override { return true; }
  int follow(Runner& runner, const core::RunConfig& own) override;
  bool alone() const override { return true; }
  std::string ranks_label() const override { return ""; }
  void share(const core::RunConfig&, core::RunConfig&) override {}
  std::string records_file(records::RecordsCompression compression) const override {
    return records::requests_file_name(compression);
  }
  void unable(const std::string&) override {}
  void synchronize(driver::Benchmark&, std::function<bool()>) override {}
  std::optional<distributed::Merged> merge(distributed::LeaderShare, const core::RunClock&,
                                           const std::vector<std::string>&, bool,
                                           const distributed::MergedRecord&) override {
    return std::nullopt;
  }
};

/// The cohort of this process: the ranks of a distributed run when an MPI launcher started it
/// (distributed::launched_ranks() > 1), else a SingleProcess. Throws std::runtime_error, one
/// line, when it was started by mpirun but cannot join (a build without MPI, MPI failing).
std::unique_ptr<Cohort> join_cohort();

}  // namespace tokenbench::measure
