#pragma once

// An in-process Comm for the protocol's tests: ranks are threads of one process, messages are
// queued in memory, and a test marks a rank lost by hand.

#include <atomic>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "tokenbench/distributed/comm.h"

namespace tokenbench::distributed::testing {

class LocalWorld {
 public:
  explicit LocalWorld(int size) : size_(size), lost_(static_cast<std::size_t>(size)) {}
  int size() const { return size_; }
  void deliver(int from, int to, Tag tag, std::string bytes) {
    std::lock_guard<std::mutex> lock(mutex_);
    queues_[{from, to, tag}].push_back(std::move(bytes));
  }
  std::optional<std::string> take(int from, int to, Tag tag) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto& q = queues_[{from, to, tag}];
    if (q.empty()) return std::nullopt;
    std::string out = std::move(q.front());
    q.pop_front();
    return out;
  }
  void lose(int rank) { lost_[static_cast<std::size_t>(rank)].store(true); }
  bool lost(int rank) const { return lost_[static_cast<std::size_t>(rank)].load(); }

 private:
  const int size_;
  std::mutex mutex_;
  std::map<std::tuple<int, int, Tag>, std::deque<std::string>> queues_;
  std::vector<std::atomic<bool>> lost_;
};

class LocalComm final : public Comm {
 public:
  LocalComm(LocalWorld& world, int rank) : world_(world), rank_(rank) {}
  int rank() const override { return rank_; }
  int size() const override { return world_.size(); }
  void send(int to, Tag tag, std::string bytes) override {
    if (!world_.lost(to)) world_.deliver(rank_, to, tag, std::move(bytes));
  }
  std::optional<std::string> poll(int from, Tag tag) override {
    return world_.take(from, rank_, tag);
  }
  bool lost(int rank) const override { return rank != rank_ && world_.lost(rank); }
  void close(int) override {}

 private:
  LocalWorld& world_;
  const int rank_;
};

}  // namespace tokenbench::distributed::testing
