#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "tokenbench/client/api_adapter.h"
#include "tokenbench/client/request_source.h"
#include "tokenbench/core/clock.h"
#include "tokenbench/core/request.h"
#include "tokenbench/driver/unit_options.h"
#include "tokenbench/load/arrival_schedule.h"
#include "tokenbench/load/work_queue.h"
#include "tokenbench/workload/jobs.h"

namespace tokenbench::driver {

/// What a JobDriver needs beside its jobs (max_units counts jobs).
using JobOptions = UnitOptions;

/// Hands out the calls of a phase's agentic jobs (workload/jobs.h) to the engine's workers
/// through a UnitSource. Job k (cycled over `jobs`) starts at the schedule's arrival k with the
/// calls that wait for none; a call is due when the last call it waits for has ended plus its
/// delay_ms, and its messages carry the replies its "from" messages name, as they were streamed
/// (RequestRecord::answer_text). A failed call ends its job: the calls after it are not sent. No
/// job starts, and no call is handed out, at or after `deadline`. Thread-safe (one mutex: taken
/// once per call, never per token).
class JobDriver {
 public:
  /// One call to send: spec, body and tag stay valid until done() is called for its record.
  struct Call {
    /// The request to send (UnitSource): a call after others is due when they end plus its
    /// delay; a job's first calls arrive on a schedule only in an open loop.
    void fill(client::SourcedRequest& request, bool open_loop) const {
      request.spec = spec;
      request.body = body;
      request.job = tag;
      request.id = id;
      request.due = due;
      request.intended = open_loop || !root ? due : core::kNever;
    }
    const core::RequestSpec* spec = nullptr;
    const std::string* body = nullptr;
    const core::JobCallTag* tag = nullptr;
    std::uint64_t id = 0;  ///< the record's id: calls are numbered in the order they are sent
    core::Nanos due = 0;  ///< when it was due (the job's arrival, or its dependencies' end + delay)
    bool root = false;    ///< a call that waits for none: due at the job's arrival
  };

  JobDriver(const std::vector<workload::Job>& jobs, const load::ArrivalSchedule& schedule,
            core::Nanos phase_start, core::Nanos deadline, JobOptions options);

  /// Claims a call due at `now` into `call` and returns true; otherwise returns false with
  /// `next_due` the earliest moment a known call becomes due (kNever: none is known yet) and
  /// `finished` true when no call will ever come again.
  using Item = Call;
  bool take(core::Nanos now, Call& call, core::Nanos& next_due, bool& finished);
  /// A call's request ended for good (after its retries).
  void done(const core::RequestRecord& record);
  /// No call is handed out after this call.
  void stop();

  /// Jobs started so far.
  std::size_t started() const;

 private:
  struct CallState {
    std::size_t waiting = 0;   // calls it waits for that have not ended
    core::Nanos deps_end = 0;  // the latest end among them
    bool ended = false;
    std::string answer;      // its reply's text, for the "from" messages of later calls
    core::RequestSpec spec;  // while in flight
    std::string body;
    core::JobCallTag tag;
  };
  struct JobState {
    const workload::Job* source = nullptr;
    std::vector<CallState> calls;
    std::size_t in_flight = 0;
    std::size_t ended = 0;
    bool failed = false;
  };
  using Ready = std::tuple<core::Nanos, std::int64_t, std::uint32_t>;  // due, job, call

  void start_job(std::int64_t job, core::Nanos due);
  void build(std::int64_t job, JobState& state, std::uint32_t index, Call& call);

  const std::vector<workload::Job>& jobs_;
  // For each job of the file, each call's dependents (the calls that wait for it).
  std::vector<std::vector<std::vector<std::uint32_t>>> dependents_;
  const load::ArrivalSchedule& schedule_;
  const core::Nanos phase_start_;
  const core::Nanos deadline_;
  JobOptions options_;
  std::unique_ptr<client::ApiAdapter> adapter_;

  mutable std::mutex mutex_;
  std::size_t started_ = 0;
  std::uint64_t next_id_ = 0;
  bool stopped_ = false;
  core::Nanos room_freed_ = 0;  // when the last job ended (a job under max_jobs waits for room)
  std::map<std::int64_t, std::unique_ptr<JobState>> active_;  // by job number
  std::set<Ready> ready_;
  std::unordered_map<std::uint64_t, std::pair<std::int64_t, std::uint32_t>> in_flight_;  // by id
};

}  // namespace tokenbench::driver
