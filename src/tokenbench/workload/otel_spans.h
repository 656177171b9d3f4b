#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace tokenbench::workload {

/// One OpenTelemetry span, as the importer needs it, whatever JSON shape it came in.
struct OtelSpan {
  std::string trace;
  std::string id;
  std::string name;
  double start = 0;  ///< seconds since the epoch
  double end = 0;
  nlohmann::json attributes = nlohmann::json::object();  ///< key -> plain JSON value
};

/// Appends the spans of `document`: OTLP JSON (`resourceSpans` / `scopeSpans` / `spans`, with
/// OTLP's typed attribute values), a document with a `spans` array (its `trace_id` the default of
/// its spans'), an array of either, or a single span. Span fields in OTLP's camelCase or the SDKs'
/// snake_case (`context.trace_id` too); times as Unix nanoseconds (a number or a string of
/// digits) or ISO 8601. Throws std::runtime_error for a span without a readable start or end.
void collect_otel_spans(const nlohmann::json& document, std::vector<OtelSpan>& spans);

/// Seconds since the epoch of an ISO 8601 time ("2026-02-25T10:00:00.5Z", "...+02:00", no zone:
/// UTC); NaN when it is not one.
double iso8601_seconds(const std::string& text);

}  // namespace tokenbench::workload
