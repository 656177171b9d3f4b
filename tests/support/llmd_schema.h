#pragma once

// A check of llm-d-benchmark's benchmark report, version 0.2, for the parts tokenbench writes:
// the rules of llm-d/llm-d-benchmark at commit 8bc9f1dd, copied by hand from
// llmdbenchmark/analysis/benchmark_report/br_v0_2_json_schema.json (required fields, types,
// enums, minimums, no other fields: every class there but Statistics forbids extra fields) and
// the unit checks of schema_v0_2.py that the JSON Schema cannot say (each Statistics' `units`
// in UNITS_QUANTITY, UNITS_TIME, UNITS_GEN_LATENCY, UNITS_GEN_THROUGHPUT or
// UNITS_REQUEST_THROUGHPUT of base.py, as its field's check_units validator asks). Their code
// is not vendored; classes tokenbench never writes (stack components, time series,
// observability, sessions) are refused here rather than checked.

#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

namespace tokenbench::testing {

enum class BrType { kString, kInteger, kNumber, kObject, kAny, kArrayOfString, kClass, kEnum };

struct BrField {
  BrType type;
  std::string of;  // kClass: its class; kEnum: the enum's name
  bool required = false;
  double minimum = -1e308;  // "minimum"
  bool exclusive = false;   // "exclusiveMinimum" instead
  std::string units;        // Statistics: the unit list its check_units allows
};

struct BrClass {
  std::map<std::string, BrField> fields;
  bool extra_allowed = false;
};

inline const std::map<std::string, std::set<std::string>>& br_enums() {
  static const std::map<std::string, std::set<std::string>> kEnums{
      {"Distribution", {"fixed", "gaussian", "uniform", "other"}},
      {"LoadSource", {"random", "sampled", "unknown"}},
      // base.py's Units as br_v0_2_json_schema.json lists them.
      {"Units",
       {"count", "percent", "fraction", "ms",      "s",        "MB",        "GB",    "TB",
        "MiB",   "GiB",     "TiB",      "Mbit/s",  "Gbit/s",   "Tbit/s",    "GiB/s", "MB/s",
        "GB/s",  "TB/s",    "ms/token", "s/token", "tokens/s", "queries/s", "Watts"}},
      // base.py's unit lists (v0.2's members).
      {"UNITS_QUANTITY", {"count"}},
      {"UNITS_TIME", {"ms", "s"}},
      {"UNITS_GEN_LATENCY", {"ms/token", "s/token"}},
      {"UNITS_GEN_THROUGHPUT", {"tokens/s"}},
      {"UNITS_REQUEST_THROUGHPUT", {"queries/s"}},
  };
  return kEnums;
}

inline const std::map<std::string, BrClass>& br_classes() {
  using T = BrType;
  const auto stats = [](const char* units) {
    return BrField{T::kClass, "Statistics", false, -1e308, false, units};
  };
  const BrField optional_number{T::kNumber, ""};
  static const std::map<std::string, BrClass> kClasses{
      {"BenchmarkReportV02",
       {{{"version", {T::kString}},
         {"run", {T::kClass, "Run", true}},
         {"scenario", {T::kClass, "Scenario"}},
         {"results", {T::kClass, "Results", true}}}}},
      {"Run",
       {{{"uid", {T::kString, "", true}},
         {"eid", {T::kString}},
         {"cid", {T::kString}},
         {"pid", {T::kString}},
         {"time", {T::kClass, "RunTime"}},
         {"user", {T::kString}},
         {"description", {T::kString}},
         {"keywords", {T::kArrayOfString}}}}},
      {"RunTime", {{{"start", {T::kString}}, {"end", {T::kString}}, {"duration", {T::kString}}}}},
      {"Scenario", {{{"load", {T::kClass, "Load"}}}}},
      {"Load",
       {{{"metadata", {T::kClass, "LoadMetadata", true}},
         {"standardized", {T::kClass, "LoadStandardized", true}},
         {"native", {T::kClass, "LoadNative", true}}}}},
      {"LoadMetadata",
       {{{"schema_version", {T::kString}},
         {"cfg_id", {T::kString}},
         {"description", {T::kString}}}}},
      {"LoadStandardized",
       {{{"tool", {T::kString, "", true}},
         {"tool_version", {T::kString, "", true}},
         {"parallelism", {T::kInteger, "", false, 1}},
         {"source", {T::kEnum, "LoadSource", true}},
         {"stage", {T::kInteger, "", false, 0}},
         {"input_seq_len", {T::kClass, "SequenceLength", true}},
         {"output_seq_len", {T::kClass, "SequenceLength"}},
         {"rate_qps", {T::kNumber, "", false, 0, true}},
         {"concurrency", {T::kInteger, "", false, 1}}}}},
      {"SequenceLength",
       {{{"distribution", {T::kEnum, "Distribution", true}},
         {"value", {T::kNumber, "", true, 0}},
         {"std_dev", {T::kNumber, "", false, 0}},
         {"min", {T::kInteger, "", false, 0}},
         {"max", {T::kInteger, "", false, 1}}}}},
      {"LoadNative", {{{"args", {T::kObject}}, {"envars", {T::kObject}}, {"config", {T::kAny}}}}},
      {"Results", {{{"request_performance", {T::kClass, "RequestPerformance"}}}}},
      {"RequestPerformance", {{{"aggregate", {T::kClass, "AggregateRequestPerformance"}}}}},
      {"AggregateRequestPerformance",
       {{{"requests", {T::kClass, "AggregateRequests"}},
         {"latency", {T::kClass, "AggregateLatency"}},
         {"throughput", {T::kClass, "AggregateThroughput"}}}}},
      {"AggregateRequests",
       {{{"total", {T::kInteger, "", true, 0}},
         {"failures", {T::kInteger, "", false, 0}},
         {"incomplete", {T::kInteger, "", false, 0}},
         {"input_length", stats("UNITS_QUANTITY")},
         {"output_length", stats("UNITS_QUANTITY")}}}},
      {"AggregateLatency",
       {{{"time_to_first_token", stats("UNITS_TIME")},
         {"normalized_time_per_output_token", stats("UNITS_GEN_LATENCY")},
         {"time_per_output_token", stats("UNITS_GEN_LATENCY")},
         {"inter_token_latency", stats("UNITS_GEN_LATENCY")},
         {"request_latency", stats("UNITS_TIME")}}}},
      {"AggregateThroughput",
       {{{"input_token_rate", stats("UNITS_GEN_THROUGHPUT")},
         {"output_token_rate", stats("UNITS_GEN_THROUGHPUT")},
         {"total_token_rate", stats("UNITS_GEN_THROUGHPUT")},
         {"request_rate", stats("UNITS_REQUEST_THROUGHPUT")}}}},
      {"Statistics",
       {{{"units", {T::kEnum, "Units", true}},
         {"mean", {T::kNumber, "", true}},
         {"mode", optional_number},
         {"stddev", {T::kNumber, "", false, 0}},
         {"min", optional_number},
         {"p0p1", optional_number},
         {"p1", optional_number},
         {"p5", optional_number},
         {"p10", optional_number},
         {"p25", optional_number},
         {"p50", optional_number},
         {"p75", optional_number},
         {"p90", optional_number},
         {"p95", optional_number},
         {"p99", optional_number},
         {"p99p9", optional_number},
         {"max", optional_number}},
        /*extra_allowed=*/false}},
  };
  return kClasses;
}

class BrValidator {
 public:
  std::vector<std::string> problems;

