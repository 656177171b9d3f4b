#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "tokenbench/core/clock.h"
#include "tokenbench/core/request.h"

namespace tokenbench::metrics {

// Per-request figures derived from one core::RequestRecord, exactly as docs/METRICS.md defines
// them (DESIGN.md §5; the defaults follow vLLM). Each function is pure; std::nullopt (or an empty
// vector) means "undefined for this request", never zero. Times are milliseconds, rates tokens per
// second.

/// Time to first token: first content chunk minus send time. Streamed requests only.
std::optional<double> ttft_ms(const core::RequestRecord& record);

/// Time to first reasoning token: first chunk of reasoning (thinking) text minus send time.
/// Streamed requests that reasoned only.
std::optional<double> ttfr_ms(const core::RequestRecord& record);

/// Time to first answer token: first chunk of answer content or of a tool call minus send time.
/// Streamed requests that answered only. Without reasoning it equals TTFT.
std::optional<double> ttfa_ms(const core::RequestRecord& record);

/// End-to-end latency: last content chunk minus send time for a streamed request (the usage chunk
/// and [DONE] are excluded), transfer end minus send time for a non-streamed one.
std::optional<double> e2el_ms(const core::RequestRecord& record);

/// Time per output token, excluding the first: (E2EL - TTFT) / (output_tokens - 1), defined when
/// TTFT and E2EL are and output_tokens > 1.
std::optional<double> tpot_ms(const core::RequestRecord& record);

/// Inter-token latencies: the gaps between consecutive content chunks (chunks[i].t -
/// chunks[i-1].t), in arrival order. Empty when fewer than two chunks arrived.
std::vector<double> itl_ms(const core::RequestRecord& record);

/// ITL split per token: a gap g before a chunk that carried k >= 1 tokens contributes k values
/// g / k. A chunk recorded with k <= 0 tokens counts as one.
std::vector<double> itl_per_token_ms(const core::RequestRecord& record);

/// Calls `each(gap_ms, tokens)` for every gap itl_ms lists, in order, with the tokens it counts
/// for in itl_per_token_ms (the chunk after it: k, or 1 when k <= 0), making no list.
template <typename F>
void for_each_gap(const core::RequestRecord& record, F&& each) {
  for (std::size_t i = 1; i < record.chunks.size(); ++i) {
    const int tokens = record.chunks[i].tokens > 0 ? record.chunks[i].tokens : 1;
    each(core::to_ms(record.chunks[i].t - record.chunks[i - 1].t), tokens);
  }
}

/// Per-request decode rate: (output_tokens - 1) / (last content chunk - first content chunk) in
/// seconds (DESIGN.md's per-request TPS). Defined for streamed requests with output_tokens > 1
/// and a positive span.
std::optional<double> decode_tps(const core::RequestRecord& record);

/// Per-request output rate as evalscope's per-request "Output (tok/s)": output_tokens / E2EL in
/// seconds (the wait for the first token included). Defined when E2EL is defined and positive.
std::optional<double> output_tps(const core::RequestRecord& record);

/// Per-request total rate: (prompt_tokens + output_tokens) / E2EL in seconds, as evalscope's
/// per-request "Total (tok/s)". Defined when E2EL is defined and positive.
std::optional<double> total_tps(const core::RequestRecord& record);

/// Client queue time: send time minus scheduled time. Large values mean a late client.
std::optional<double> queue_time_ms(const core::RequestRecord& record);

/// TTFT as a user arriving on schedule saw it: first content chunk minus the intended arrival
/// (RequestRecord::intended), so the wait for a free slot and the client's send lag count.
/// Defined when TTFT is and the record has an intended arrival (open-loop runs).
std::optional<double> ttft_from_intended_ms(const core::RequestRecord& record);

/// E2EL from the intended arrival: E2EL's end (as e2el_ms) minus RequestRecord::intended.
/// Defined when E2EL is and the record has an intended arrival.
std::optional<double> e2el_from_intended_ms(const core::RequestRecord& record);

/// Every per-request figure of one record, computed at once.
struct RequestMetrics {
  std::optional<double> ttft_ms;
  std::optional<double> e2el_ms;
  std::optional<double> tpot_ms;
  std::vector<double> itl_ms;
  std::vector<double> itl_per_token_ms;
  std::optional<double> decode_tps;
  std::optional<double> output_tps;
  std::optional<double> total_tps;
  std::optional<double> queue_time_ms;
  std::optional<double> ttft_from_intended_ms;
  std::optional<double> e2el_from_intended_ms;
};

/// Computes every per-request figure of `record`.
RequestMetrics derive_request_metrics(const core::RequestRecord& record);

}  // namespace tokenbench::metrics
