#pragma once

// A schema check of an OTLP/HTTP JSON metrics export: ExportMetricsServiceRequest as
// opentelemetry-proto (commit ac2c4b5d) defines it in opentelemetry/proto/collector/metrics/v1/
// metrics_service.proto, metrics/v1/metrics.proto, common/v1/common.proto and
// resource/v1/resource.proto, encoded as docs/specification.md's "JSON Protobuf Encoding" says:
// lowerCamelCase field names, 64-bit integers as decimal strings, enums as integers. Strict
// where a receiver is lenient: a field name the schema does not have is a problem here (a
// receiver ignores it), so that a misspelt field cannot pass unseen.
//
// Besides the types: every oneof has exactly one member set (Metric's data, a NumberDataPoint's
// value, AnyValue), a histogram's aggregationTemporality is DELTA (1) or CUMULATIVE (2), its
// points have bucketCounts.size() == explicitBounds.size() + 1, the bounds increase and the
// bucket counts sum to count; names and keys are not empty; points carry timeUnixNano.

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace tokenbench::testing {

enum class OtlpType {
  kString,
  kBool,
  kUint32,
  kInt64,   // int64, sfixed64: a decimal string
  kUint64,  // fixed64: a decimal string, no sign
  kDouble,
  kBytes,
  kTemporality,  // AggregationTemporality: 0, 1 or 2
  kMessage,
  kRepeatedMessage,
  kRepeatedUint64,
  kRepeatedDouble,
  kRepeatedString,
};

struct OtlpField {
  OtlpType type;
  const char* message = nullptr;  // kMessage, kRepeatedMessage: its type
};

using OtlpMessage = std::map<std::string, OtlpField>;

inline const std::map<std::string, OtlpMessage>& otlp_messages() {
  using T = OtlpType;
  static const std::map<std::string, OtlpMessage> kMessages{
      {"ExportMetricsServiceRequest",
       {{"resourceMetrics", {T::kRepeatedMessage, "ResourceMetrics"}}}},
      {"ResourceMetrics",
       {{"resource", {T::kMessage, "Resource"}},
        {"scopeMetrics", {T::kRepeatedMessage, "ScopeMetrics"}},
        {"schemaUrl", {T::kString}}}},
      {"Resource",
       {{"attributes", {T::kRepeatedMessage, "KeyValue"}},
        {"droppedAttributesCount", {T::kUint32}},
        {"entityRefs", {T::kRepeatedMessage, "EntityRef"}}}},
      {"EntityRef",
       {{"schemaUrl", {T::kString}},
        {"type", {T::kString}},
        {"idKeys", {T::kRepeatedString}},
        {"descriptionKeys", {T::kRepeatedString}}}},
      {"ScopeMetrics",
       {{"scope", {T::kMessage, "InstrumentationScope"}},
        {"metrics", {T::kRepeatedMessage, "Metric"}},
        {"schemaUrl", {T::kString}}}},
      {"InstrumentationScope",
       {{"name", {T::kString}},
        {"version", {T::kString}},
        {"attributes", {T::kRepeatedMessage, "KeyValue"}},
        {"droppedAttributesCount", {T::kUint32}}}},
      {"Metric",
       {{"name", {T::kString}},
        {"description", {T::kString}},
        {"unit", {T::kString}},
        {"gauge", {T::kMessage, "Gauge"}},
        {"sum", {T::kMessage, "Sum"}},
        {"histogram", {T::kMessage, "Histogram"}},
        {"exponentialHistogram", {T::kMessage, "Unchecked"}},
        {"summary", {T::kMessage, "Unchecked"}},
        {"metadata", {T::kRepeatedMessage, "KeyValue"}}}},
      {"Gauge", {{"dataPoints", {T::kRepeatedMessage, "NumberDataPoint"}}}},
      {"Sum",
       {{"dataPoints", {T::kRepeatedMessage, "NumberDataPoint"}},
        {"aggregationTemporality", {T::kTemporality}},
        {"isMonotonic", {T::kBool}}}},
      {"Histogram",
       {{"dataPoints", {T::kRepeatedMessage, "HistogramDataPoint"}},
        {"aggregationTemporality", {T::kTemporality}}}},
      {"NumberDataPoint",
       {{"attributes", {T::kRepeatedMessage, "KeyValue"}},
        {"startTimeUnixNano", {T::kUint64}},
        {"timeUnixNano", {T::kUint64}},
        {"asDouble", {T::kDouble}},
        {"asInt", {T::kInt64}},
        {"exemplars", {T::kRepeatedMessage, "Exemplar"}},
        {"flags", {T::kUint32}}}},
      {"HistogramDataPoint",
       {{"attributes", {T::kRepeatedMessage, "KeyValue"}},
        {"startTimeUnixNano", {T::kUint64}},
        {"timeUnixNano", {T::kUint64}},
        {"count", {T::kUint64}},
        {"sum", {T::kDouble}},
        {"bucketCounts", {T::kRepeatedUint64}},
        {"explicitBounds", {T::kRepeatedDouble}},
        {"exemplars", {T::kRepeatedMessage, "Exemplar"}},
        {"flags", {T::kUint32}},
        {"min", {T::kDouble}},
        {"max", {T::kDouble}}}},
      {"Exemplar",
       {{"filteredAttributes", {T::kRepeatedMessage, "KeyValue"}},
        {"timeUnixNano", {T::kUint64}},
        {"asDouble", {T::kDouble}},
        {"asInt", {T::kInt64}},
        {"spanId", {T::kString}},
        {"traceId", {T::kString}}}},
      {"KeyValue", {{"key", {T::kString}}, {"value", {T::kMessage, "AnyValue"}}}},
      {"AnyValue",
       {{"stringValue", {T::kString}},
        {"boolValue", {T::kBool}},
        {"intValue", {T::kInt64}},
        {"doubleValue", {T::kDouble}},
        {"arrayValue", {T::kMessage, "ArrayValue"}},
        {"kvlistValue", {T::kMessage, "KeyValueList"}},
        {"bytesValue", {T::kBytes}}}},
      {"ArrayValue", {{"values", {T::kRepeatedMessage, "AnyValue"}}}},
      {"KeyValueList", {{"values", {T::kRepeatedMessage, "KeyValue"}}}},
  };
  return kMessages;
}

class OtlpValidator {
 public:
  std::vector<std::string> problems;

  void message(const nlohmann::json& v, const std::string& type, const std::string& path) {
    if (type == "Unchecked") return;  // kinds tokenbench never sends
    if (!v.is_object()) return fail(path, "is not an object (" + type + ")");
    const OtlpMessage& fields = otlp_messages().at(type);
    for (const auto& [name, value] : v.items()) {
      const auto it = fields.find(name);
      if (it == fields.end()) {
        fail(path + "." + name, "is not a field of " + type);
        continue;
      }
      field(value, it->second, path + "." + name);
    }
    rules(v, type, path);
  }

 private:
  void fail(const std::string& path, const std::string& why) {
    problems.push_back(path + " " + why);
  }

  static bool decimal(const nlohmann::json& v, bool sign) {
    if (!v.is_string()) return false;
    const std::string s = v.get<std::string>();
    std::size_t i = sign && !s.empty() && s[0] == '-' ? 1 : 0;
    if (i == s.size()) return false;
    for (; i < s.size(); ++i) {
      if (s[i] < '0' || s[i] > '9') return false;
    }
    return s.size() <= 20;
  }

  void field(const nlohmann::json& v, const OtlpField& f, const std::string& path) {
    using T = OtlpType;
    switch (f.type) {
      case T::kString:
      case T::kBytes:
        if (!v.is_string()) fail(path, "is not a string");
        return;
      case T::kBool:
        if (!v.is_boolean()) fail(path, "is not a boolean");
        return;
      case T::kUint32:
        if (!v.is_number_unsigned() || v.get<std::uint64_t>() > 0xffffffffu) {
          fail(path, "is not a uint32 number");
        }
        return;
      case T::kInt64:
        if (!decimal(v, true)) fail(path, "is not a 64-bit integer as a decimal string");
        return;
      case T::kUint64:
        if (!decimal(v, false)) fail(path, "is not an unsigned 64-bit integer as a decimal string");
        return;
      case T::kDouble:
        if (!v.is_number()) fail(path, "is not a number");
        return;
      case T::kTemporality:
        if (!v.is_number_integer() || v.get<int>() < 0 || v.get<int>() > 2) {
          fail(path, "is not an AggregationTemporality integer (0, 1 or 2)");
        }
        return;
      case T::kMessage:
        message(v, f.message, path);
        return;
      case T::kRepeatedMessage:
      case T::kRepeatedUint64:
      case T::kRepeatedDouble:
      case T::kRepeatedString:
        if (!v.is_array()) return fail(path, "is not an array");
        for (std::size_t i = 0; i < v.size(); ++i) {
          const std::string at = path + "[" + std::to_string(i) + "]";
          const T one = f.type == T::kRepeatedMessage  ? T::kMessage
                        : f.type == T::kRepeatedUint64 ? T::kUint64
                        : f.type == T::kRepeatedDouble ? T::kDouble
                                                       : T::kString;
          field(v[i], {one, f.message}, at);
        }
        return;
    }
  }

  void exactly_one(const nlohmann::json& v, std::vector<const char*> members,
                   const std::string& path, const char* what) {
    int set = 0;
    for (const char* m : members) set += v.contains(m) ? 1 : 0;
    if (set != 1) fail(path, std::string("must set exactly one of ") + what);
  }

  static std::uint64_t as_u64(const nlohmann::json& v) {
    return v.is_string() ? std::stoull(v.get<std::string>()) : 0;
  }

  void rules(const nlohmann::json& v, const std::string& type, const std::string& path) {
    if (type == "Metric") {
      if (!v.contains("name") || v["name"] == "") fail(path, "has no name");
      exactly_one(v, {"gauge", "sum", "histogram", "exponentialHistogram", "summary"}, path,
                  "gauge, sum, histogram, exponentialHistogram, summary");
    } else if (type == "Histogram" || type == "Sum") {
      const auto it = v.find("aggregationTemporality");
      const int t = it != v.end() && it->is_number_integer() ? it->get<int>() : 0;
      if (t != 1 && t != 2) fail(path, "has no aggregationTemporality DELTA (1) or CUMULATIVE (2)");
    } else if (type == "KeyValue") {
      if (!v.contains("key") || v["key"] == "") fail(path, "has no key");
      if (!v.contains("value")) fail(path, "has no value");
    } else if (type == "AnyValue") {
      exactly_one(v,
                  {"stringValue", "boolValue", "intValue", "doubleValue", "arrayValue",
                   "kvlistValue", "bytesValue"},
                  path, "AnyValue's members");
    } else if (type == "NumberDataPoint") {
      exactly_one(v, {"asDouble", "asInt"}, path, "asDouble, asInt");
      if (!v.contains("timeUnixNano")) fail(path, "has no timeUnixNano");
    } else if (type == "HistogramDataPoint") {
      histogram_point(v, path);
    }
  }

  void histogram_point(const nlohmann::json& v, const std::string& path) {
    if (!v.contains("timeUnixNano")) fail(path, "has no timeUnixNano");
    if (!v.contains("count")) fail(path, "has no count");
    const auto counts = v.value("bucketCounts", nlohmann::json::array());
    const auto bounds = v.value("explicitBounds", nlohmann::json::array());
    if (!counts.is_array() || !bounds.is_array()) return;
    if (!counts.empty() && counts.size() != bounds.size() + 1) {
      fail(path, "has " + std::to_string(counts.size()) + " bucketCounts for " +
                     std::to_string(bounds.size()) + " explicitBounds (bounds + 1 wanted)");
    }
    for (std::size_t i = 1; i < bounds.size(); ++i) {
      if (bounds[i].is_number() && bounds[i - 1].is_number() &&
          !(bounds[i].get<double>() > bounds[i - 1].get<double>())) {
        fail(path, "has explicitBounds that do not increase");
      }
    }
    std::uint64_t total = 0;
    for (const auto& c : counts) total += decimal(c, false) ? as_u64(c) : 0;
    if (!counts.empty() && decimal(v.value("count", nlohmann::json()), false) &&
        total != as_u64(v["count"])) {
      fail(path, "has bucketCounts summing to " + std::to_string(total) + ", not its count");
    }
  }
};

/// Every way `body` departs from ExportMetricsServiceRequest's JSON encoding; empty: none.
inline std::vector<std::string> otlp_metrics_problems(const nlohmann::json& body) {
  OtlpValidator v;
  v.message(body, "ExportMetricsServiceRequest", "$");
  return v.problems;
}

}  // namespace tokenbench::testing
