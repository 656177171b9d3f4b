#include "tokenbench/sim/timer_wheel.h"

#include <algorithm>
#include <bit>

namespace tokenbench::sim {

using core::Clock;

TimerWheel::TimerWheel(Clock::duration tick, std::size_t slots, Clock::time_point origin)
    : tick_(std::max(tick, Clock::duration(1))),
      origin_(origin),
      slot_count_(std::bit_ceil(std::max<std::size_t>(slots, 64))),
      slots_(std::make_unique<List[]>(slot_count_)),
      occupied_(slot_count_ / 64, 0),
      overflow_(std::make_unique<List>()),
      firing_(std::make_unique<List>()) {}

TimerWheel::~TimerWheel() {
  // Owners may outlive the wheel: leave none of them pointing into it.
  auto drop = [](List& list) {
    for (Entry* e = list.head; e != nullptr;) {
      Entry* next = e->next_;
      e->next_ = nullptr;
      e->pprev_ = nullptr;
      e->list_ = nullptr;
      e = next;
    }
  };
  for (std::size_t i = 0; i < slot_count_; ++i) drop(slots_[i]);
  drop(*overflow_);
  drop(*firing_);
}

std::int64_t TimerWheel::tick_of(Clock::time_point t) const {
  if (t <= origin_) return 0;
  return static_cast<std::int64_t>((t - origin_) / tick_);
}

void TimerWheel::link(List& list, Entry& e) {
  e.list_ = &list;
  e.next_ = nullptr;
  e.pprev_ = list.tail;
  *list.tail = &e;
  list.tail = &e.next_;
  list.min_due = std::min(list.min_due, e.due_);
  if (is_slot(&list)) mark(slot_of(list), true);
}

void TimerWheel::unlink(Entry& e) {
  List& list = *e.list_;
  *e.pprev_ = e.next_;
  if (e.next_ != nullptr) {
    e.next_->pprev_ = e.pprev_;
  } else {
    list.tail = e.pprev_;
  }
  e.next_ = nullptr;
  e.pprev_ = nullptr;
  e.list_ = nullptr;
  --size_;
  if (list.head == nullptr) {
    list.min_due = Clock::time_point::max();
    if (is_slot(&list)) mark(slot_of(list), false);
  }
}

void TimerWheel::mark(std::size_t slot, bool occupied) {
  const std::uint64_t bit = std::uint64_t{1} << (slot % 64);
  if (occupied) {
    occupied_[slot / 64] |= bit;
  } else {
    occupied_[slot / 64] &= ~bit;
  }
}

void TimerWheel::place(Entry& e) {
  // A deadline already passed joins the cursor's slot: it fires at the next advance().
  const std::int64_t tick = std::max(tick_of(e.due_), cursor_);
  ++size_;
  if (tick - cursor_ >= static_cast<std::int64_t>(slot_count_)) return link(*overflow_, e);
  link(slots_[static_cast<std::size_t>(tick) & (slot_count_ - 1)], e);
}

void TimerWheel::schedule(Entry& entry, Clock::time_point due) {
  if (entry.scheduled()) unlink(entry);
  entry.due_ = due;
  place(entry);
}

void TimerWheel::cancel(Entry& entry) {
  if (entry.scheduled()) unlink(entry);
}

void TimerWheel::collect_list(List& list, Clock::time_point now) {
  if (list.head == nullptr || list.min_due > now) return;
  Clock::time_point min_left = Clock::time_point::max();
  for (Entry* e = list.head; e != nullptr;) {
    Entry* next = e->next_;
    if (e->due_ <= now) {
      unlink(*e);
      ++size_;  // still scheduled, now in firing_
      link(*firing_, *e);
    } else {
      min_left = std::min(min_left, e->due_);
    }
    e = next;
  }
  list.min_due = min_left;
}

void TimerWheel::collect(Clock::time_point now) {
  const std::int64_t now_tick = std::max(tick_of(now), cursor_);
  // Every slot between the last advance and now, at most one turn of the wheel: a slot only
  // holds ticks within one turn of the cursor, so one visit finds all of them.
  const std::int64_t last =
      std::min(now_tick, cursor_ + static_cast<std::int64_t>(slot_count_) - 1);
  for (std::int64_t t = cursor_; t <= last; ++t) {
    collect_list(slots_[static_cast<std::size_t>(t) & (slot_count_ - 1)], now);
  }
  cursor_ = now_tick;
  // Overflow entries now within the horizon move to their slots (or straight to firing_).
  List& far = *overflow_;
  if (far.head == nullptr ||
      tick_of(far.min_due) >= cursor_ + static_cast<std::int64_t>(slot_count_)) {
    return;
  }
  Clock::time_point min_left = Clock::time_point::max();
  for (Entry* e = far.head; e != nullptr;) {
    Entry* next = e->next_;
    if (e->due_ <= now) {
      unlink(*e);
      ++size_;
      link(*firing_, *e);
    } else if (tick_of(e->due_) < cursor_ + static_cast<std::int64_t>(slot_count_)) {
      unlink(*e);
      place(*e);
    } else {
      min_left = std::min(min_left, e->due_);
    }
    e = next;
  }
  far.min_due = min_left;
}

std::optional<Clock::time_point> TimerWheel::next_due() const {
  if (size_ == 0) return std::nullopt;
  Clock::time_point best = overflow_->min_due;
  if (firing_->head != nullptr) best = std::min(best, firing_->min_due);
  // The first occupied slot from the cursor on holds the earliest ticks of the wheel.
  const std::size_t words = occupied_.size();
  const std::size_t start = static_cast<std::size_t>(cursor_) & (slot_count_ - 1);
  for (std::size_t i = 0; i <= words; ++i) {
    const std::size_t w = (start / 64 + i) % words;
    std::uint64_t bits = occupied_[w];
    if (i == 0) bits &= ~std::uint64_t{0} << (start % 64);  // slots before the cursor: later
    if (i == words) bits &= (std::uint64_t{1} << (start % 64)) - 1;  // wrapped round to them
    if (bits == 0) continue;
    const std::size_t slot = w * 64 + static_cast<std::size_t>(std::countr_zero(bits));
    return std::min(best, slots_[slot].min_due);
  }
  return best;
}

}  // namespace tokenbench::sim
