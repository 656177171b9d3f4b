#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tokenbench/core/request.h"
#include "tokenbench/metrics/percentile.h"
#include "tokenbench/metrics/streaming_distribution.h"

namespace tokenbench::telemetry {

/// Mean, median and 95th percentile of one per-request figure, in milliseconds.
struct TimingStat {
  std::size_t count = 0;
  double mean_ms = metrics::kUndefined;
  double p50_ms = metrics::kUndefined;
  double p95_ms = metrics::kUndefined;
};

/// The server-side breakdown built from the requests' own `timings` (llama.cpp's server sends
/// one per reply; RequestRecord::server_timings), beside the one /metrics histograms give
/// (server_account.h). Over the requests the run's main figures count: measured, successful,
/// last attempts, the --nonstream-sample set aside. docs/TELEMETRY.md defines each figure.
struct TimingsAccount {
  std::int64_t requests = 0;       ///< requests that carried timings
  std::int64_t prompt_tokens = 0;  ///< sum of prompt_n: prompt tokens the server processed
  std::int64_t cached_tokens = 0;  ///< sum of cache_n: prompt tokens it took from its cache
  TimingStat prefill;              ///< prompt_ms
  TimingStat decode_per_token;     ///< predicted_ms / max(predicted_n - 1, 1)
  TimingStat ttft_remainder;       ///< client TTFT - prompt_ms (streamed requests)
  double client_ttft_mean_ms = metrics::kUndefined;  ///< over the requests of ttft_remainder
  /// ttft_remainder's mean over client_ttft_mean_ms; undefined without streamed requests.
  double remainder_share = metrics::kUndefined;
  std::string reading;  ///< ttft_share_reading(remainder_share); empty when undefined
};

/// The account of `records` (any order, any phase); nullopt when no counted request carried
/// timings. Pure.
std::optional<TimingsAccount> timings_account(const std::vector<core::RequestRecord>& records);

/// timings_account fed one record at a time, in any order, in bounded memory (each figure a
/// metrics::StreamingDistribution, exact up to `exact_limit` values). Not thread-safe.
class TimingsBuilder {
 public:
  explicit TimingsBuilder(std::size_t exact_limit = std::size_t{1} << 16);
  void add(const core::RequestRecord& record);
  std::optional<TimingsAccount> finish() const;

 private:
  std::int64_t requests_ = 0;
  std::int64_t prompt_tokens_ = 0;
  std::int64_t cached_tokens_ = 0;
  metrics::StreamingDistribution prefill_, decode_, remainder_;
  double client_ttft_sum_ = 0;
  std::int64_t client_ttft_count_ = 0;
};

/// summary.json's `tokenbench.server_timings`.
nlohmann::json timings_account_to_json(const TimingsAccount& account);

/// The console's "Server timings" block.
std::string render_timings_account(const TimingsAccount& account);

/// The reading of the share of client TTFT spent outside the engine (queue included when the
/// engine's figure leaves it out): under 10%, 30%, or more. Shared with the /metrics breakdown.
std::string_view ttft_share_reading(double share);

}  // namespace tokenbench::telemetry
