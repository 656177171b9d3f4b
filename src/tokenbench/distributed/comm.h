#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <string>

namespace tokenbench::distributed {

/// The kinds of message of a distributed run (docs/DISTRIBUTED.md, "Protocol"); MPI tags.
enum class Tag : int {
  kHello = 1,   ///< follower -> leader: ready to measure, or why not
  kLevel = 2,   ///< leader -> follower: measure this configuration next
  kReady = 3,   ///< follower -> leader: warmed up, at the common start's gate
  kPing = 4,    ///< leader -> follower: clock offset probe
  kPong = 5,    ///< follower -> leader: its steady clock, read on the ping's arrival
  kGo = 6,      ///< leader -> follower: the common start, in the follower's own clock
  kResult = 7,  ///< follower -> leader: its records and notes of one measurement
  kFinish = 8,  ///< leader -> follower: no more measurements; exit
  kHeartbeat = 9,
  kAsk = 10,    ///< leader -> member: the next batch of a part's records, or "end"
  kBatch = 11,  ///< member -> leader: that batch (distributed/record_transfer.h)
};

/// Point-to-point messages between the ranks of one distributed run, rank 0 being the leader.
/// Nothing blocks: send() queues, poll() looks. Implementations: MpiComm (mpirun), and the tests'
/// in-process one. Thread-safe.
class Comm {
 public:
  virtual ~Comm() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  /// Queues `bytes` for rank `to`; returns at once. A message to a lost rank is dropped.
  virtual void send(int to, Tag tag, std::string bytes) = 0;
  /// The oldest message from `from` with `tag`, if one has arrived; never blocks.
  virtual std::optional<std::string> poll(int from, Tag tag) = 0;
  /// True when `rank` has not been heard from for a while (it died, or hangs): a wait for it
  /// gives up.
  virtual bool lost(int rank) const = 0;
  /// Ends this rank's part of the run, about to exit with `exit_code`: MPI_Finalize, unless a
  /// peer was lost (it would wait for that peer forever; the process then exits without it).
  virtual void close(int exit_code) = 0;
};

/// Waits for a message from `from` with `tag`: returns it, or nullopt when `from` is lost,
/// `deadline` passed, or `give_up` (checked between polls) says so. Spins for the first
/// milliseconds (a clock probe's reply must not wait for a sleep), then polls every millisecond.
std::optional<std::string> receive(
    Comm& comm, int from, Tag tag,
    std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max(),
    const std::function<bool()>& give_up = {});

}  // namespace tokenbench::distributed
