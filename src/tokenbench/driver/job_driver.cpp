#include "tokenbench/driver/job_driver.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <utility>

#include "tokenbench/core/approx_tokens.h"
#include "tokenbench/core/ideal_cache.h"
#include "tokenbench/core/json_parse.h"

namespace tokenbench::driver {

JobDriver::JobDriver(const std::vector<workload::Job>& jobs, const load::ArrivalSchedule& schedule,
                     core::Nanos phase_start, core::Nanos deadline, JobOptions options)
    : jobs_(jobs),
      schedule_(schedule),
      phase_start_(phase_start),
      deadline_(deadline),
      options_(std::move(options)),
      adapter_(client::make_adapter(options_.api)) {
  if (jobs_.empty()) throw std::invalid_argument("a job run needs jobs");
  if (options_.shard.stride == 0) options_.shard.stride = 1;
  started_ = options_.shard.first;
  dependents_.reserve(jobs_.size());
  for (const workload::Job& job : jobs_) {
    std::vector<std::vector<std::uint32_t>> next(job.calls.size());
    for (std::uint32_t i = 0; i < job.calls.size(); ++i) {
      for (const std::uint32_t dep : job.calls[i].after) next[dep].push_back(i);
    }
    dependents_.push_back(std::move(next));
  }
}

std::size_t JobDriver::started() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return (started_ - options_.shard.first) / options_.shard.stride;
}

void JobDriver::stop() {
  std::lock_guard<std::mutex> lock(mutex_);
  stopped_ = true;
}

void JobDriver::start_job(std::int64_t job, core::Nanos due) {
  auto state = std::make_unique<JobState>();
  state->source = &jobs_[static_cast<std::size_t>(job) % jobs_.size()];
  state->calls.resize(state->source->calls.size());
  for (std::uint32_t i = 0; i < state->calls.size(); ++i) {
    const workload::JobCall& source = state->source->calls[i];
    CallState& call = state->calls[i];
    call.waiting = source.after.size();
    call.deps_end = due;
    // A call that waits for none is sent its delay after the job's start.
    if (call.waiting == 0)
      ready_.emplace(due + static_cast<core::Nanos>(source.delay_ms * 1e6), job, i);
  }
  active_.emplace(job, std::move(state));
}

bool JobDriver::take(core::Nanos now, Call& call, core::Nanos& next_due, bool& finished) {
  std::lock_guard<std::mutex> lock(mutex_);
  next_due = core::kNever;
  const auto [halted, can_start, start_due] =
      unit_start(schedule_, phase_start_, deadline_, now, started_, stopped_);
  const bool job_room = options_.max_units == 0 || active_.size() < options_.max_units;
  const bool waiting = !halted && !ready_.empty();
  // A new job's first calls go before a waiting call due later (ties: the job under way).
  if (can_start && job_room && start_due <= now &&
      (!waiting || start_due < std::get<0>(*ready_.begin()))) {
    // Under a job limit a job also waits for room: it is due when the last job ended, as a
    // request waiting for a free slot is (RequestRecord::scheduled).
    start_job(static_cast<std::int64_t>(started_),
              options_.max_units > 0 ? std::max(start_due, room_freed_) : start_due);
    started_ += options_.shard.stride;
  }
  if (!halted && !ready_.empty() && std::get<0>(*ready_.begin()) <= now) {
    const auto [due, job, index] = *ready_.begin();
    ready_.erase(ready_.begin());
    build(job, *active_.at(job), index, call);
    call.due = due;
    return true;
  }
  if (!halted && !ready_.empty()) next_due = std::get<0>(*ready_.begin());
  if (can_start && job_room && (next_due == core::kNever || start_due < next_due)) {
    next_due = start_due;
  }
  if (deadline_ != core::kNever && next_due != core::kNever && next_due >= deadline_) {
    next_due = core::kNever;
  }
  // Nothing more will come once no job can start and none is under way.
  finished = (active_.empty() && !can_start) || halted;
  return false;
}

void JobDriver::build(std::int64_t job, JobState& state, std::uint32_t index, Call& call) {
  const workload::JobCall& source = state.source->calls[index];
  CallState& c = state.calls[index];
  std::string messages = "[";
  std::int64_t reply_tokens = 0;
  for (const workload::JobMessage& m : source.messages) {
    if (messages.size() > 1) messages += ',';
    if (m.from < 0) {
      messages += workload::message_json(*state.source, m);
      continue;
    }
    const std::string& reply = state.calls[static_cast<std::size_t>(m.from)].answer;
    nlohmann::json message =
        m.json.empty() ? nlohmann::json{{"role", "assistant"}} : core::parse_json(m.json);
    message["content"] = reply;
    messages += message.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    reply_tokens += core::approx_token_count(reply);
  }
  messages += ']';
  c.spec = core::RequestSpec{};
  c.spec.messages_json = std::move(messages);
  c.spec.max_tokens = source.max_tokens;
  c.spec.input_tokens = source.input_tokens + reply_tokens;
  // The replies put in are approximated; the server's usage replaces the figure when it sends one.
  c.spec.input_source = reply_tokens > 0 ? core::TokenSource::kApproximate : source.input_source;
  c.body = adapter_->build_body(c.spec, options_.body);
  core::set_prefix_blocks(c.spec, options_.ideal_block);
  c.tag = core::JobCallTag{};
  c.tag.job = job;
  c.tag.name = state.source->name;
  c.tag.call = source.id;
  c.tag.depth = source.depth;
  c.tag.calls = static_cast<std::int32_t>(state.calls.size());
  c.tag.delay_ms = source.delay_ms;
  for (const std::uint32_t dep : source.after) c.tag.after.push_back(state.source->calls[dep].id);
  call.spec = &c.spec;
  call.body = &c.body;
  call.tag = &c.tag;
  call.id = next_id_++ * options_.shard.stride + options_.shard.first;
  call.root = source.after.empty();
  ++state.in_flight;
  in_flight_.emplace(call.id, std::make_pair(job, index));
}

void JobDriver::done(const core::RequestRecord& record) {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto sent = in_flight_.find(record.id);
  if (sent == in_flight_.end()) return;
  const auto [job, index] = sent->second;
  in_flight_.erase(sent);
  const auto it = active_.find(job);
  if (it == active_.end()) return;
  JobState& state = *it->second;
  CallState& c = state.calls[index];
  --state.in_flight;
  ++state.ended;
  c.ended = true;
  c.spec = core::RequestSpec{};
  c.body.clear();
  c.body.shrink_to_fit();
  if ((!record.ok() || stopped_) && !state.failed) {
    state.failed = true;  // its calls still waiting are never sent
    for (auto r = ready_.begin(); r != ready_.end();) {
      r = std::get<1>(*r) == job ? ready_.erase(r) : std::next(r);
    }
  }
  if (!state.failed) {
    c.answer = record.answer_text;
    const workload::Job& source = *state.source;
    for (const std::uint32_t next :
         dependents_[static_cast<std::size_t>(job) % jobs_.size()][index]) {
      CallState& n = state.calls[next];
      n.deps_end = std::max(n.deps_end, record.done);
      if (--n.waiting == 0) {
        const auto delay = static_cast<core::Nanos>(source.calls[next].delay_ms * 1e6);
        ready_.emplace(n.deps_end + delay, job, next);
      }
    }
  }
  // The job is over when every call has ended, or when one failed and none is in flight.
  if (state.ended == state.calls.size() || (state.failed && state.in_flight == 0)) {
    active_.erase(it);
    room_freed_ = std::max(room_freed_, record.done);
  }
}

}  // namespace tokenbench::driver
