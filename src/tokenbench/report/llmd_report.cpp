#include "tokenbench/report/llmd_report.h"

#include <cmath>
#include <cstdio>
#include <map>
#include <string_view>

#include "tokenbench/core/version.h"
#include "tokenbench/report/otlp_export.h"

namespace tokenbench::report {
namespace {

using nlohmann::json;

// summary.json's percentile names (report/summary_json.h: "p" + the percentile) and the
// Statistics field of each; a percentile the schema has no field for is left out.
const std::map<std::string, std::string, std::less<>>& percentile_fields() {
  static const std::map<std::string, std::string, std::less<>> kFields{
      {"p0.1", "p0p1"}, {"p1", "p1"},   {"p5", "p5"},      {"p10", "p10"},
      {"p25", "p25"},   {"p50", "p50"}, {"p75", "p75"},    {"p90", "p90"},
      {"p95", "p95"},   {"p99", "p99"}, {"p99.9", "p99p9"}};
  return kFields;
}

bool is_number(const json& o, const char* key) {
  const auto it = o.find(key);
  return it != o.end() && it->is_number();
}

// A tokenbench distribution (summary.json's tokenbench.distributions.NAME) as a Statistics in
// `units`; null when it holds no value (the schema requires a mean).
json statistics(const json& d, const char* units) {
  if (!d.is_object() || !is_number(d, "mean") || d.value("count", 0) == 0) return nullptr;
  json s{{"units", units}, {"mean", d["mean"]}};
  if (is_number(d, "std")) s["stddev"] = d["std"];  // population (ddof 0), as vLLM's std
  if (is_number(d, "min")) s["min"] = d["min"];
  if (is_number(d, "max")) s["max"] = d["max"];
  const json percentiles = d.value("percentiles", json::object());
  for (const auto& [name, value] : percentiles.items()) {
    const auto it = percentile_fields().find(name);
    if (it != percentile_fields().end() && value.is_number()) s[it->second] = value;
  }
  if (!s.contains("p50") && is_number(d, "median")) s["p50"] = d["median"];
  return s;
}

// A throughput as a Statistics holding its one value, the mean (llm-d's own imports do so).
json rate(const json& summary, const char* key, const char* units) {
  if (!is_number(summary, key)) return nullptr;
  return {{"units", units}, {"mean", summary[key]}};
}

// "uniform:LO,HI" or "normal:MEAN,SD[,MIN,MAX]" as a SequenceLength; null for any other spec.
json length_spec(const std::string& spec) {
  double a = 0;
  double b = 0;
  if (std::sscanf(spec.c_str(), "uniform:%lf,%lf", &a, &b) == 2) {
    return {{"distribution", "uniform"},
            {"value", (a + b) / 2},
            {"min", static_cast<std::int64_t>(a)},
            {"max", static_cast<std::int64_t>(b)}};
  }
  double lo = 0;
  double hi = 0;
  const int n = std::sscanf(spec.c_str(), "normal:%lf,%lf,%lf,%lf", &a, &b, &lo, &hi);
  if (n == 4) {
    return {{"distribution", "gaussian"},
            {"value", a},
            {"std_dev", b},
            {"min", static_cast<std::int64_t>(lo)},
            {"max", static_cast<std::int64_t>(hi)}};
  }
  if (n == 2) return {{"distribution", "gaussian"}, {"value", a}, {"std_dev", b}};
  return nullptr;
}

// What tokenbench asked of prompt lengths, where the random dataset alone decides them; else
// "other" with the measured mean (what llm-d's own imports fall back to).
json input_seq_len(const core::RunConfig& c, const json& distributions) {
  const bool plain = c.dataset == core::Dataset::kRandom && c.random_prefix_len == 0 &&
                     c.prefix_hit_rate < 0 && c.image_count == 0;
  if (plain && c.input_dist == "fixed") {
    if (c.range_ratio == 0) return {{"distribution", "fixed"}, {"value", c.input_len}};
    return {{"distribution", "uniform"}, {"value", c.input_len}};  // over [L(1-R), L(1+R)]
  }
  if (plain) {
    if (json spec = length_spec(c.input_dist); !spec.is_null()) return spec;
  }
  const json measured = distributions.value("input_tokens", json::object());
  return {{"distribution", "other"},
          {"value", is_number(measured, "mean") ? measured["mean"] : json(c.input_len)}};
}

// The output length when tokenbench enforced it (--output-len or --output-dist with
// --ignore-eos, the dataset's own lengths not used); null otherwise.
json output_seq_len(const core::RunConfig& c) {
  const bool ours = c.dataset == core::Dataset::kRandom || !c.output_len_from_dataset;
  if (!ours || !c.ignore_eos || c.output_len < 1) return nullptr;
  if (c.output_dist == "fixed") {
    if (c.range_ratio == 0) return {{"distribution", "fixed"}, {"value", c.output_len}};
    return {{"distribution", "uniform"}, {"value", c.output_len}};
  }
  return length_spec(c.output_dist);
}

// How the prompts' tokens were made: random tokens (--dataset random), text sampled from a
// dataset or a file, else unknown.
const char* source_of(const core::RunConfig& c) {
  if (c.dataset == core::Dataset::kRandom) return "random";
  if (c.dataset == core::Dataset::kSonnet ||
      (core::reads_file(c.dataset) && c.dataset != core::Dataset::kJobs)) {
    return "sampled";
  }
  return "unknown";
}

json load_of(const json& summary, const core::RunConfig& c, const json& distributions) {
  json standardized{{"tool", "tokenbench"},
                    {"tool_version", std::string(core::kVersion)},
                    {"source", source_of(c)},
                    {"input_seq_len", input_seq_len(c, distributions)}};
  if (json out = output_seq_len(c); !out.is_null()) standardized["output_seq_len"] = out;
  if (std::isfinite(c.request_rate) && c.request_rate > 0) {
    standardized["rate_qps"] = c.request_rate;
  }
  if (c.max_concurrency > 0) standardized["concurrency"] = c.max_concurrency;
  json native = json::object();
  const json config = summary.value("tokenbench", json::object()).value("config", json());
  if (config.is_object()) native["config"] = config;  // summary.json's, secrets never in it
  return {{"metadata", {{"schema_version", "0.0.1"}}},
          {"standardized", std::move(standardized)},
          {"native", std::move(native)}};
}

// Sets `to[key]` to `value` unless it is null.
void put(json& to, const char* key, json value) {
  if (!value.is_null()) to[key] = std::move(value);
}

json aggregate_of(const json& summary, const json& tb, const json& d) {
  const json counts = tb.value("requests", json::object());
  const std::int64_t canceled = counts.value("canceled", std::int64_t{0});
  json requests{{"total", counts.value("measured", std::int64_t{0}) + canceled},
                {"failures", summary.value("failed", std::int64_t{0})},
                {"incomplete", canceled}};
  put(requests, "input_length", statistics(d.value("input_tokens", json()), "count"));
  put(requests, "output_length", statistics(d.value("output_tokens", json()), "count"));
  json latency = json::object();
  put(latency, "time_to_first_token", statistics(d.value("ttft_ms", json()), "ms"));
  put(latency, "time_per_output_token", statistics(d.value("tpot_ms", json()), "ms/token"));
  put(latency, "inter_token_latency", statistics(d.value("itl_ms", json()), "ms/token"));
  put(latency, "request_latency", statistics(d.value("e2el_ms", json()), "ms"));
  json throughput = json::object();
  put(throughput, "output_token_rate", rate(summary, "output_throughput", "tokens/s"));
  put(throughput, "total_token_rate", rate(summary, "total_token_throughput", "tokens/s"));
  put(throughput, "request_rate", rate(summary, "request_throughput", "queries/s"));
  json aggregate{{"requests", std::move(requests)}};
  if (!latency.empty()) aggregate["latency"] = std::move(latency);
  if (!throughput.empty()) aggregate["throughput"] = std::move(throughput);
  return aggregate;
}

}  // namespace

json summary_to_llmd_report(const json& summary, const core::RunConfig& config,
                            const std::string& run_id) {
  const json tb = summary.value("tokenbench", json::object());
  const json distributions = tb.value("distributions", json::object());
  json run{{"uid", run_id}};
  const std::string started = tb.value("started_at", std::string());
  if (iso8601_to_unix_ns(started) >= 0) run["time"] = {{"start", started}};
  return {{"version", kLlmdReportVersion},
          {"run", std::move(run)},
          {"scenario", {{"load", load_of(summary, config, distributions)}}},
          {"results",
           {{"request_performance", {{"aggregate", aggregate_of(summary, tb, distributions)}}}}}};
}

}  // namespace tokenbench::report
