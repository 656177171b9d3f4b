// AIPerf's profile export (peer_files.h), as ai-dynamo/aiperf writes it at db4f6397:
// profile_export_aiperf.json (aiperf/exporters/json_exporter.py, JsonExportData in
// aiperf/common/models/export_models.py) and profile_export_aiperf.csv (csv_exporter.py), each
// metric under its definition in aiperf/metrics/types/*.py, in its display unit.

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <ctime>
#include <map>

#include "tokenbench/core/clock.h"
#include "tokenbench/metrics/percentile.h"
#include "tokenbench/report/otlp_export.h"
#include "tokenbench/report/peer_files.h"

namespace tokenbench::report {
namespace {

using nlohmann::ordered_json;

// One metric of the export: its tag, header and display unit, and either every request's value
// (a record metric: every statistic) or one value (an aggregate: avg only).
struct Metric {
  std::string tag;
  std::string header;
  std::string unit;
  std::vector<double> values{};  // a record metric's values
  double value = 0;              // an aggregate's
  bool record = true;
  bool integral = false;  // an aggregate counted in whole numbers (its CSV cell is %d)
};

double ms(core::Nanos ns) { return static_cast<double>(ns) / 1e6; }

// numpy's mean, population std, min, max and linear percentiles, as MetricArray.to_result.
ordered_json stats(const Metric& m) {
  ordered_json out;
  out["unit"] = m.unit;
  if (!m.record) {
    out["avg"] = m.value;
    return out;
  }
  std::vector<double> v = m.values;
  std::sort(v.begin(), v.end());
  double sum = 0;
  for (double x : v) sum += x;
  const double mean = sum / static_cast<double>(v.size());
  double squares = 0;
  for (double x : v) squares += (x - mean) * (x - mean);
  out["avg"] = mean;
  for (const int p : {1, 5, 10, 25, 50, 75, 90, 95, 99}) {
    out[fmt::format("p{}", p)] = metrics::percentile_sorted(v, p);
  }
  out["min"] = v.front();
  out["max"] = v.back();
  out["std"] = std::sqrt(squares / static_cast<double>(v.size()));
  return out;
}

// The metrics of the run's measure phase: record metrics over its successful requests (the
// streaming ones over streamed requests), aggregates over all.
std::vector<Metric> metrics_of(const PeerFileInput& in, std::int64_t& errors,
                               std::map<std::string, std::int64_t>& error_counts) {
  Metric ttft{"time_to_first_token", "Time to First Token", "ms"};
  Metric ttst{"time_to_second_token", "Time to Second Token", "ms"};
  Metric itl{"inter_token_latency", "Inter Token Latency", "ms"};
  Metric latency{"request_latency", "Request Latency", "ms"};
  Metric per_user{"output_token_throughput_per_user", "Output Token Throughput Per User",
                  "tokens/sec/user"};
  Metric osl{"output_sequence_length", "Output Sequence Length", "tokens"};
  Metric isl{"input_sequence_length", "Input Sequence Length", "tokens"};
  Metric chunk_gaps{"inter_chunk_latency", "Inter Chunk Latency", "ms"};
  core::Nanos first_sent = core::kNever;
  core::Nanos last_response = 0;
  double total_osl = 0;
  double total_isl = 0;
  std::int64_t ok = 0;
  for (const auto& r : in.records) {
    if (!measured_request(r)) continue;
    first_sent = first_sent == core::kNever ? r.sent : std::min(first_sent, r.sent);
    if (!r.ok()) {
      ++errors;
      ++error_counts[r.error_message];
      continue;
    }
    ++ok;
    // The last response: the last content chunk of a stream, the whole reply otherwise.
    const core::Nanos end = r.last_token != core::kNever && r.streamed ? r.last_token : r.done;
    last_response = std::max(last_response, end);
    latency.values.push_back(ms(end - r.sent));
    osl.values.push_back(static_cast<double>(r.output_tokens));
    isl.values.push_back(static_cast<double>(r.prompt_tokens));
    total_osl += static_cast<double>(r.output_tokens);
    total_isl += static_cast<double>(r.prompt_tokens);
    if (!r.streamed || r.first_token == core::kNever) continue;
    ttft.values.push_back(ms(r.first_token - r.sent));
    if (r.chunks.size() >= 2) ttst.values.push_back(ms(r.chunks[1].t - r.chunks[0].t));
    for (std::size_t i = 1; i < r.chunks.size(); ++i) {
      chunk_gaps.values.push_back(ms(r.chunks[i].t - r.chunks[i - 1].t));
    }
    if (r.output_tokens >= 2) {
      const double gap = (ms(end - r.sent) - ms(r.first_token - r.sent)) /
                         static_cast<double>(r.output_tokens - 1);
      itl.values.push_back(gap);
      if (gap > 0) per_user.values.push_back(1000.0 / gap);
    }
  }
  const double duration_s = first_sent == core::kNever || last_response <= first_sent
                                ? 0
                                : static_cast<double>(last_response - first_sent) / 1e9;
  std::vector<Metric> out;
  for (Metric* m : {&ttft, &ttst, &itl, &latency, &per_user, &osl, &isl, &chunk_gaps}) {
    if (!m->values.empty()) out.push_back(std::move(*m));
  }
  const auto aggregate = [&out](const char* tag, const char* header, const char* unit, double value,
                                bool integral) {
    Metric m{tag, header, unit};
    m.record = false;
    m.value = value;
    m.integral = integral;
    out.push_back(std::move(m));
  };
  aggregate("request_count", "Request Count", "requests", static_cast<double>(ok), true);
  if (errors > 0) {
    aggregate("error_request_count", "Error Request Count", "requests", static_cast<double>(errors),
              true);
  }
  if (duration_s > 0) {
    aggregate("benchmark_duration", "Benchmark Duration", "sec", duration_s, false);
    aggregate("request_throughput", "Request Throughput", "requests/sec",
              static_cast<double>(ok) / duration_s, false);
    aggregate("output_token_throughput", "Output Token Throughput", "tokens/sec",
              total_osl / duration_s, false);
  }
  aggregate("total_output_tokens", "Total Output Tokens", "tokens", total_osl, true);
  aggregate("total_osl", "Total Output Sequence Length", "tokens", total_osl, true);
  aggregate("total_isl", "Total Input Sequence Length", "tokens", total_isl, true);
  std::sort(out.begin(), out.end(), [](const Metric& a, const Metric& b) { return a.tag < b.tag; });
  return out;
}

// A naive ISO 8601 datetime (AIPerf writes datetime.now().isoformat()), `offset_s` after the
// run's start label (config.yaml's started_at, "2026-12-03T10:00:00Z").
std::string iso_after(const std::string& started_at, double offset_s) {
  const std::int64_t started_ns = iso8601_to_unix_ns(started_at);
  if (started_ns < 0) return "1970-01-01T00:00:00";
  const double at = static_cast<double>(started_ns) / 1e9 + offset_s;
  const auto whole = static_cast<std::time_t>(std::floor(at));
  std::tm out{};
  gmtime_r(&whole, &out);
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:06}", out.tm_year + 1900,
                     out.tm_mon + 1, out.tm_mday, out.tm_hour, out.tm_min, out.tm_sec,
                     static_cast<int>(std::lround((at - std::floor(at)) * 1e6)) % 1000000);
}

