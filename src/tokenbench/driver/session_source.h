#pragma once

#include <algorithm>

#include "tokenbench/client/request_source.h"
#include "tokenbench/driver/session_driver.h"

namespace tokenbench::driver {

/// A multi-turn phase's requests for the engine's workers: the turns `driver` hands out, each
/// recorded with its session and turn, their ends reported back so that the next turn carries
/// the reply. Thread-safe as SessionDriver is; the driver outlives the source.
class SessionSource final : public client::RequestSource {
 public:
  /// `open_loop`: sessions arrive at --request-rate (their first turns keep the arrival as
  /// RequestRecord::intended).
  SessionSource(SessionDriver& driver, core::Nanos phase_start, core::Phase phase, bool open_loop)
      : driver_(driver), phase_start_(phase_start), phase_(phase), open_loop_(open_loop) {}

  core::Nanos phase_start() const override { return phase_start_; }
  core::Phase phase() const override { return phase_; }
  bool wants_answers() const override { return true; }

  bool next(core::Nanos now, core::Nanos slot_freed, client::SourcedRequest& request,
            core::Nanos& next_due, bool& finished) override {
    SessionDriver::Turn turn;
    if (!driver_.take(now, turn, next_due, finished)) return false;
    request = client::SourcedRequest{};
    request.spec = turn.spec;
    request.body = turn.body;
    request.id = turn.id;
    request.phase = phase_;
    request.due = turn.due;
    // A session's later turns arrive when their user is back from thinking; its first turn
    // arrives on a schedule only in an open loop.
    request.intended = open_loop_ || turn.turn > 0 ? turn.due : core::kNever;
    request.scheduled = std::max(turn.due, slot_freed);
    request.session = turn.session;
    request.turn = turn.turn;
    return true;
  }
  void done(const core::RequestRecord& record) override { driver_.done(record); }
  void stop() override { driver_.stop(); }

 private:
  SessionDriver& driver_;
  const core::Nanos phase_start_;
  const core::Phase phase_;
  const bool open_loop_;
};

}  // namespace tokenbench::driver
