#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "tokenbench/client/api_adapter.h"
#include "tokenbench/client/request_source.h"
#include "tokenbench/core/clock.h"
#include "tokenbench/core/request.h"
#include "tokenbench/driver/unit_options.h"
#include "tokenbench/load/arrival_schedule.h"
#include "tokenbench/load/think_time.h"
#include "tokenbench/load/work_queue.h"
#include "tokenbench/workload/workload.h"

namespace tokenbench::driver {

/// What a SessionDriver needs beside its sessions (max_units counts sessions). Plain data.
struct SessionOptions : UnitOptions {
  load::ThinkTime think;
  std::uint64_t seed = 0;
};

/// Hands out the turns of a phase's sessions (to workers through a UnitSource). Session i
/// (cycled over `sessions`) starts at the schedule's arrival i; each later turn is due when the
/// previous reply ended plus a think time, and carries the history: every earlier user turn and the
/// assistant's actual reply to it (RequestRecord::answer_text), in order. A failed turn ends its
/// session. No session starts, and no turn is handed out, at or after `deadline`. Thread-safe (one
/// mutex: taken once per turn, never per token).
class SessionDriver {
 public:
  /// One turn to send: the spec and body stay valid until done() is called for its record.
  struct Turn {
    /// The request to send (UnitSource): a session's later turns arrive when their user is back
    /// from thinking; its first turn arrives on a schedule only in an open loop.
    void fill(client::SourcedRequest& request, bool open_loop) const {
      request.spec = spec;
      request.body = body;
      request.id = id;
      request.due = due;
      request.intended = open_loop || turn > 0 ? due : core::kNever;
      request.session = session;
      request.turn = turn;
    }
    const core::RequestSpec* spec = nullptr;
    const std::string* body = nullptr;
    std::uint64_t id = 0;  ///< the record's id: turns are numbered in the order they are sent
    std::int64_t session = 0;
    std::int32_t turn = 0;
    core::Nanos due = 0;  ///< when it was due (the session's arrival, or the end of the think time)
  };

  SessionDriver(const std::vector<workload::Session>& sessions,
                const load::ArrivalSchedule& schedule, core::Nanos phase_start,
                core::Nanos deadline, SessionOptions options);

  /// Claims a turn due at `now` into `turn` and returns true; otherwise returns false with
  /// `next_due` the earliest moment a known turn becomes due (kNever: none is known yet) and
  /// `finished` true when no turn will ever come again.
  using Item = Turn;
  bool take(core::Nanos now, Turn& turn, core::Nanos& next_due, bool& finished);
  /// A turn's request ended for good (after its retries): the record's answer_text joins the
  /// session's history and the next turn is due after a think time.
  void done(const core::RequestRecord& record);
  /// No turn is handed out after this call.
  void stop();

  /// Sessions started so far.
  std::size_t started() const;

 private:
  struct State {
    const workload::Session* source = nullptr;
    std::int32_t next_turn = 0;
    core::Nanos due = 0;
    bool in_flight = false;
    std::string history;  // the JSON messages so far, without the closing ']'
    std::int64_t history_tokens = 0;
    core::RequestSpec spec;  // the turn in flight
    std::string body;
  };

  // Builds turn `state.next_turn` of `session` into `turn` (under the lock).
  void build(std::int64_t session, State& state, Turn& turn);

  const std::vector<workload::Session>& sessions_;
  const load::ArrivalSchedule& schedule_;
  const core::Nanos phase_start_;
  const core::Nanos deadline_;
  SessionOptions options_;
  std::unique_ptr<client::ApiAdapter> adapter_;

  mutable std::mutex mutex_;
  std::size_t started_ = 0;
  std::uint64_t next_id_ = 0;
  bool stopped_ = false;
  std::map<std::int64_t, std::unique_ptr<State>> active_;  // by session index
};

}  // namespace tokenbench::driver
