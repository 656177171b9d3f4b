#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "tokenbench/core/request.h"
#include "tokenbench/metrics/percentile.h"
#include "tokenbench/metrics/streaming_distribution.h"

namespace tokenbench::metrics {

/// The non-streamed median per-token latency must differ from the streamed one by more than this
/// share, and the E2EL medians by more than kStreamCheckMinMs, for the check to flag it.
inline constexpr double kStreamCheckShare = 0.2;
inline constexpr double kStreamCheckMinMs = 5.0;
/// Fewer successful requests than this on either side: no verdict.
inline constexpr std::int64_t kStreamCheckMinCount = 3;

/// E2EL of one side of the comparison: whole and per output token (E2EL / output tokens).
struct StreamSide {
  std::int64_t count = 0;  ///< successful requests
  double e2el_mean_ms = kUndefined;
  double e2el_p50_ms = kUndefined;
  double e2el_p95_ms = kUndefined;
  double per_token_mean_ms = kUndefined;
  double per_token_p50_ms = kUndefined;
  double per_token_p95_ms = kUndefined;
};

/// --nonstream-sample's comparison (summary.json `tokenbench.checks.stream_vs_nonstream`;
/// docs/METRICS.md "Stream against non-stream"): the E2EL of the non-streamed sample against the
/// streamed requests'.
struct StreamCheck {
  StreamSide streamed;
  StreamSide non_streamed;
  double e2el_p50_ratio = kUndefined;       ///< non-streamed p50 / streamed p50
  double per_token_p50_ratio = kUndefined;  ///< the same, per output token
  bool flagged = false;
  std::string reading;  ///< one line: the verdict and what it points at
};

/// The check over the measured, successful, last attempts of `records`; nullopt when none of
/// them is of the non-streamed sample (RequestRecord::nonstream_sample). Pure.
std::optional<StreamCheck> stream_check(const std::vector<core::RequestRecord>& records);

/// stream_check fed one record at a time, in any order, in bounded memory (each side's figures a
/// StreamingDistribution, exact up to `exact_limit` values). Not thread-safe.
class StreamCheckBuilder {
 public:
  explicit StreamCheckBuilder(std::size_t exact_limit = std::size_t{1} << 16);
  void add(const core::RequestRecord& record);
  std::optional<StreamCheck> finish() const;

 private:
  bool sampled_ = false;
  StreamingDistribution e2el_[2];  // [0] streamed, [1] the non-streamed sample
  StreamingDistribution per_token_[2];
};

nlohmann::json stream_check_to_json(const StreamCheck& check);

/// One console line of the Checks block.
std::string render_stream_check(const StreamCheck& check);

}  // namespace tokenbench::metrics
