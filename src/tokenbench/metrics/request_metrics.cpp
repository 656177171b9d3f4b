#include "tokenbench/metrics/request_metrics.h"

namespace tokenbench::metrics {
namespace {

using core::kNever;
using core::Nanos;

std::optional<double> span_ms(Nanos from, Nanos to) {
  if (from == kNever || to == kNever) return std::nullopt;
  return core::to_ms(to - from);
}

}  // namespace

std::optional<double> ttft_ms(const core::RequestRecord& record) {
  if (!record.streamed) return std::nullopt;
  return span_ms(record.sent, record.first_token);
}

std::optional<double> ttfr_ms(const core::RequestRecord& record) {
  if (!record.streamed) return std::nullopt;
  return span_ms(record.sent, record.first_reasoning);
}

std::optional<double> ttfa_ms(const core::RequestRecord& record) {
  if (!record.streamed) return std::nullopt;
  return span_ms(record.sent, record.first_answer);
}

std::optional<double> e2el_ms(const core::RequestRecord& record) {
  return span_ms(record.sent, record.streamed ? record.last_token : record.done);
}

std::optional<double> tpot_ms(const core::RequestRecord& record) {
  if (record.output_tokens <= 1) return std::nullopt;
  if (!ttft_ms(record) || !e2el_ms(record)) return std::nullopt;
  // For a streamed request E2EL - TTFT is last_token - first_token; take it in integer ns.
  return core::to_ms(record.last_token - record.first_token) /
         static_cast<double>(record.output_tokens - 1);
}

std::vector<double> itl_ms(const core::RequestRecord& record) {
  std::vector<double> gaps;
  if (record.chunks.size() < 2) return gaps;
  gaps.reserve(record.chunks.size() - 1);
  for_each_gap(record, [&gaps](double gap, int) { gaps.push_back(gap); });
  return gaps;
}

std::vector<double> itl_per_token_ms(const core::RequestRecord& record) {
  std::vector<double> values;
  for_each_gap(record, [&values](double gap, int tokens) {
    values.insert(values.end(), static_cast<std::size_t>(tokens), gap / tokens);
  });
  return values;
}

std::optional<double> decode_tps(const core::RequestRecord& record) {
  if (!record.streamed || record.output_tokens <= 1) return std::nullopt;
  if (record.first_token == kNever || record.last_token == kNever) return std::nullopt;
  const Nanos span = record.last_token - record.first_token;
  if (span <= 0) return std::nullopt;
  return static_cast<double>(record.output_tokens - 1) / core::to_seconds(span);
}

std::optional<double> output_tps(const core::RequestRecord& record) {
  const auto e2el = e2el_ms(record);
  if (!e2el || *e2el <= 0.0) return std::nullopt;
  return static_cast<double>(record.output_tokens) / (*e2el / 1e3);
}

std::optional<double> total_tps(const core::RequestRecord& record) {
  const auto e2el = e2el_ms(record);
  if (!e2el || *e2el <= 0.0) return std::nullopt;
  return static_cast<double>(record.prompt_tokens + record.output_tokens) / (*e2el / 1e3);
}

std::optional<double> queue_time_ms(const core::RequestRecord& record) {
  return span_ms(record.scheduled, record.sent);
}

std::optional<double> ttft_from_intended_ms(const core::RequestRecord& record) {
  if (!ttft_ms(record)) return std::nullopt;
  return span_ms(record.intended, record.first_token);
}

std::optional<double> e2el_from_intended_ms(const core::RequestRecord& record) {
  if (!e2el_ms(record)) return std::nullopt;
  return span_ms(record.intended, record.streamed ? record.last_token : record.done);
}

RequestMetrics derive_request_metrics(const core::RequestRecord& record) {
  RequestMetrics m;
  m.ttft_ms = ttft_ms(record);
  m.e2el_ms = e2el_ms(record);
  m.tpot_ms = tpot_ms(record);
  m.itl_ms = itl_ms(record);
  m.itl_per_token_ms = itl_per_token_ms(record);
  m.decode_tps = decode_tps(record);
  m.output_tps = output_tps(record);
  m.total_tps = total_tps(record);
  m.queue_time_ms = queue_time_ms(record);
  m.ttft_from_intended_ms = ttft_from_intended_ms(record);
  m.e2el_from_intended_ms = e2el_from_intended_ms(record);
  return m;
}

}  // namespace tokenbench::metrics