  void check(const nlohmann::json& v, const std::string& cls, const std::string& path,
             const std::string& units = "") {
    if (!v.is_object()) return fail(path, "is not an object (" + cls + ")");
    const BrClass& c = br_classes().at(cls);
    for (const auto& [name, f] : c.fields) {
      if (f.required && !v.contains(name)) fail(path + "." + name, "is required");
    }
    for (const auto& [name, value] : v.items()) {
      const auto it = c.fields.find(name);
      if (it == c.fields.end()) {
        if (!c.extra_allowed) fail(path + "." + name, "is not a field of " + cls);
        continue;
      }
      field(value, it->second, path + "." + name);
    }
    if (cls == "Statistics" && !units.empty() && v.contains("units") && v["units"].is_string() &&
        !br_enums().at(units).contains(v["units"].get<std::string>())) {
      fail(path + ".units", "is not one of " + units);
    }
  }

 private:
  void fail(const std::string& path, const std::string& why) {
    problems.push_back(path + " " + why);
  }

  void field(const nlohmann::json& v, const BrField& f, const std::string& path) {
    // The JSON Schema's "anyOf [..., null]": an optional field may be null.
    if (v.is_null()) {
      if (f.required) fail(path, "is null");
      return;
    }
    switch (f.type) {
      case BrType::kString:
        if (!v.is_string()) fail(path, "is not a string");
        return;
      case BrType::kInteger:
        if (!v.is_number_integer()) return fail(path, "is not an integer");
        break;
      case BrType::kNumber:
        if (!v.is_number()) return fail(path, "is not a number");
        break;
      case BrType::kObject:
        if (!v.is_object()) fail(path, "is not an object");
        return;
      case BrType::kAny:
        return;
      case BrType::kArrayOfString:
        if (!v.is_array()) return fail(path, "is not an array");
        for (const auto& e : v) {
          if (!e.is_string()) fail(path, "holds a non-string");
        }
        return;
      case BrType::kClass:
        check(v, f.of, path, f.units);
        return;
      case BrType::kEnum:
        if (!v.is_string() || !br_enums().at(f.of).contains(v.get<std::string>())) {
          fail(path, "is not a " + f.of);
        }
        return;
    }
    const double x = v.get<double>();
    if (f.exclusive ? !(x > f.minimum) : x < f.minimum) {
      fail(path, "is below its minimum " + std::to_string(f.minimum));
    }
  }
};

/// Every way `report` departs from the benchmark report v0.2 rules above; empty: none.
inline std::vector<std::string> llmd_report_problems(const nlohmann::json& report) {
  BrValidator v;
  v.check(report, "BenchmarkReportV02", "$");
  if (report.value("version", std::string()) != "0.2") v.problems.push_back("$.version is not 0.2");
  return v.problems;
}

}  // namespace tokenbench::testing
