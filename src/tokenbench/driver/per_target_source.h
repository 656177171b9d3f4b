#pragma once

#include <atomic>
#include <cstddef>
#include <deque>
#include <memory>
#include <mutex>
#include <vector>

#include "tokenbench/client/request_source.h"
#include "tokenbench/core/clock.h"

namespace tokenbench::driver {

/// The measure phase of targets compared with --target-load each: every target has its own
/// source (its own schedule, at the full --request-rate) and its own `limit` slots
/// (--max-concurrency), so that a slow target never holds a fast one's slots and each target's
/// throughput is its own. A record's target is RequestRecord::endpoint.
///
/// A worker asks the targets in turn, starting one further each call; a target whose slots are
/// all taken is passed over until one of its requests ends (done()). A request that waited for
/// its target's slot is scheduled at the later of its due time and the moment that slot freed,
/// so that queue time stays the client's own delay. Thread-safe: a mutex per target, taken once
/// per request handed out and once per request ended; the sources outlive this one.
class PerTargetSource final : public client::RequestSource {
 public:
  /// `sources[t]` serves target t; `limit` slots per target, 0 for none.
  PerTargetSource(const std::vector<client::RequestSource*>& sources, std::size_t limit);

  core::Nanos phase_start() const override { return lanes_.front()->source->phase_start(); }
  core::Phase phase() const override { return lanes_.front()->source->phase(); }
  bool next(core::Nanos now, core::Nanos slot_freed, client::SourcedRequest& request,
            core::Nanos& next_due, bool& finished) override;
  void done(const core::RequestRecord& record) override;
  void stop() override;

 private:
  struct Lane {
    client::RequestSource* source = nullptr;
    std::mutex mutex;
    std::deque<core::Nanos> free;  // when each free slot freed, oldest first
    std::atomic<bool> finished{false};
  };
  std::vector<std::unique_ptr<Lane>> lanes_;
  const std::size_t limit_;
  std::atomic<std::size_t> turn_{0};
};

}  // namespace tokenbench::driver
