// EvalScope's perf result files (peer_files.h), as modelscope/evalscope writes them at fde259d2:
// benchmark_summary.json from BenchmarkMetrics (evalscope/perf/utils/benchmark_util.py,
// create_message; keys from perf_constants.py's Metrics) and benchmark_percentile.json from
// get_percentile_results (evalscope/perf/utils/db_util.py): a list of rows, min, 1% ... 99%, max.

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "tokenbench/core/clock.h"
#include "tokenbench/metrics/peer_views.h"
#include "tokenbench/report/peer_files.h"

namespace tokenbench::report {
namespace {

using nlohmann::json;

constexpr double kNan = std::numeric_limits<double>::quiet_NaN();

// Python's round(x, digits).
double rounded(double x, int digits) {
  const double scale = std::pow(10.0, digits);
  return std::round(x * scale) / scale;
}

// One request as EvalScope's BenchmarkData holds it, in seconds.
struct Sample {
  bool ok = false;
  bool stream = true;
  double start = 0;
  double completed = 0;
  double latency = 0;
  double first_chunk = 0;  // the first chunk's latency (the whole latency when not streamed)
  double tpot = 0;         // (latency - first_chunk) / (completion - 1); 0 for one token or none
  std::int64_t prompt = 0;
  std::int64_t completion = 0;
  std::vector<double> chunk_gaps;
};

std::vector<Sample> samples_of(const std::vector<core::RequestRecord>& records) {
  std::vector<Sample> out;
  for (const auto& r : records) {
    if (!measured_request(r)) continue;  // warmup left out, as EvalScope leaves it
    Sample s;
    s.ok = r.ok() && r.done != core::kNever;
    s.stream = r.streamed;
    s.start = static_cast<double>(r.sent) / 1e9;
    s.completed = static_cast<double>(r.done == core::kNever ? r.sent : r.done) / 1e9;
    if (s.ok) {
      s.latency = static_cast<double>(r.done - r.sent) / 1e9;
      s.first_chunk = r.first_token != core::kNever && s.stream
                          ? static_cast<double>(r.first_token - r.sent) / 1e9
                          : s.latency;
      s.prompt = r.prompt_tokens;
      s.completion = r.output_tokens;
      if (s.completion > 1) {
        s.tpot = (s.latency - s.first_chunk) / static_cast<double>(s.completion - 1);
      }
      for (std::size_t i = 1; i < r.chunks.size(); ++i) {
        s.chunk_gaps.push_back(static_cast<double>(r.chunks[i].t - r.chunks[i - 1].t) / 1e9);
      }
    }
    out.push_back(std::move(s));
  }
  return out;
}

double mean_or(const std::vector<double>& v, double fallback) {
  if (v.empty()) return fallback;
  double sum = 0;
  for (double x : v) sum += x;
  return sum / static_cast<double>(v.size());
}

bool embeds(const core::RunConfig& config) { return core::scores_inputs(config.api); }

// Ascending with NaN (a zero latency's rate) last: a strict weak order, unlike `<` with NaN.
void sort_nan_last(std::vector<double>& v) {
  std::sort(v.begin(), v.end(), [](double a, double b) {
    return std::isnan(b) ? !std::isnan(a) : (!std::isnan(a) && a < b);
  });
}

}  // namespace

std::string evalscope_run_dir(const json& summary) {
  const json rate = summary.value("request_rate", json("inf"));
  const json concurrency = summary.value("max_concurrency", json());
  const auto number = summary.value("num_prompts", std::int64_t{0});
  if (rate.is_number()) return fmt::format("rate_{}_number_{}", rate.get<double>(), number);
  return fmt::format("parallel_{}_number_{}", concurrency.is_number() ? concurrency.get<int>() : 0,
                     number);
}

json evalscope_summary(const PeerFileInput& in) {
  const std::vector<Sample> all = samples_of(in.records);
  double wall_start = std::numeric_limits<double>::infinity();
  double wall_end = -std::numeric_limits<double>::infinity();
  std::int64_t ok = 0, streamed = 0, prompt = 0, completion = 0;
  std::vector<double> latency, first_chunk, first_chunk_stream, tpot, tpot_stream, gaps;
  for (const Sample& s : all) {
    wall_start = std::min(wall_start, s.start);
    wall_end = std::max(wall_end, s.completed);
    streamed += s.stream ? 1 : 0;
    if (!s.ok) continue;
    ++ok;
    latency.push_back(s.latency);
    first_chunk.push_back(s.first_chunk);
    tpot.push_back(s.tpot);
    if (s.stream) {
      first_chunk_stream.push_back(s.first_chunk);
      tpot_stream.push_back(s.tpot);
    }
    prompt += s.prompt;
    completion += s.completion;
    gaps.insert(gaps.end(), s.chunk_gaps.begin(), s.chunk_gaps.end());
  }
  const double wall = all.empty() ? 1.0 : std::max(wall_end - wall_start, 0.0);
  const auto per = [](double a, double b) { return b != 0 ? a / b : -1.0; };
  const bool stream_rows = !first_chunk_stream.empty();
  const double rate = in.config.request_rate;
  json out = json::object();
  out["Test Duration (s)"] = rounded(wall, 4);
  out["Concurrency"] = in.config.max_concurrency;
  out["Request Rate (req/s)"] = std::isinf(rate) || rate <= 0 ? -1.0 : rate;
  out["Total Requests"] = static_cast<std::int64_t>(all.size());
  out["Success Requests"] = ok;
  out["Failed Requests"] = static_cast<std::int64_t>(all.size()) - ok;
  out["Stream Requests"] = streamed;
  out["Non-Stream Requests"] = static_cast<std::int64_t>(all.size()) - streamed;
  out["Req Throughput (req/s)"] = rounded(per(static_cast<double>(ok), wall), 4);
  out["Avg Latency (s)"] = rounded(mean_or(latency, -1), 4);
  out["Avg Input Tokens"] = rounded(per(static_cast<double>(prompt), static_cast<double>(ok)), 4);
  out["Output Throughput (tok/s)"] =
      embeds(in.config) ? 0.0 : rounded(per(static_cast<double>(completion), wall), 4);
  out["Total Throughput (tok/s)"] =
      embeds(in.config) ? 0.0 : rounded(per(static_cast<double>(prompt + completion), wall), 4);
  out["Avg TTFT (ms)"] =
      rounded(mean_or(stream_rows ? first_chunk_stream : first_chunk, -1) * 1000, 2);
  out["Avg TPOT (ms)"] = rounded(mean_or(stream_rows ? tpot_stream : tpot, -1) * 1000, 2);
  out["Avg ITL (ms)"] = rounded(mean_or(gaps, 0.0) * 1000, 2);
  out["Avg Output Tokens"] =
      rounded(per(static_cast<double>(completion), static_cast<double>(ok)), 4);
  double first_chunk_sum = 0;
  for (double v : first_chunk) first_chunk_sum += v;
  out["Input Throughput (tok/s)"] =
      embeds(in.config) ? rounded(per(static_cast<double>(prompt), first_chunk_sum), 4) : 0.0;
  return out;
}

json evalscope_percentiles(const PeerFileInput& in) {
  const std::vector<Sample> all = samples_of(in.records);
  std::vector<const Sample*> ok, streaming;
  for (const Sample& s : all) {
    if (!s.ok) continue;
    ok.push_back(&s);
    if (s.stream) streaming.push_back(&s);
  }
  if (streaming.empty()) streaming = ok;  // a run without streams: every row, as EvalScope does
  const auto column = [](const std::vector<const Sample*>& rows, auto f) {
    std::vector<double> v;
    v.reserve(rows.size());
    for (const Sample* s : rows) v.push_back(f(*s));
    sort_nan_last(v);
    return v;
  };
  const auto per_latency = [](double x, const Sample& s) {
    return s.latency > 0 ? x / s.latency : kNan;
  };
  std::vector<std::pair<std::string, std::vector<double>>> columns;
  if (embeds(in.config)) {
    columns = {{"Latency (s)", column(ok, [](const Sample& s) { return s.latency; })},
               {"Input tokens", column(ok, [](const Sample& s) { return 1.0 * s.prompt; })},
               {"Input (tok/s)",
                column(ok, [&](const Sample& s) { return per_latency(1.0 * s.prompt, s); })}};
  } else {
    std::vector<double> gaps;
    for (const Sample* s : ok) {
      for (double g : s->chunk_gaps) gaps.push_back(g * 1000);
    }
    sort_nan_last(gaps);
    columns = {
        {"TTFT (ms)", column(streaming, [](const Sample& s) { return s.first_chunk * 1000; })},
        {"ITL (ms)", gaps},
        {"TPOT (ms)", column(streaming, [](const Sample& s) { return s.tpot * 1000; })},
        {"Decode (tok/s)",
         column(streaming, [](const Sample& s) { return s.tpot > 0 ? 1.0 / s.tpot : kNan; })},
        {"Latency (s)", column(ok, [](const Sample& s) { return s.latency; })},
        {"Input tokens", column(ok, [](const Sample& s) { return 1.0 * s.prompt; })},
        {"Output tokens", column(ok, [](const Sample& s) { return 1.0 * s.completion; })},
        {"Output (tok/s)",
         column(ok, [&](const Sample& s) { return per_latency(1.0 * s.completion, s); })},
        {"Total (tok/s)",
         column(ok,
                [&](const Sample& s) { return per_latency(1.0 * (s.prompt + s.completion), s); })},
    };
  }
  const std::pair<const char*, double> points[] = {
      {"min", 0},  {"1%", 1},   {"5%", 5},   {"10%", 10}, {"25%", 25}, {"50%", 50},
      {"75%", 75}, {"90%", 90}, {"95%", 95}, {"99%", 99}, {"max", 100}};
  json rows = json::array();
  for (const auto& [label, p] : points) {
    json row = json::object();
    row["Percentiles"] = label;
    for (const auto& [name, values] : columns) {
      const double v = metrics::floor_index_percentile(values, p);
      row[name] = std::isnan(v) ? json(nullptr) : json(rounded(v, 2));
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

}  // namespace tokenbench::report