// csv_exporter.py's cells: a whole number as %d, any other number with two decimals.
std::string cell(double v, bool integral) {
  return integral ? fmt::format("{}", static_cast<std::int64_t>(std::llround(v)))
                  : fmt::format("{:.2f}", v);
}

std::string name_with_unit(const Metric& m) {
  return m.unit == "count" || m.unit == "requests" ? m.header : m.header + " (" + m.unit + ")";
}

}  // namespace

std::string aiperf_json(const PeerFileInput& in) {
  std::int64_t errors = 0;
  std::map<std::string, std::int64_t> error_counts;
  const std::vector<Metric> metrics = metrics_of(in, errors, error_counts);
  ordered_json out;
  double duration = 0;
  for (const Metric& m : metrics) {
    out[m.tag] = stats(m);
    if (m.tag == "benchmark_duration") duration = m.value;
  }
  out["was_cancelled"] = false;
  ordered_json summary = ordered_json::array();
  for (const auto& [message, count] : error_counts) {
    ordered_json details;
    details["code"] = nullptr;
    details["type"] = nullptr;
    details["message"] = message;
    summary.push_back({{"error_details", details}, {"count", count}});
  }
  out["error_summary"] = summary;
  out["start_time"] = iso_after(in.config.started_at, 0);
  out["end_time"] = iso_after(in.config.started_at, duration);
  return out.dump(2);
}

std::string aiperf_csv(const PeerFileInput& in) {
  std::int64_t errors = 0;
  std::map<std::string, std::int64_t> error_counts;
  const std::vector<Metric> metrics = metrics_of(in, errors, error_counts);
  std::string records;
  std::string system;
  for (const Metric& m : metrics) {
    if (m.record) {
      const ordered_json s = stats(m);
      records += name_with_unit(m);
      for (const char* key : {"avg", "min", "max", "p1", "p5", "p10", "p25", "p50", "p75", "p90",
                              "p95", "p99", "std"}) {
        records += "," + cell(s[key].get<double>(), false);
      }
      records += "\r\n";
    } else {
      system += name_with_unit(m) + "," + cell(m.value, m.integral) + "\r\n";
    }
  }
  std::string out;
  if (!records.empty()) {
    out += "Metric,avg,min,max,p1,p5,p10,p25,p50,p75,p90,p95,p99,std\r\n" + records;
  }
  if (!records.empty() && !system.empty()) out += "\r\n";
  if (!system.empty()) out += "Metric,Value\r\n" + system;
  return out;
}

}  // namespace tokenbench::report
