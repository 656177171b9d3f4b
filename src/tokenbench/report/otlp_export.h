#pragma once

// A run's figures as an OpenTelemetry metrics export (OTLP/HTTP, JSON): the histograms of the
// GenAI semantic conventions built from the run's records, and every other figure of
// summary.json as a gauge under tokenbench's own name. Pure: client/otlp_post.h sends it.
//
// Read for it: open-telemetry/semantic-conventions 7b0c0fe1
// (docs/gen-ai/gen-ai-metrics.md: names, units, attributes, bucket boundaries) and
// open-telemetry/opentelemetry-proto ac2c4b5d (opentelemetry/proto/metrics/v1/metrics.proto,
// docs/specification.md "JSON Protobuf Encoding"). docs/REPORTS.md, "OpenTelemetry (OTLP)".

#include <array>
#include <compare>
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "tokenbench/core/clock.h"
#include "tokenbench/core/request.h"
#include "tokenbench/core/run_config.h"

namespace tokenbench::report {

/// The explicit bucket boundaries the GenAI semantic conventions advise, in the metric's unit:
/// gen_ai.client.operation.duration (s), gen_ai.server.time_to_first_token (s),
/// gen_ai.server.time_per_output_token (s), gen_ai.client.token.usage ({token}).
inline constexpr std::array<double, 14> kOperationDurationBounds{
    0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92};
inline constexpr std::array<double, 16> kTimeToFirstTokenBounds{
    0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0};
inline constexpr std::array<double, 13> kTimePerOutputTokenBounds{
    0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 2.5};
inline constexpr std::array<double, 14> kTokenUsageBounds{
    1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864};

/// One data point of an explicit-bucket histogram, as OTLP counts it: bucket i holds the values
/// v with bounds[i-1] < v <= bounds[i] (the first from -infinity, the last to +infinity), so
/// there is one bucket more than bounds.
struct ExplicitHistogram {
  std::vector<std::uint64_t> buckets;
  std::uint64_t count = 0;
  double sum = 0;
  double min = 0;
  double max = 0;

  void add(double value, std::span<const double> bounds);
};

/// What tells one data point of a histogram from another: the request's --lora-modules or
/// --model-mix member (-1: none), the replica that served it, and for failed requests their
/// error class (error.type), for token usage the token type (input or output).
struct PointKey {
  std::int32_t mix = -1;
  std::uint32_t endpoint = 0;
  std::string error_type;
  std::string token_type;
  auto operator<=>(const PointKey&) const = default;
};

/// An attribute as OTLP's KeyValue holds it: a string, or an integer (server.port).
using OtlpAttribute = std::pair<std::string, nlohmann::json>;

/// The GenAI histograms of one results directory, fed a record at a time (report::RunFigures
/// does, in the model's time under --sim-time), keeping counts per bucket and no record. Counts
/// the measure phase's requests as summary.json does (retried attempts and canceled requests
/// aside): a successful request's E2E latency, TTFT, TPOT and token usage; a failed one's
/// transfer time (send to end) with its error class. Not thread-safe: one feeder.
class GenAiFigures {
 public:
  /// The attributes every point carries come from `config`: the API (gen_ai.operation.name,
  /// gen_ai.provider.name), the model or mix members (gen_ai.request.model), the base URL or
  /// replicas (server.address, server.port).
  explicit GenAiFigures(const core::RunConfig& config);

  void add(const core::RequestRecord& record);

  const std::map<PointKey, ExplicitHistogram>& duration() const { return duration_; }
  const std::map<PointKey, ExplicitHistogram>& ttft() const { return ttft_; }
  const std::map<PointKey, ExplicitHistogram>& tpot() const { return tpot_; }
  const std::map<PointKey, ExplicitHistogram>& tokens() const { return tokens_; }
  /// The latest end (transfer end, else last token) of a measured request on the run's clock;
  /// kNever before one.
  core::Nanos measure_end() const { return end_; }

  /// The attributes of the point `key`, in this order: gen_ai.operation.name,
  /// gen_ai.provider.name, gen_ai.request.model (when known), server.address and server.port
  /// (when the URL has a host), then error.type or gen_ai.token.type when `key` has one.
  std::vector<OtlpAttribute> attributes(const PointKey& key) const;

 private:
  std::string operation_;
  std::string provider_;
  std::string model_;
  std::vector<std::string> members_;                             // by RequestRecord::mix
  std::vector<std::pair<std::string, std::int64_t>> endpoints_;  // address, port
  bool outputs_text_ = true;
  std::map<PointKey, ExplicitHistogram> duration_;
  std::map<PointKey, ExplicitHistogram> ttft_;
  std::map<PointKey, ExplicitHistogram> tpot_;
  std::map<PointKey, ExplicitHistogram> tokens_;
  core::Nanos end_ = core::kNever;
};

/// The run's identity on the resource: its results directory's name (tokenbench.run.id).
struct OtlpRun {
  std::string run_id;
  /// The wall-clock time (Unix nanoseconds) to stamp points with when the summary has no
  /// readable started_at.
  std::int64_t fallback_unix_ns = 0;
};

/// An ExportMetricsServiceRequest in OTLP's JSON encoding (lowerCamelCase names, 64-bit integers
/// as decimal strings, enums as integers): one resource (service.name tokenbench,
/// service.version, tokenbench.run.id and each --label as an attribute) with one scope
/// (tokenbench) holding the four GenAI histograms (cumulative, from the run's start to the end
/// of its measure phase) and a gauge `tokenbench.<key>` for every numeric top-level key of
/// `summary` (summary.json), each mix member's figures (`tokenbench.mix.<key>`) and the server's
/// speculative decoding. A histogram with no value is left out; so is an undefined figure.
nlohmann::json otlp_metrics_request(const nlohmann::json& summary, const GenAiFigures& genai,
                                    const OtlpRun& run);

/// "2026-12-03T10:11:12Z" as Unix nanoseconds; -1 when it is not such a time.
std::int64_t iso8601_to_unix_ns(const std::string& iso8601);

}  // namespace tokenbench::report
