#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "tokenbench/client/api_adapter.h"
#include "tokenbench/client/http_engine.h"
#include "tokenbench/load/arrival_schedule.h"
#include "tokenbench/workload/workload.h"

namespace tokenbench::load {

/// The pause between a reply and the session's next turn (--think-time). Plain data.
struct ThinkTime {
  enum class Kind { kFixed, kUniform, kExponential };
  Kind kind = Kind::kFixed;
  double a = 0;  ///< fixed: the seconds; uniform: the low end; exponential: the mean
  double b = 0;  ///< uniform: the high end

  /// The pause before turn `turn` of session `session`, in seconds: a function of the seed, the
  /// session and the turn alone, so a run repeats whatever order its turns end in.
  double seconds(std::uint64_t seed, std::int64_t session, std::int32_t turn) const;
};

/// Parses "2" or "0.5" (seconds), "uniform:LO,HI" or "exponential:MEAN". Throws
/// std::invalid_argument with a one-line message naming the accepted forms.
ThinkTime parse_think_time(const std::string& text);

/// What a SessionDriver needs beside its sessions. Plain data.
struct SessionOptions {
  core::ApiKind api = core::ApiKind::kOpenAIChat;
  client::BodyOptions body;
  ThinkTime think;
  /// --concurrency-unit session with --max-concurrency: at most this many sessions between their
  /// first turn's send and their last turn's end (0: no limit on sessions).
  std::size_t max_sessions = 0;
  std::uint64_t seed = 0;
};

/// Hands out the turns of a phase's sessions (client::TurnSource). Session i (cycled over
/// `sessions`) starts at the schedule's arrival i; each later turn is due when the previous reply
/// ended plus a think time, and carries the history: every earlier user turn and the assistant's
/// actual reply to it (RequestRecord::answer_text), in order. A failed turn ends its session. No
/// session starts, and no turn is handed out, at or after `deadline`. Thread-safe (one mutex:
/// taken once per turn, never per token).
class SessionDriver : public client::TurnSource {
 public:
  SessionDriver(const std::vector<workload::Session>& sessions, const ArrivalSchedule& schedule,
                core::Nanos phase_start, core::Nanos deadline, SessionOptions options);

  bool take(core::Nanos now, Turn& turn, core::Nanos& next_due, bool& finished) override;
  void done(const core::RequestRecord& record) override;
  void stop() override;

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
  const ArrivalSchedule& schedule_;
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

}  // namespace tokenbench::load
