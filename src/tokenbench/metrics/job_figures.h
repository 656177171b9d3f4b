#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "tokenbench/core/request.h"
#include "tokenbench/metrics/cache_tally.h"
#include "tokenbench/metrics/percentile.h"
#include "tokenbench/metrics/streaming_distribution.h"

namespace tokenbench::metrics {

/// TTFT and TPOT of the successful measured calls of one call depth, or of one call id.
struct CallGroupFigures {
  std::string key;  ///< the depth ("0", "1", ...) or the call's id
  std::int64_t completed = 0;
  Distribution ttft_ms;
  Distribution tpot_ms;
  CacheTally cache;  ///< the server's prefix cache over these calls
};

/// The figures of an agentic job run (--dataset jobs), over its measured jobs (docs/METRICS.md,
/// "Jobs"). A job's figures come from its calls' records alone (RequestRecord::job).
struct JobFigures {
  std::int64_t jobs = 0;        ///< jobs with a measured call
  std::int64_t completed = 0;   ///< every call ended with success
  std::int64_t failed = 0;      ///< a call failed; the calls after it were not sent
  std::int64_t incomplete = 0;  ///< the run ended before every call was sent, none failing
  /// Job latency: from its first call's send to the end of its last call (completed jobs).
  Distribution job_ms;
  /// From its first call's send to the first token of its final call (the call no other waits
  /// for; of several, the last to end).
  Distribution final_ttft_ms;
  double jobs_per_s = kUndefined;  ///< completed jobs over the measure phase's duration
  /// Jobs in progress on average (the sum of job latencies over the duration, Little's law), and
  /// jobs per hour per job in progress: what one concurrent user gets done.
  double mean_jobs_in_progress = kUndefined;
  double jobs_per_hour_per_user = kUndefined;
  // Per completed job, mean over them.
  double mean_calls = kUndefined;
  double mean_input_tokens = kUndefined;
  double mean_output_tokens = kUndefined;
  /// Prompt tokens the server took from its cache, per job (0 for a call whose usage did not say).
  double mean_cached_tokens = kUndefined;
  /// The critical path (from the last call to end back through the dependency that ended last):
  /// its calls' LLM time (send to end), the delays the job file asked between them (delay_ms),
  /// and the rest (the client's slots and schedule); the three add up to the job's latency.
  double mean_critical_llm_ms = kUndefined;
  double mean_critical_delay_ms = kUndefined;
  double mean_critical_other_ms = kUndefined;
  double critical_llm_share = kUndefined;  ///< LLM time over job latency, summed over jobs
  /// --goodput job:MS: completed jobs within MS, and their rate.
  std::optional<double> slo_job_ms;
  std::int64_t good_jobs = 0;
  double job_goodput = kUndefined;
  std::vector<CallGroupFigures> by_depth;  ///< ascending depth
  std::vector<CallGroupFigures> by_call;   ///< by call id, in id order (at most kMaxCallIds)
  bool call_ids_capped = false;            ///< more distinct call ids than kMaxCallIds
};

/// The most distinct call ids whose figures a run keeps (a job file's ids repeat across jobs).
inline constexpr std::size_t kMaxCallIds = 64;

/// Builds JobFigures from records fed one at a time, in any order. A job's calls are held until
/// its last comes (its record says how many the job has): memory grows with the jobs in flight
/// at once, and with the jobs that failed or were cut short, whose later calls never come (held
/// to the end, a few dozen bytes a call). Not thread-safe: one thread feeds it.
class JobsBuilder {
 public:
  JobsBuilder(std::span<const double> percentiles, std::size_t exact_limit,
              std::optional<double> slo_job_ms);

  /// Counts `record` when it is a measured final attempt of a job's call; ignores the rest.
  void add(const core::RequestRecord& record);
  /// The figures of the jobs added; `duration_s` is the measure phase's. nullopt when no job
  /// call was added. May be called more than once.
  std::optional<JobFigures> finish(double duration_s) const;

 private:
  struct Call {
    std::string id;
    std::vector<std::string> after;
    core::Nanos sent = core::kNever, first_token = core::kNever, done = core::kNever;
    double delay_ms = 0;
    bool ok = false;
    std::int64_t input = 0, output = 0, cached = 0;
  };
  struct Group {
    explicit Group(std::size_t limit) : ttft(limit), tpot(limit) {}
    StreamingDistribution ttft, tpot;
    std::int64_t completed = 0;
    CacheTally cache;
  };
  // One completed job's figures, folded into the totals.
  void close(const std::vector<Call>& calls);
  static void add_to(Group& group, const core::RequestRecord& record);

  std::vector<double> percentiles_;
  std::size_t exact_limit_;
  std::optional<double> slo_job_ms_;
  std::map<std::int64_t, std::vector<Call>> pending_;  // by job number, until its last call
  std::int64_t failed_ = 0;                            // jobs whose every call came, one failing
  std::int64_t completed_ = 0, good_ = 0, calls_ = 0, input_ = 0, output_ = 0, cached_ = 0;
  double latency_sum_ms_ = 0, llm_ms_ = 0, delay_ms_ = 0;
  StreamingDistribution job_ms_, final_ttft_ms_;
  std::map<std::int32_t, Group> by_depth_;
  std::map<std::string, Group> by_call_;
  bool capped_ = false;
};

}  // namespace tokenbench::metrics
