#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tokenbench/core/request.h"
#include "tokenbench/metrics/cache_tally.h"
#include "tokenbench/metrics/job_figures.h"
#include "tokenbench/metrics/percentile.h"
#include "tokenbench/metrics/vllm_peaks.h"

namespace tokenbench::metrics {

/// Percentiles always computed, so that vLLM's p50/p90/p95/p99 keys are always present.
inline constexpr std::array<double, 4> kVllmPercentiles{50, 90, 95, 99};

/// Percentiles of the console's percentile table (evalscope's rows); always computed.
inline constexpr std::array<double, 10> kConsolePercentiles{10, 25, 50, 66, 75, 80, 90, 95, 98, 99};

/// Client queue time (p99, ms) above which the summary warns that the client lagged.
inline constexpr double kClientLagWarnMs = 5.0;

/// ITL p50 below this share of TPOT p50 gets a warning that tokens arrive in bursts.
inline constexpr double kBurstItlShare = 0.2;

/// Service-level objectives for goodput, in milliseconds; an absent one is not checked.
struct SloSpec {
  std::optional<double> ttft_ms;
  std::optional<double> tpot_ms;
  std::optional<double> itl_ms;  ///< every inter-chunk gap of the request must be within it
  std::optional<double> e2el_ms;
  /// An agentic job's latency (--dataset jobs): job goodput counts the jobs within it
  /// (metrics/job_figures.h); a request is not checked against it.
  std::optional<double> job_ms;

  /// True when no per-request objective is set (job_ms aside: request goodput is then undefined).
  bool empty() const { return !ttft_ms && !tpot_ms && !itl_ms && !e2el_ms; }
};

/// Parses SLO items of the form KEY:MS, KEY in ttft, tpot, itl, e2el (as vLLM's --goodput) or
/// job (a job's latency, --dataset jobs). An
/// item may itself hold several, separated by commas or spaces ("ttft:200,tpot:50"). Throws
/// std::invalid_argument with a one-line message naming the bad item on a malformed item, an
/// unknown key, a negative or non-finite value, or a key given twice.
SloSpec parse_slo(const std::vector<std::string>& items);

/// Renders an SloSpec back as "ttft:200 tpot:50" (empty when no objective is set).
std::string to_string(const SloSpec& slo);

/// True when a successful `record` meets every objective of `slo`. A figure that is undefined for
/// the request fails its objective, except TPOT and ITL for a request without a decode phase
/// (at most one output token, or fewer than two chunks), which meet them vacuously.
bool meets_slo(const core::RequestRecord& record, const SloSpec& slo);

/// What summarize computes besides the fixed sets above.
struct SummaryOptions {
  std::vector<double> percentiles{50, 90, 95, 99};  ///< user-requested, in [0, 100]
  SloSpec slo;
};

/// The figures of one turn index of a multi-turn run, over its successful measured requests.
struct TurnFigures {
  std::int32_t turn = 0;
  std::int64_t completed = 0;
  Distribution ttft_ms;
  Distribution e2el_ms;
  double mean_input_tokens = kUndefined;
  CacheTally cache;  ///< the server's prefix cache over the turn's requests
};

/// Aggregates of the measure phase of one run. Plain data, built by summarize.
struct Summary {
  std::int64_t measured = 0;   ///< measure-phase records
  std::int64_t completed = 0;  ///< measure-phase records with record.ok()
  std::int64_t failed = 0;     ///< measured - completed
  /// Measure-phase requests that the run's own stop (a signal, --fail-fast, --abort-on-error-rate)
  /// cut short: neither a success nor an error of the server, so not in measured nor in failed.
  std::int64_t canceled = 0;
  /// Failed attempts that --retries replaced with another attempt (not in measured), by class.
  std::int64_t retried_attempts = 0;
  std::map<std::string, std::int64_t> retried_by_class;
  std::int64_t completed_after_retry = 0;  ///< completed requests whose last attempt was a retry
  std::int64_t warmup = 0;                 ///< warmup-phase records (not aggregated)
  std::int64_t cooldown = 0;               ///< cooldown-phase records (not aggregated)
  std::int64_t dropped = 0;                ///< measure-phase records left out by --drop-first
  std::int64_t streamed = 0;               ///< successful streamed requests
  std::int64_t non_streamed = 0;           ///< successful non-streamed requests (sample aside)
  /// Successful requests of --nonstream-sample: in completed, the token totals and throughputs,
  /// out of every distribution and of goodput (metrics/stream_check.h compares them).
  std::int64_t nonstream_sample = 0;

  std::map<std::string, std::int64_t> errors;  ///< failed requests per error class name
  std::map<int, std::int64_t> http_status;     ///< failed requests per HTTP status (non-zero)
  std::map<std::string, std::string> error_examples;  ///< first error message per class

