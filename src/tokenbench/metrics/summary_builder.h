#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <span>
#include <unordered_set>
#include <utility>
#include <vector>

#include "tokenbench/core/request.h"
#include "tokenbench/metrics/job_figures.h"
#include "tokenbench/metrics/streaming_distribution.h"
#include "tokenbench/metrics/summary.h"
#include "tokenbench/metrics/vllm_peaks.h"

namespace tokenbench::metrics {

/// The most values a per-request distribution of the summary (TTFT, TPOT, E2EL, ...) keeps
/// exactly; beyond it the figure's percentiles come from its QuantileSketch, within
/// kDefaultRelativeError, and say so (Distribution::relative_error). 512 KiB per figure.
inline constexpr std::size_t kDefaultExactLimit = std::size_t{1} << 16;
/// The same for the per-gap distributions (ITL and ITL per token), which have a value per chunk:
/// 2 MiB each, so that a run of a quarter of a million chunks keeps its ITL percentiles exact and
/// a longer one's memory stays flat (issue 27: a value per chunk grew 16 MB by 200,000 requests).
inline constexpr std::size_t kDefaultGapExactLimit = std::size_t{1} << 18;

/// The most intervals [starts[i], ends[i]) in flight at once (the two in any order, each sorted
/// here); an end comes before a start at the same instant, so touching intervals do not overlap.
std::int64_t peak_in_flight(std::vector<core::Nanos> starts, std::vector<core::Nanos> ends);

/// The sweep behind peak_in_flight, for sorted `starts` and `ends`: after the last of each run of
/// equal starts, calls visit(start, level) with the intervals in flight just after it (those
/// started at or before it, less those ended at or before it).
template <typename Visit>
void sweep_in_flight(std::span<const core::Nanos> starts, std::span<const core::Nanos> ends,
                     Visit&& visit) {
  std::size_t e = 0;
  for (std::size_t s = 0; s < starts.size(); ++s) {
    if (s + 1 < starts.size() && starts[s + 1] == starts[s]) continue;
    while (e < ends.size() && ends[e] <= starts[s]) ++e;
    visit(starts[s], static_cast<std::int64_t>(s + 1) - static_cast<std::int64_t>(e));
  }
}

/// Builds the Summary of a run from its records fed one at a time, in any order, without keeping
/// them: counters and sums are exact, and each distribution is a StreamingDistribution (exact up
/// to `exact_limit` values, a sketch beyond). summarize() is this builder fed every record, so
/// its figures are the same bit for bit while no distribution passes the limit.
///
/// max_concurrency_observed is the most of the records' in_flight (the engine's count at each
/// send); for records without it (earlier versions' files), a sweep over their send and end
/// stamps, kept for it (16 bytes a request). What still grows with the run: the distinct session
/// ids of a multi-turn run.
///
/// Not thread-safe: one thread feeds it.
class SummaryBuilder {
 public:
  /// Throws std::invalid_argument for a percentile outside [0, 100].
  explicit SummaryBuilder(const SummaryOptions& options,
                          std::size_t exact_limit = kDefaultExactLimit,
                          std::size_t gap_exact_limit = kDefaultGapExactLimit);

  /// Makes room for `records` requests with `chunks` chunks in all (summarize knows them; a
  /// builder fed during a run does not need it).
  void reserve(std::size_t records, std::size_t chunks);

  /// Counts `record` (any phase: only Phase::kMeasure records are aggregated).
  void add(const core::RequestRecord& record);

  /// The summary of every record added. May be called more than once.
  Summary finish() const;

  /// The figures report.html charts, over the records added so far (successful, streamed,
  /// measured, last attempts: the summary's own).
  const StreamingDistribution& ttft() const { return figures_.ttft; }
  const StreamingDistribution& tpot() const { return figures_.tpot; }
  const StreamingDistribution& itl() const { return figures_.itl; }
  const StreamingDistribution& e2el() const { return figures_.e2el; }

 private:
  // One distribution per figure, as Summary names them.
  struct Figures {
    Figures(std::size_t limit, std::size_t gap_limit);
    StreamingDistribution ttft, ttfr, ttfa, tpot, itl, itl_per_token, tokens_per_chunk, e2el,
        decode_tps, output_tps, total_tps, queue, ttft_from_intended, e2el_from_intended,
        input_tokens, output_tokens;
    std::int64_t chunk_usage_requests = 0;  ///< whose chunks the server's usage counted
  };
  // The figures of one turn index of a multi-turn run.
  struct Turn {
    explicit Turn(std::size_t limit) : ttft(limit), e2el(limit) {}
    StreamingDistribution ttft, e2el;
    double input = 0;
    std::int64_t completed = 0;
    CacheTally cache;
  };

  void add_measured(const core::RequestRecord& r);
  void add_successful(const core::RequestRecord& r);
  void add_to_turn(const core::RequestRecord& r);
  void add_distributions(Summary& s) const;

  std::size_t exact_limit_;
  Summary counts_;  // the counters, totals and maps; distributions are filled by finish()
  std::vector<double> percentiles_;  // s.percentiles plus kConsolePercentiles
  Figures figures_;
  JobsBuilder jobs_;
  std::map<std::int32_t, Turn> turns_;
  std::unordered_set<std::int64_t> sessions_;
  VllmPeaksBuilder peaks_;
  std::int64_t peak_counted_ = 0;          // the most in_flight of the measured records
  std::vector<core::Nanos> sends_, ends_;  // of measured records without in_flight
  std::int64_t chunk_counted_ = 0;    // successful requests whose output was counted from chunks
  core::Nanos start_ = core::kNever;  // the measure phase's first scheduled (or sent) stamp
  core::Nanos end_ = core::kNever;    // and its last transfer end (or last chunk)
};

}  // namespace tokenbench::metrics
