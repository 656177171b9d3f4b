#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "tokenbench/core/request.h"
#include "tokenbench/load/work_queue.h"

namespace tokenbench::driver {

/// A request ready to send: its spec and its body. Shared by the feed that made it and the
/// transfer that sends it (client::SourcedRequest::hold), so it lives until the request ends.
struct Prepared {
  core::RequestSpec spec;
  std::string body;
};

/// The requests of one phase, made ahead of the schedule on a thread of their own, so that a
/// run holds only the requests in flight and the next `capacity`, whatever its length, and the
/// engine's workers never build a body.
///
/// The feed makes the shard's schedule indices in the order its WorkQueue hands them out
/// (shard.begin(), shard.after(begin), ...), those below `limit`, by calling `make(index)` on its
/// thread. A worker that peeked index i asks ready(i) and, when it
/// is, claims i from the queue and take()s it: a worker never waits. A request due before it is
/// made is late (late()): the worker comes back to it, and the record's schedule lag says so.
/// Lock-free: one producer and a ring of `capacity` slots, each with its own sequence number.
class RequestFeed {
 public:
  using Make = std::function<Prepared(std::size_t index)>;

  /// Starts making the shard's indices below `limit` (kUnbounded: until stopped) at once.
  RequestFeed(load::Shard shard, std::size_t limit, std::size_t capacity, Make make);
  ~RequestFeed();
  RequestFeed(const RequestFeed&) = delete;
  RequestFeed& operator=(const RequestFeed&) = delete;

  /// Blocks until the ring is full or every request is made, or making stopped: a phase starts
  /// with its feed full.
  void wait_full() const;
  /// True when schedule index `index` (of the shard, not yet taken) is made.
  bool ready(std::size_t index) const;
  /// Index `index`'s request (ready(index) must have been true), once: its slot is then free for
  /// the feed to make another. Any worker thread; each index is taken by the one that claimed it.
  std::shared_ptr<const Prepared> take(std::size_t index);
  /// Notes that `index` was due and not made yet (counted once per index).
  void late(std::size_t index);

  /// Stops making (the phase ended or was canceled) and joins the thread.
  void stop();
  /// Requests that were due before they were made.
  std::int64_t lates() const { return lates_.load(std::memory_order_relaxed); }
  /// True when make() threw: error() rethrows it.
  bool failed() const { return failed_.load(std::memory_order_acquire); }
  void rethrow_error() const;

 private:
  struct Slot {
    std::atomic<std::uint64_t> seq{0};  // k: free for ordinal k; k + 1: holds ordinal k
    std::shared_ptr<const Prepared> item;
  };
  /// The position of shard index `index` in the order the feed makes them.
  std::uint64_t ordinal(std::size_t index) const;
  void produce();

  const load::Shard shard_;
  const std::size_t limit_;  // the shard's indices below it are made
  std::atomic<bool> all_made_{false};
  std::vector<Slot> slots_;
  Make make_;
  std::atomic<bool> stopped_{false};
  std::atomic<bool> failed_{false};
  std::exception_ptr error_;
  std::atomic<std::uint64_t> made_{0};
  std::atomic<std::int64_t> lates_{0};
  std::atomic<std::uint64_t> last_late_{~std::uint64_t{0}};
  std::thread thread_;
};

}  // namespace tokenbench::driver
