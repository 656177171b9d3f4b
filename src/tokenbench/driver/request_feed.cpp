#include "tokenbench/driver/request_feed.h"

#include <algorithm>
#include <chrono>

namespace tokenbench::driver {

namespace {

// How long the feed sleeps when its ring is full, and wait_full between looks: short beside the
// time a full ring lasts, and no wake-up call on a worker's path.
constexpr auto kPoll = std::chrono::microseconds(300);

}  // namespace

RequestFeed::RequestFeed(load::Shard shard, std::size_t limit, std::size_t capacity, Make make)
    : shard_(load::Shard{shard.first, std::max<std::size_t>(1, shard.stride),
                         std::max<std::size_t>(1, shard.group)}),
      limit_(limit),
      slots_(std::max<std::size_t>(1, capacity)),
      make_(std::move(make)) {
  for (std::size_t j = 0; j < slots_.size(); ++j) slots_[j].seq.store(j, std::memory_order_relaxed);
  thread_ = std::thread([this] { produce(); });
}

RequestFeed::~RequestFeed() { stop(); }

std::uint64_t RequestFeed::ordinal(std::size_t index) const {
  const std::size_t group = index / shard_.group;
  return static_cast<std::uint64_t>((group - shard_.first) / shard_.stride * shard_.group +
                                    index % shard_.group);
}

void RequestFeed::produce() {
  const std::uint64_t capacity = slots_.size();
  std::size_t index = shard_.begin();
  for (std::uint64_t k = 0; index < limit_; ++k, index = shard_.after(index)) {
    Slot& slot = slots_[k % capacity];
    while (slot.seq.load(std::memory_order_acquire) != k) {  // its request of the last lap
      if (stopped_.load(std::memory_order_relaxed)) return;
      std::this_thread::sleep_for(kPoll);
    }
    if (stopped_.load(std::memory_order_relaxed)) return;
    try {
      slot.item = std::make_shared<const Prepared>(make_(index));
    } catch (...) {
      error_ = std::current_exception();
      failed_.store(true, std::memory_order_release);
      return;
    }
    slot.seq.store(k + 1, std::memory_order_release);
    made_.store(k + 1, std::memory_order_release);
  }
  all_made_.store(true, std::memory_order_release);
}

void RequestFeed::wait_full() const {
  while (made_.load(std::memory_order_acquire) < slots_.size() &&
         !all_made_.load(std::memory_order_acquire) && !failed() &&
         !stopped_.load(std::memory_order_relaxed)) {
    std::this_thread::sleep_for(kPoll);
  }
}

bool RequestFeed::ready(std::size_t index) const {
  const std::uint64_t k = ordinal(index);
  return slots_[k % slots_.size()].seq.load(std::memory_order_acquire) == k + 1;
}

std::shared_ptr<const Prepared> RequestFeed::take(std::size_t index) {
  const std::uint64_t k = ordinal(index);
  Slot& slot = slots_[k % slots_.size()];
  if (slot.seq.load(std::memory_order_acquire) != k + 1) return nullptr;
  std::shared_ptr<const Prepared> item = std::move(slot.item);
  slot.seq.store(k + slots_.size(), std::memory_order_release);
  return item;
}

void RequestFeed::late(std::size_t index) {
  const std::uint64_t k = ordinal(index);
  if (last_late_.exchange(k, std::memory_order_relaxed) != k) {
    lates_.fetch_add(1, std::memory_order_relaxed);
  }
}

void RequestFeed::stop() {
  stopped_.store(true, std::memory_order_relaxed);
  if (thread_.joinable()) thread_.join();
}

void RequestFeed::rethrow_error() const {
  if (failed()) std::rethrow_exception(error_);
}

}  // namespace tokenbench::driver
