#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "tokenbench/core/clock.h"
#include "tokenbench/core/request.h"
#include "tokenbench/metrics/stride_sample.h"
#include "tokenbench/report/job_gantt.h"

namespace tokenbench::report {

/// What report.html shows of the requests themselves, fed one record at a time (in the figures'
/// time: under --sim-time, metrics::in_model_time's), in any order, without keeping them:
///  - the per-request timeline: every request while there are at most twice
///    kMaxTimelineRequests, then an even sample by order of arrival (every k-th, k a power of 2),
///    shown in order of schedule and sampled evenly again to kMaxTimelineRequests;
///  - the series over time (output tokens per second, completions, errors, the most requests in
///    flight) in bins of 1 s or a power of 2 seconds, fine bins merged as the run grows, so that
///    it never holds more than about 2 x kMaxSeriesPoints bins;
///  - the errors by class and status, with one example each;
///  - an agentic job run's sample of jobs, their calls' stamps (JobGanttBuilder).
/// The most requests in flight in each bin comes from the records' in_flight (the engine's count
/// at each send) and the requests spanning each bin's start; for records without it (earlier
/// versions' files) from a sweep over their send and end stamps, kept for it (16 bytes each).
///
/// Not thread-safe.
class RunPageBuilder {
 public:
  RunPageBuilder();
  void add(const core::RequestRecord& record);

  /// The page's time origin: the earliest scheduled, sent or end stamp; 0 when none.
  core::Nanos t0() const;
  /// The report data's "timeline", "series" and "errors" (html_report_data).
  nlohmann::json timeline() const;
  nlohmann::json series() const;
  nlohmann::json errors() const;
  /// An agentic job run's sample of jobs for the Gantt chart (JobGanttBuilder::jobs).
  nlohmann::json jobs() const { return gantt_.jobs(); }

 private:
  struct Row {
    core::Nanos scheduled, sent, first_token, done;
    std::string outcome;
  };
  struct Bin {
    double tokens = 0, completed = 0, errors = 0;
    // Requests in flight (of records with in_flight) at the bin's start, and the most at a send
    // within it; once merged, the most at any instant of the merged bins kept.
    double at_start = 0, peak = 0;
  };
  struct ErrorGroup {
    std::size_t count = 0;
    std::string example;
  };

  void add_to_series(const core::RequestRecord& r);
  void add_in_flight(const core::RequestRecord& r);
  std::vector<double> stamp_peaks(std::size_t bins, std::int64_t first, core::Nanos width) const;
  Bin& bin_at(core::Nanos t);
  void coarsen();

  core::Nanos t0_ = core::kNever;
  core::Nanos t1_ = core::kNever;
  metrics::StrideSample<Row> rows_;        // the timeline's, twice the rows shown at most
  core::Nanos bin_width_ = 1'000'000'000;  // 1 s times a power of 2
  std::int64_t first_bin_ = 0;             // the index (t / bin_width_, floored) of bins_[0]
  std::vector<Bin> bins_;
  std::vector<core::Nanos> sends_, ends_;  // of records without in_flight
  std::map<std::pair<std::string, int>, ErrorGroup> errors_;
  JobGanttBuilder gantt_;
};

}  // namespace tokenbench::report