  double duration_s = kUndefined;              ///< max(done) - min(scheduled) over measured records
  std::int64_t total_input_tokens = 0;         ///< successful requests
  std::int64_t total_output_tokens = 0;        ///< successful requests
  double request_throughput = kUndefined;      ///< completed / duration, req/s
  double output_throughput = kUndefined;       ///< total output / duration, tok/s
  double total_token_throughput = kUndefined;  ///< (total input + output) / duration, tok/s

  /// Reasoning models: successful requests whose stream carried reasoning, and the reasoning
  /// tokens the servers' usage details counted (over the requests that had the figure).
  std::int64_t reasoning_requests = 0;
  std::int64_t total_reasoning_tokens = 0;
  std::int64_t reasoning_tokens_reported = 0;  ///< successful requests whose usage had the figure

  /// The server's prefix cache over the successful requests, as their usage said (hit rate:
  /// cached over prompt tokens of the requests that said).
  CacheTally cache;

  /// Embeddings: the inputs embedded by successful requests, and their rates.
  std::int64_t total_inputs = 0;
  double input_throughput = kUndefined;        ///< total_inputs / duration, inputs/s
  double input_token_throughput = kUndefined;  ///< total input tokens / duration, tok/s

  SloSpec slo;                          ///< the objectives goodput was measured against
  std::int64_t good_completed = 0;      ///< successful requests meeting every objective
  double request_goodput = kUndefined;  ///< good_completed / duration; undefined without SLOs

  /// Percentiles reported as vLLM keys: the requested ones plus kVllmPercentiles, ascending.
  std::vector<double> percentiles;

  // Distributions over successful measured requests (queue time: over every measured request
  // that was sent). Each holds `percentiles` plus kConsolePercentiles.
  Distribution ttft_ms;
  /// Reasoning models (empty unless some request reasoned): time to the first reasoning token,
  /// and to the first answer token (content or tool call).
  Distribution ttfr_ms;
  Distribution ttfa_ms;
  Distribution tpot_ms;
  Distribution itl_ms;            ///< pooled over requests
  Distribution itl_per_token_ms;  ///< pooled over requests
  /// Output tokens each content chunk carried, pooled over the chunks of streamed requests: above
  /// 1 when a server sends several tokens at once (speculative decoding, buffering).
  Distribution tokens_per_chunk;
  /// Requests whose chunks' counts came from the server's running usage in each chunk
  /// (continuous_usage_stats); the others' are apportioned from the text (docs/METRICS.md).
  std::int64_t chunk_usage_requests = 0;
  Distribution e2el_ms;
  Distribution decode_tps;  ///< per request: (output_tokens - 1) / (last - first chunk)
  Distribution output_tps;  ///< per request: output_tokens / E2EL (evalscope's "Output (tok/s)")
  Distribution total_tps;   ///< per request
  Distribution queue_time_ms;
  /// From the intended arrival (open-loop runs; empty otherwise): what a user arriving on
  /// schedule saw, the wait for a free slot included (coordinated omission made visible).
  Distribution ttft_from_intended_ms;
  Distribution e2el_from_intended_ms;
  Distribution input_tokens;
  Distribution output_tokens;

  /// Successful requests per token-count source name (core::to_string(TokenSource)).
  std::map<std::string, std::int64_t> prompt_sources;
  std::map<std::string, std::int64_t> output_sources;

  /// Multi-turn runs: sessions that had a measured request, and the figures by turn index
  /// (ascending); empty otherwise. TTFT by turn shows what a prefix cache saves as history grows.
  std::int64_t sessions = 0;
  std::vector<TurnFigures> by_turn;

  /// Agentic job runs (--dataset jobs): the jobs' figures; nullopt otherwise.
  std::optional<JobFigures> jobs;

  /// Most measured requests in flight at once (between send and transfer end).
  std::int64_t max_concurrency_observed = 0;

  /// vLLM's max_output_tokens_per_s and max_concurrent_requests.
  VllmPeaks vllm_peaks;

  /// Plain-language caveats about the figures (client lag, no successes, undefined TTFT, ...).
  std::vector<std::string> warnings;
};

/// Aggregates `records` (any order, any phase). Only Phase::kMeasure records are aggregated;
/// warmup and cooldown are only counted. Pure; throws std::invalid_argument for a percentile
/// outside [0, 100].
Summary summarize(const std::vector<core::RequestRecord>& records, const SummaryOptions& options);

/// Most measure-phase requests in flight at once among `records`: the most of their in_flight
/// (the engine's count at each send), and for records without it (earlier versions' files) a
/// sweep over their sent and done stamps, where a request ending at the instant another starts
/// does not overlap it.
std::int64_t max_concurrency_observed(const std::vector<core::RequestRecord>& records);

}  // namespace tokenbench::metrics
