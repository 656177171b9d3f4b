#pragma once

#include <algorithm>

#include "tokenbench/client/request_source.h"

namespace tokenbench::driver {

/// A phase of requests made of units of several calls (a multi-turn session's turns, an agentic
/// job's calls) for the engine's workers: what `Driver` hands out (SessionDriver, JobDriver),
/// each end reported back so that the unit's next calls become due and carry the replies.
/// `Driver` has take(now, Item&, next_due, finished), done(record) and stop(), thread-safe; its
/// Item fills the request (fill(request, open_loop): spec, body, id, due, intended and what
/// the record carries of its unit). The driver outlives the source.
template <typename Driver>
class UnitSource final : public client::RequestSource {
 public:
  /// `open_loop`: units arrive at --request-rate (their first calls keep the arrival as
  /// RequestRecord::intended).
  UnitSource(Driver& driver, core::Nanos phase_start, core::Phase phase, bool open_loop)
      : driver_(driver), phase_start_(phase_start), phase_(phase), open_loop_(open_loop) {}

  core::Nanos phase_start() const override { return phase_start_; }
  core::Phase phase() const override { return phase_; }
  bool wants_answers() const override { return true; }

  bool next(core::Nanos now, core::Nanos slot_freed, client::SourcedRequest& request,
            core::Nanos& next_due, bool& finished) override {
    typename Driver::Item item;
    if (!driver_.take(now, item, next_due, finished)) return false;
    request = client::SourcedRequest{};
    request.phase = phase_;
    item.fill(request, open_loop_);
    request.scheduled = std::max(request.due, slot_freed);
    return true;
  }
  void done(const core::RequestRecord& record) override { driver_.done(record); }
  void stop() override { driver_.stop(); }

 private:
  Driver& driver_;
  const core::Nanos phase_start_;
  const core::Phase phase_;
  const bool open_loop_;
};

}  // namespace tokenbench::driver
