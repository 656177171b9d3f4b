#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tokenbench/core/clock.h"
#include "tokenbench/core/request.h"

namespace tokenbench::report {

/// The most jobs report.html draws as a Gantt chart.
inline constexpr std::size_t kGanttJobs = 12;

/// An even sample of an agentic job run's measured jobs, their calls' stamps kept for
/// report.html's Gantt chart: every job whose number is a multiple of a stride that doubles
/// whenever more than twice kGanttJobs are kept, so records may come in any order and the sample
/// stays bounded. Not thread-safe.
class JobGanttBuilder {
 public:
  /// Keeps a measured final attempt of a sampled job's call; ignores the rest.
  void add(const core::RequestRecord& r);
  /// report.html's "jobs": at most kGanttJobs jobs, in order of number, each {n, name, calls:
  /// [{call, depth, sent, first_token, done, ok}]} with its stamps in ms since the job's first
  /// send, its calls in order of send; an empty array outside job runs.
  nlohmann::json jobs() const;

 private:
  struct Call {
    std::string id;
    std::int32_t depth = 0;
    core::Nanos sent = core::kNever, first_token = core::kNever, done = core::kNever;
    bool ok = false;
  };
  struct Job {
    std::string name;
    std::vector<Call> calls;
  };
  std::map<std::int64_t, Job> kept_;
  std::int64_t stride_ = 1;
};

}  // namespace tokenbench::report
