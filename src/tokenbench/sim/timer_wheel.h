#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "tokenbench/core/clock.h"

namespace tokenbench::sim {

/// A hashed timing wheel of intrusive entries: many deadlines behind one timer. Time is cut into
/// ticks; an entry sits in the slot of its deadline's tick, so scheduling and cancelling are O(1)
/// and never allocate. Deadlines beyond the wheel's horizon (slots x tick) wait in an overflow
/// list until they come within it. The tick only sorts entries: advance() compares every
/// candidate's exact deadline with `now`, so nothing fires before its deadline, and everything
/// whose deadline has passed fires in the same advance().
///
/// Not thread-safe: one owner thread (in the simulator, one io loop).
class TimerWheel {
  struct List;

 public:
  /// A deadline, embedded in its owner. Scheduled in at most one wheel at a time; it must be
  /// cancelled (or have fired) before it is destroyed or moved.
  class Entry {
   public:
    Entry() = default;
    Entry(const Entry&) = delete;
    Entry& operator=(const Entry&) = delete;

    /// In a wheel, waiting to fire (or collected to fire in the advance() under way).
    bool scheduled() const { return list_ != nullptr; }
    /// The deadline last given to schedule().
    core::Clock::time_point due() const { return due_; }

   private:
    friend class TimerWheel;
    Entry* next_ = nullptr;
    Entry** pprev_ = nullptr;  ///< the pointer that points at this entry
    List* list_ = nullptr;     ///< the list holding it; null when not scheduled
    core::Clock::time_point due_{};
  };

  /// `slots` is rounded up to a power of two; ticks count from `origin`.
  TimerWheel(core::Clock::duration tick, std::size_t slots, core::Clock::time_point origin);
  ~TimerWheel();  ///< unlinks the entries left, without firing them
  TimerWheel(const TimerWheel&) = delete;
  TimerWheel& operator=(const TimerWheel&) = delete;

  /// Schedules `entry` to fire at `due` (moves it if it was scheduled). A deadline that has
  /// passed fires at the next advance().
  void schedule(Entry& entry, core::Clock::time_point due);

  /// Unschedules `entry`; a no-op when it is not scheduled. Safe from inside a fire callback,
  /// for any entry.
  void cancel(Entry& entry);

  /// Fires every entry whose deadline is at or before `now`: each is unscheduled, then passed to
  /// `fire(Entry&)`, in the order of their ticks (and, within one tick, in the order they were
  /// scheduled). `fire` may schedule or cancel any entry; one scheduled for `now` or earlier
  /// fires at the next advance(). Returns how many fired. `now` never moves the wheel back.
  template <typename Fire>
  std::size_t advance(core::Clock::time_point now, Fire&& fire) {
    collect(now);
    std::size_t fired = 0;
    while (Entry* e = firing_->head) {
      unlink(*e);
      ++fired;
      fire(*e);
    }
    return fired;
  }

  /// The earliest deadline of the entries scheduled (nullopt when none). May be earlier than
  /// every deadline left after cancellations (never later): an advance() at that time then fires
  /// nothing and corrects it.
  std::optional<core::Clock::time_point> next_due() const;

  /// Entries scheduled.
  std::size_t size() const { return size_; }

  core::Clock::duration tick() const { return tick_; }

 private:
  // A singly linked list with back pointers (O(1) unlink), appended at its tail.
  struct List {
    Entry* head = nullptr;
    Entry** tail = &head;
    core::Clock::time_point min_due = core::Clock::time_point::max();  ///< may be stale-early
  };

  std::int64_t tick_of(core::Clock::time_point t) const;
  void link(List& list, Entry& e);
  void unlink(Entry& e);
  void place(Entry& e);  ///< into its slot, or the overflow list beyond the horizon
  /// Moves every entry due by `now` to firing_, advances the cursor to `now`'s tick and brings
  /// overflow entries within the horizon into their slots.
  void collect(core::Clock::time_point now);
  /// Moves the entries of `list` due by `now` to firing_; recomputes its min_due.
  void collect_list(List& list, core::Clock::time_point now);
  std::size_t slot_of(const List& list) const {
    return static_cast<std::size_t>(&list - slots_.get());
  }
  bool is_slot(const List* list) const {
    return list >= slots_.get() && list < slots_.get() + slot_count_;
  }
  void mark(std::size_t slot, bool occupied);

  core::Clock::duration tick_;
  core::Clock::time_point origin_;
  std::size_t slot_count_;               ///< a power of two
  std::unique_ptr<List[]> slots_;        ///< slot i holds ticks equal to i mod slot_count_
  std::vector<std::uint64_t> occupied_;  ///< a bit per slot: not empty
  std::unique_ptr<List> overflow_;       ///< ticks at or beyond cursor_ + slot_count_
  std::unique_ptr<List> firing_;         ///< collected by the advance() under way
  std::int64_t cursor_ = 0;              ///< the tick of the last advance()
  std::size_t size_ = 0;
};

}  // namespace tokenbench::sim
