#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "tokenbench/core/clock.h"
#include "tokenbench/distributed/clock_sync.h"
#include "tokenbench/distributed/comm.h"
#include "tokenbench/load/work_queue.h"

namespace tokenbench::distributed {

/// What a rank measured at one level, as it sends it to the leader: stamps on its own run clock.
struct RankReport {
  int rank = 0;
  std::string host;
  std::string error;  ///< why it measured nothing ("" when it measured)
  bool lost = false;  ///< no report came (the leader's note; never sent)
  bool canceled = false;
  std::int64_t origin_ns = 0;  ///< its run clock's origin, on its steady clock
  core::Nanos measure_start = core::kNever;
  core::Nanos measure_end = core::kNever;
  std::vector<std::vector<core::CpuSample>> cpu;  ///< per worker thread
};
// Its records follow, asked for a batch at a time (distributed/record_transfer.h).

std::string encode_report(const RankReport& report);
/// Throws std::runtime_error on bytes that are not an encoded report.
RankReport decode_report(const std::string& bytes);

/// A rank that took no part in a level (or stopped answering during it), and why.
struct Absence {
  int rank = 0;
  std::string host;
  std::string why;
};

/// The protocol of a distributed run (docs/DISTRIBUTED.md, "Protocol"), over a Comm. The leader
/// (rank 0) runs the command as a single process would; the followers run each measurement it
/// announces, their share of its schedule, and send back what they measured:
///
///   start-up   follower -> leader  hello (ready, or why not: e.g. its preflight failed)
///   each level leader -> member    level (the configuration, and who takes part)
///              member -> leader    ready (warmed up), then clock probes, then
///              leader -> member    go (the common start, in the member's own clock)
///              member -> leader    result (its notes), then its records, a batch per
///                                  ask of the leader's, until it says "end"
///   the end    leader -> follower  finish
///
/// A follower that said no at start-up, or went silent (Comm::lost), takes no further part; each
/// level's schedule is shared among the members still there. Use from one thread.
class Session {
 public:
  explicit Session(Comm& comm);

  Comm& comm() { return comm_; }
  int rank() const { return comm_.rank(); }
  int size() const { return comm_.size(); }
  bool leader() const { return comm_.rank() == 0; }
  const std::string& host() const { return host_; }

  /// Follower: says whether it can take part (`error` empty) or why not.
  void say_hello(const std::string& error);
  /// Leader: hears every follower's hello; those who said no (or never spoke) are absent.
  std::vector<Absence> hear_hellos();

  /// Leader: announces the next measurement (`config_yaml`) to the members still there; the
  /// ones lost since are added to absences(). Sets this level's shard.
  void announce_level(const std::string& config_yaml);
  /// Follower: the next measurement's configuration, or nullopt when the leader said finish (or
  /// was lost, or `give_up` said so). Sets this level's shard.
  std::optional<std::string> await_level(const std::function<bool()>& give_up);
  /// Follower: true when await_level ended because the leader went silent.
  bool leader_lost() const { return leader_lost_; }

  /// This rank's share of the current level's schedule: index mod members == position.
  load::Shard shard() const { return shard_; }

  /// Both sides, right before the measure phase: waits until every member is warmed up, then
  /// the leader probes each member's clock and sends it the common start. Returns the start on
  /// `clock` (a moment shortly ahead), or nullopt when this rank must not measure: the leader
  /// could not start the measurement, or dropped this member. `error` non-empty: this rank
  /// cannot measure (it still passes the gate, so that nobody waits for it; on the leader, every
  /// member is told to skip). `give_up`: a canceled run stops waiting for the others after a
  /// short grace.
  std::optional<core::Nanos> common_start(const core::RunClock& clock, const std::string& error,
                                          const std::function<bool()>& give_up);

  /// Follower: sends what it measured.
  void send_report(const RankReport& report);
  /// Leader: every member's report of this level, by rank; a member lost (or silent for long
  /// when `canceled`) gets a report holding only its rank, host and the error saying so.
  std::vector<RankReport> gather_reports(bool canceled);

  /// Leader: the members' clock offsets at this level's start, by rank (the leader's own: 0).
  const std::map<int, ClockOffset>& offsets() const { return offsets_; }
  /// Leader: the members' run-clock origins (steady ns) at this level, by rank.
  const std::map<int, std::int64_t>& origins() const { return origins_; }
  /// Leader: the members of the current level (the leader first), and the hosts of all ranks.
  const std::vector<int>& members() const { return members_; }
  const std::map<int, std::string>& hosts() const { return hosts_; }
  /// Leader: who is absent, and why (start-up refusals and ranks lost since).
  const std::vector<Absence>& absences() const { return absences_; }

  /// Leader: tells every follower still there (taking part or not) that the run is over.
  void finish(int exit_code);

 private:
  void mark_absent(int rank, const std::string& why);

  Comm& comm_;
  std::string host_;
  load::Shard shard_;
  bool leader_lost_ = false;
  std::vector<int> members_;  // leader: this level's, the leader first
  std::vector<int> takers_;   // leader: the followers that said yes at start-up
  std::map<int, std::string> hosts_;
  std::vector<Absence> absences_;
  std::map<int, ClockOffset> offsets_;
  std::map<int, std::int64_t> origins_;
};

}  // namespace tokenbench::distributed
