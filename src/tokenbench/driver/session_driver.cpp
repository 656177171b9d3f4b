#include "tokenbench/driver/session_driver.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <utility>

#include "tokenbench/core/approx_tokens.h"
#include "tokenbench/core/ideal_cache.h"
#include "tokenbench/core/json_parse.h"

namespace tokenbench::driver {

SessionDriver::SessionDriver(const std::vector<workload::Session>& sessions,
                             const load::ArrivalSchedule& schedule, core::Nanos phase_start,
                             core::Nanos deadline, SessionOptions options)
    : sessions_(sessions),
      schedule_(schedule),
      phase_start_(phase_start),
      deadline_(deadline),
      options_(std::move(options)),
      adapter_(client::make_adapter(options_.api)) {
  if (sessions_.empty()) throw std::invalid_argument("a multi-turn run needs sessions");
  if (options_.shard.stride == 0) options_.shard.stride = 1;
  started_ = options_.shard.first;
}

std::size_t SessionDriver::started() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return (started_ - options_.shard.first) / options_.shard.stride;
}

void SessionDriver::stop() {
  std::lock_guard<std::mutex> lock(mutex_);
  stopped_ = true;
}

bool SessionDriver::take(core::Nanos now, Turn& turn, core::Nanos& next_due, bool& finished) {
  std::lock_guard<std::mutex> lock(mutex_);
  next_due = core::kNever;
  // A new session: due at its arrival, admitted while the session limit allows.
  const auto [halted, can_start, start_due] =
      unit_start(schedule_, phase_start_, deadline_, now, started_, stopped_);
  const bool session_room = options_.max_units == 0 || active_.size() < options_.max_units;
  // The earliest waiting turn of a session already under way (ties: the older session).
  State* best = nullptr;
  std::int64_t best_session = 0;
  if (!halted) {
    for (auto& [session, state] : active_) {
      if (state->in_flight) continue;
      if (best == nullptr || state->due < best->due) {
        best = state.get();
        best_session = session;
      }
    }
  }
  const bool start_now =
      can_start && session_room && start_due <= now && (best == nullptr || start_due < best->due);
  if (start_now) {
    const auto session = static_cast<std::int64_t>(started_);
    auto state = std::make_unique<State>();
    state->source = &sessions_[started_ % sessions_.size()];
    state->due = start_due;
    started_ += options_.shard.stride;
    build(session, *state, turn);
    active_.emplace(session, std::move(state));
    return true;
  }
  if (best != nullptr && best->due <= now) {
    build(best_session, *best, turn);
    return true;
  }
  if (best != nullptr) next_due = best->due;
  if (can_start && session_room && (next_due == core::kNever || start_due < next_due)) {
    next_due = start_due;
  }
  if (deadline_ != core::kNever && next_due != core::kNever && next_due >= deadline_) {
    next_due = core::kNever;
  }
  // Nothing more will come once no session can start and none is under way.
  finished = (active_.empty() && !can_start) || halted;
  return false;
}

void SessionDriver::build(std::int64_t session, State& state, Turn& turn) {
  const core::RequestSpec& source = state.source->turns[static_cast<std::size_t>(state.next_turn)];
  // The user's part of this turn: its messages, or one user message with the prompt.
  std::string user;
  if (!source.messages_json.empty()) {
    const auto messages = core::parse_json_or_discarded(source.messages_json);
    if (messages.is_array()) {
      for (const auto& m : messages) user += (user.empty() ? "" : ",") + m.dump();
    }
  }
  if (user.empty()) {
    user = nlohmann::json{{"role", "user"}, {"content", source.prompt}}.dump(
        -1, ' ', false, nlohmann::json::error_handler_t::replace);
  }
  state.spec = source;
  state.spec.messages_json = "[" + state.history + (state.history.empty() ? "" : ",") + user + "]";
  if (state.next_turn > 0) {
    // The prompt holds the whole history: the earlier turns' counts plus this one's, and the
    // replies approximated; the server's usage replaces the figure when it sends one.
    state.spec.input_tokens += state.history_tokens;
    state.spec.input_source = core::TokenSource::kApproximate;
  }
  state.body = adapter_->build_body(state.spec, options_.body);
  core::set_prefix_blocks(state.spec, options_.ideal_block);
  state.history += (state.history.empty() ? "" : ",") + user;
  state.history_tokens += source.input_tokens;
  state.in_flight = true;
  turn.spec = &state.spec;
  turn.body = &state.body;
  turn.id = next_id_++ * options_.shard.stride + options_.shard.first;
  turn.session = session;
  turn.turn = state.next_turn;
  turn.due = state.due;
}

void SessionDriver::done(const core::RequestRecord& record) {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto it = active_.find(record.session);
  if (it == active_.end()) return;
  State& state = *it->second;
  state.in_flight = false;
  ++state.next_turn;
  if (!record.ok() || stopped_ ||
      static_cast<std::size_t>(state.next_turn) >= state.source->turns.size()) {
    active_.erase(it);  // the conversation is over (or broke: a user does not go on after one)
    return;
  }
  state.history +=
      "," + nlohmann::json{{"role", "assistant"}, {"content", record.answer_text}}.dump(
                -1, ' ', false, nlohmann::json::error_handler_t::replace);
  state.history_tokens += core::approx_token_count(record.answer_text);
  const double think = options_.think.seconds(options_.seed, record.session, state.next_turn);
  state.due = record.done + static_cast<core::Nanos>(think * 1e9);
}

}  // namespace tokenbench::driver
