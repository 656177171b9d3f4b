#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "tokenbench/core/request.h"
#include "tokenbench/core/run_config.h"
#include "tokenbench/metrics/buckets.h"
#include "tokenbench/metrics/checks.h"
#include "tokenbench/metrics/steady_state.h"
#include "tokenbench/metrics/stream_check.h"
#include "tokenbench/metrics/summary_builder.h"
#include "tokenbench/report/mix_figures.h"
#include "tokenbench/report/otlp_export.h"
#include "tokenbench/report/replicas.h"
#include "tokenbench/report/run_page.h"
#include "tokenbench/telemetry/timings_account.h"

namespace tokenbench::report {

/// Every figure of one results directory, fed one record at a time as it is written (on the
/// recorder's thread during a run, or while `report` reads requests.jsonl), without keeping the
/// records: the summary, the self-checks, the stream check, the server's timings, --buckets,
/// the replicas, the mix's members and report.html's data. write_run_outputs renders them. Its
/// memory is bounded by the exact limits of its distributions (metrics/summary_builder.h) and
/// report.html's sample (run_page.h), save 32 bytes of stamps per request for the most in flight at
/// once.
///
/// Not thread-safe: one thread feeds it, then the same or another (after a join) reads it.
class RunFigures {
 public:
  /// For `config`'s percentiles, --goodput, --buckets, replicas and --sim-time. Throws
  /// std::invalid_argument on a --goodput or --buckets that does not parse (checked before a
  /// run starts).
  explicit RunFigures(const core::RunConfig& config);

  /// Counts one record as measured (real time); under --sim-time its figures are taken in the
  /// model's time (metrics/model_time.h), its client checks in real time.
  void add(const core::RequestRecord& record);

  /// Records added.
  std::int64_t records() const { return records_; }
  double factor() const { return factor_; }
  const metrics::SummaryBuilder& summary() const { return summary_; }
  const metrics::ChecksBuilder& checks() const { return checks_; }
  const metrics::StreamCheckBuilder& stream() const { return stream_; }
  const telemetry::TimingsBuilder& timings() const { return timings_; }
  const std::vector<metrics::BucketsBuilder>& buckets() const { return buckets_; }
  const std::optional<ReplicasBuilder>& replicas() const { return replicas_; }
  /// --lora-modules, --model-mix: each member's figures (null without a mix).
  const std::optional<MixBuilder>& mix() const { return mix_; }
  const RunPageBuilder& page() const { return page_; }
  /// The GenAI semantic conventions' histograms (--otlp-endpoint's export).
  const GenAiFigures& genai() const { return genai_; }
  /// --steady-state auto: the run's time series, on the real clock (null when off).
  const std::optional<metrics::SteadyStateBuilder>& steady() const { return steady_; }

 private:
  void add_figures(const core::RequestRecord& record);

  double factor_;
  std::int64_t records_ = 0;
  metrics::SummaryBuilder summary_;
  metrics::ChecksBuilder checks_;
  metrics::StreamCheckBuilder stream_;
  telemetry::TimingsBuilder timings_;
  std::vector<metrics::BucketsBuilder> buckets_;
  std::optional<ReplicasBuilder> replicas_;
  std::optional<MixBuilder> mix_;
  RunPageBuilder page_;
  GenAiFigures genai_;
  std::optional<metrics::SteadyStateBuilder> steady_;
};

/// The summary options of `config`: its percentiles and --goodput's SLO.
metrics::SummaryOptions summary_options(const core::RunConfig& config);

}  // namespace tokenbench::report
