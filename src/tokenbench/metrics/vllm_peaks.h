#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "tokenbench/core/request.h"
#include "tokenbench/metrics/percentile.h"

namespace tokenbench::metrics {

/// vLLM's `max_output_tokens_per_s` and `max_concurrent_requests` (vllm/benchmarks/serve.py,
/// calculate_metrics), over the successful streamed measured requests (docs/METRICS.md,
/// "vLLM-compatible keys"):
/// - the most content chunks (vLLM's token times: the first token, then each gap) falling in one
///   whole second, the seconds counted from the earliest send;
/// - the most requests in flight at once, each from its send to its last content chunk, half-open
///   (one ending when another starts does not overlap it).
struct VllmPeaks {
  double max_output_tokens_per_s = kUndefined;
  std::int64_t max_concurrent_requests = 0;
  /// False once the run passed the builder's limits: then chunks are counted in 10 ms steps (a
  /// chunk within 10 ms of a second's edge may count in the next) and the peak of requests is the
  /// engine's count at each successful request's send (failures in flight included).
  bool exact = true;
};

/// Builds VllmPeaks a record at a time. Exact while it holds at most `request_limit` requests'
/// stamps and `chunk_limit` chunks' (then it keeps 10 ms counts: 1.4 MB a run-hour).
class VllmPeaksBuilder {
 public:
  explicit VllmPeaksBuilder(std::size_t request_limit = std::size_t{1} << 16,
                            std::size_t chunk_limit = std::size_t{1} << 20);

  void add(const core::RequestRecord& r);
  VllmPeaks finish() const;

  /// The records vLLM counts: those every peer view counts (counted_by_peers), with a send and
  /// an end.
  static bool counts(const core::RequestRecord& r);

 private:
  void to_steps();
  void count_step(core::Nanos t);  ///< one chunk at `t` into its 10 ms step

  std::size_t request_limit_, chunk_limit_;
  bool exact_ = true;
  core::Nanos min_start_ = core::kNever;
  core::Nanos max_end_ = core::kNever;
  std::vector<std::pair<core::Nanos, core::Nanos>> spans_;  // exact: (send, end)
  std::vector<core::Nanos> chunks_;                         // exact: every chunk's stamp
  std::vector<std::uint32_t> steps_;                        // past the limits: chunks per 10 ms
  std::int64_t peak_counted_ = 0;                           // past the limits: in_flight
};

}  // namespace tokenbench::metrics
