// GuideLLM's benchmarks.json (peer_files.h), as vllm-project/guidellm v0.3.1 (121dcdc4) writes
// it: GenerativeBenchmarksReport.save_json of one GenerativeBenchmark (src/guidellm/benchmark/
// benchmark.py, from_stats), its distributions as src/guidellm/objects/statistics.py builds them
// (a weighted PDF and its CDF; a percentile is the first value whose cumulative probability
// reaches it; the rates and concurrency weighted by time).

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "tokenbench/core/clock.h"
#include "tokenbench/report/otlp_export.h"
#include "tokenbench/report/peer_files.h"

namespace tokenbench::report {
namespace {

using nlohmann::ordered_json;

constexpr double kEpsilon = 1e-6;  // statistics.py: events closer than this are one

// DistributionSummary.from_distribution_function over (value, weight) pairs.
ordered_json distribution(std::vector<std::pair<double, double>> pairs) {
  std::stable_sort(pairs.begin(), pairs.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  double weights = 0;
  for (const auto& [v, w] : pairs) weights += w;
  std::vector<double> cdf;
  double cumulative = 0;
  double mean = 0;
  double total = 0;
  std::size_t mode = 0;
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    const double p = pairs[i].second / weights;
    cumulative += p;
    cdf.push_back(cumulative);
    mean += pairs[i].first * p;
    total += pairs[i].first;
    if (p > pairs[mode].second / weights) mode = i;
  }
  double variance = 0;
  for (const auto& [v, w] : pairs) variance += (v - mean) * (v - mean) * (w / weights);
  // np.argmax of the first cumulative probability >= q (index 0 when none is).
  const auto at = [&](double q) {
    for (std::size_t i = 0; i < cdf.size(); ++i) {
      if (cdf[i] >= q) return pairs[i].first;
    }
    return pairs.empty() ? 0.0 : pairs[0].first;
  };
  const bool empty = pairs.empty();
  ordered_json out;
  out["mean"] = empty ? 0.0 : mean;
  out["median"] = at(0.5);
  out["mode"] = empty ? 0.0 : pairs[mode].first;
  out["variance"] = empty ? 0.0 : variance;
  out["std_dev"] = empty ? 0.0 : std::sqrt(variance);
  out["min"] = empty ? 0.0 : pairs.front().first;
  out["max"] = empty ? 0.0 : pairs.back().first;
  out["count"] = pairs.size();
  out["total_sum"] = total;
  ordered_json p;
  for (const auto& [name, q] : {std::pair{"p001", 0.001},
                                {"p01", 0.01},
                                {"p05", 0.05},
                                {"p10", 0.1},
                                {"p25", 0.25},
                                {"p50", 0.5},
                                {"p75", 0.75},
                                {"p90", 0.9},
                                {"p95", 0.95},
                                {"p99", 0.99},
                                {"p999", 0.999}}) {
    p[name] = at(q);
  }
  out["percentiles"] = p;
  out["cumulative_distribution_function"] = nullptr;
  return out;
}

// Events closer than kEpsilon folded into the first (statistics.py's "flattened events").
std::vector<std::pair<double, double>> flattened(std::vector<std::pair<double, double>> events) {
  std::sort(events.begin(), events.end());
  std::vector<std::pair<double, double>> out;
  for (const auto& [t, v] : events) {
    if (!out.empty() && std::abs(out.back().first - t) <= kEpsilon) {
      out.back().second += v;
    } else {
      out.emplace_back(t, v);
    }
  }
  return out;
}

// Each value's share of the time between consecutive events, as a distribution.
std::vector<std::pair<double, double>> time_weighted(
    const std::vector<std::pair<double, double>>& events, bool rate) {
  std::map<double, double> by_value;
  for (std::size_t i = 0; i + 1 < events.size(); ++i) {
    const double duration = events[i + 1].first - events[i].first;
    by_value[rate ? events[i].second / duration : events[i].second] += duration;
  }
  return {by_value.begin(), by_value.end()};
}

// One request as GuideLLM's stats hold it: epoch seconds, its status.
struct Request {
  std::string status;  // "successful" or "error"
  double start = 0;
  double end = 0;
  double first = 0;  // the first token's time; start when none came
  double last = 0;
  bool has_tokens = false;
  std::int64_t prompt = 0;
  std::int64_t output = 0;
  const core::RequestRecord* record = nullptr;
};

using Values = std::vector<std::pair<const Request*, std::pair<double, double>>>;

// StatusDistributionSummary: the distribution of every value, and of each status's.
ordered_json by_status(const Values& values) {
  ordered_json out;
  for (const char* status : {"successful", "errored", "incomplete", "total"}) {
    std::vector<std::pair<double, double>> pairs;
    for (const auto& [r, vw] : values) {
      const bool match = std::string_view(status) == "total" ||
                         (std::string_view(status) == "errored" && r->status == "error") ||
                         r->status == status;
      if (match) pairs.push_back(vw);
    }
    out[status] = distribution(std::move(pairs));
  }
  return out;
}

// from_request_times / from_iterable_request_times, per status.
template <typename F>
ordered_json timed_by_status(const std::vector<Request>& requests, F events_of) {
  ordered_json out;
  for (const char* status : {"successful", "errored", "incomplete", "total"}) {
    std::vector<const Request*> chosen;
    for (const Request& r : requests) {
      if (std::string_view(status) == "total" ||
          (std::string_view(status) == "errored" && r.status == "error") || r.status == status) {
        chosen.push_back(&r);
      }
    }
    out[status] = distribution(events_of(chosen));
  }
  return out;
}

std::vector<std::pair<double, double>> concurrency(const std::vector<const Request*>& rs) {
  std::vector<std::pair<double, double>> events;
  for (const Request* r : rs) {
    events.emplace_back(r->start, 1);
    events.emplace_back(r->end, -1);
  }
  auto flat = flattened(std::move(events));
  double active = 0;
  for (auto& [t, v] : flat) v = active += v;
  return time_weighted(flat, false);
}

std::vector<std::pair<double, double>> rate(const std::vector<const Request*>& rs) {
  if (rs.empty()) return {};
  double global_start = rs.front()->start;
  for (const Request* r : rs) global_start = std::min(global_start, r->start);
  std::vector<std::pair<double, double>> events{{global_start, 1}};
  for (const Request* r : rs) events.emplace_back(r->end, 1);
  return time_weighted(flattened(std::move(events)), true);
}

// from_iterable_request_times: each token an event, the first carrying `first_count(r)`.
template <typename F>
std::vector<std::pair<double, double>> iterations(const std::vector<const Request*>& rs,
                                                  F first_count) {
  std::vector<const Request*> with_output;
  for (const Request* r : rs) {
    if (r->output > 0) with_output.push_back(r);
  }
  if (with_output.empty()) return {};
  std::map<double, double> events;
  double global_start = with_output.front()->start;
  double global_end = with_output.front()->end;
  for (const Request* r : with_output) {
    global_start = std::min(global_start, r->start);
    global_end = std::max(global_end, r->end);
  }
  events[global_start] += 0;
  events[global_end] += 0;
  for (const Request* r : with_output) {
    events[r->first] += first_count(*r);
    if (r->output > 1) {
      const double gap = (r->end - r->first) / static_cast<double>(r->output - 1);
      for (std::int64_t i = 1; i < r->output; ++i) events[r->first + gap * i] += 1;
    }
  }
  return time_weighted(flattened({events.begin(), events.end()}), true);
}

// The requests of the measure phase in epoch seconds: the run's start label plus each stamp's
// offset from the first request sent.
std::vector<Request> requests_of(const PeerFileInput& in) {
  core::Nanos first_sent = core::kNever;
  for (const auto& r : in.records) {
    if (measured_request(r)) {
      first_sent = first_sent == core::kNever ? r.sent : std::min(first_sent, r.sent);
    }
  }
  const std::int64_t started_ns = iso8601_to_unix_ns(in.config.started_at);
  const double epoch = started_ns < 0 ? 0.0 : static_cast<double>(started_ns) / 1e9;
  const auto at = [&](core::Nanos t) { return epoch + static_cast<double>(t - first_sent) / 1e9; };
  std::vector<Request> out;
  for (const auto& r : in.records) {
    if (!measured_request(r)) continue;
    Request q;
    q.record = &r;
    q.status = r.ok() ? "successful" : "error";
    q.start = at(r.sent);
    q.end = at(r.done == core::kNever ? r.sent : r.done);
    q.has_tokens = r.first_token != core::kNever;
    q.first = q.has_tokens ? at(r.first_token) : q.start;
    q.last = r.last_token != core::kNever ? at(r.last_token) : q.first;
    q.prompt = r.prompt_tokens;
    q.output = r.ok() ? r.output_tokens : 0;
    out.push_back(q);
  }
  return out;
}

ordered_json metrics(const std::vector<Request>& requests) {
  Values latency, prompt, output, ttft, tpot, itl;
  for (const Request& r : requests) {
    latency.push_back({&r, {r.end - r.start, 1}});
    if (r.prompt > 0) prompt.push_back({&r, {static_cast<double>(r.prompt), 1}});
    if (r.output > 0) {
      const auto n = static_cast<double>(r.output);
      output.push_back({&r, {n, 1}});
      ttft.push_back({&r, {1000 * (r.first - r.start), 1}});
      tpot.push_back({&r, {1000 * (r.last - r.first) / n, n}});
    }
    if (r.output > 1) {
      const auto n = static_cast<double>(r.output - 1);
      itl.push_back({&r, {1000 * (r.last - r.first) / n, n}});
    }
  }
  ordered_json m;
  m["requests_per_second"] = timed_by_status(requests, rate);
  m["request_concurrency"] = timed_by_status(requests, concurrency);
  m["request_latency"] = by_status(latency);
  m["prompt_token_count"] = by_status(prompt);
  m["output_token_count"] = by_status(output);
  m["time_to_first_token_ms"] = by_status(ttft);
  m["time_per_output_token_ms"] = by_status(tpot);
  m["inter_token_latency_ms"] = by_status(itl);
  m["output_tokens_per_second"] = timed_by_status(
      requests, [](const auto& rs) { return iterations(rs, [](const Request&) { return 1.0; }); });
  m["tokens_per_second"] = timed_by_status(requests, [](const auto& rs) {
    return iterations(rs, [](const Request& r) { return static_cast<double>(r.prompt + 1); });
  });
  return m;
}

// BenchmarkArgs' profile and strategy: the run's load as GuideLLM names it.
std::pair<ordered_json, ordered_json> profile_of(const core::RunConfig& c) {
  ordered_json profile;
  ordered_json strategy;
  if (!std::isinf(c.request_rate) && c.request_rate > 0) {
    const std::string kind = c.arrival == core::ArrivalKind::kConstant ? "constant" : "poisson";
    profile = {{"type_", "async"}, {"strategy_type", kind}, {"rate", c.request_rate}};
    strategy = {{"type_", kind}, {"rate", c.request_rate}};
  } else if (c.max_concurrency == 1) {
    profile = {{"type_", "synchronous"}};
    strategy = {{"type_", "synchronous"}};
  } else if (c.max_concurrency > 1) {
    profile = {{"type_", "concurrent"}, {"streams", c.max_concurrency}};
    strategy = {{"type_", "concurrent"}, {"streams", c.max_concurrency}};
  } else {
    profile = {{"type_", "throughput"}, {"max_concurrency", nullptr}};
    strategy = {{"type_", "throughput"}, {"max_concurrency", nullptr}};
  }
  return {profile, strategy};
}

ordered_json request_stats(const Request& r, const std::string& request_type) {
  ordered_json out;
  const bool ok = r.status == "successful";
  out["type_"] = ok ? "generative_text_response" : "generative_text_error";
  out["request_id"] =
      r.record->request_id.empty() ? ordered_json(nullptr) : ordered_json(r.record->request_id);
  out["request_type"] = request_type;
  out["scheduler_info"] = ordered_json::object();
  out["prompt"] = r.record->prompt_text;
  out["output"] = ok ? ordered_json(r.record->output_text) : ordered_json(nullptr);
  out["prompt_tokens"] = r.prompt;
  out["output_tokens"] = r.output;
  out["start_time"] = r.start;
  out["end_time"] = r.end;
  out["first_token_time"] = r.has_tokens ? ordered_json(r.first) : ordered_json(nullptr);
  out["last_token_time"] = r.has_tokens ? ordered_json(r.last) : ordered_json(nullptr);
  if (!ok) out["error"] = r.record->error_message;
  return out;
}

}  // namespace

std::string guidellm_benchmarks(const PeerFileInput& in) {
  const core::RunConfig& c = in.config;
  const std::vector<Request> requests = requests_of(in);
  double start = 0;
  double end = 0;
  std::int64_t ok = 0;
  double request_time = 0;
  double queued = 0;
  for (std::size_t i = 0; i < requests.size(); ++i) {
    const Request& r = requests[i];
    start = i == 0 ? r.start : std::min(start, r.start);
    end = i == 0 ? r.end : std::max(end, r.end);
    ok += r.status == "successful" ? 1 : 0;
    request_time += r.end - r.start;
    if (r.record->scheduled != core::kNever && r.record->sent > r.record->scheduled) {
      queued += static_cast<double>(r.record->sent - r.record->scheduled) / 1e9;
    }
  }
  const auto n = static_cast<double>(std::max<std::size_t>(requests.size(), 1));
  const auto total = static_cast<std::int64_t>(requests.size());
  const ordered_json counts = {
      {"successful", ok}, {"errored", total - ok}, {"incomplete", 0}, {"total", total}};
  auto [profile, strategy] = profile_of(c);
  ordered_json args;
  args["profile"] = profile;
  args["strategy_index"] = 0;
  args["strategy"] = strategy;
  args["max_number"] = c.duration_s > 0 ? ordered_json(nullptr) : ordered_json(c.num_prompts);
  args["max_duration"] = c.duration_s > 0 ? ordered_json(c.duration_s) : ordered_json(nullptr);
  args["warmup_number"] = c.warmup > 0 ? ordered_json(c.warmup) : ordered_json(nullptr);
  args["warmup_duration"] = nullptr;
  args["cooldown_number"] = nullptr;
  args["cooldown_duration"] = nullptr;
  ordered_json run_stats;
  run_stats["start_time"] = start;
  run_stats["end_time"] = end;
  run_stats["requests_made"] = counts;
  // GuideLLM's scheduler and worker processes' delays, which tokenbench has not: 0; the client's
  // own queue (send - schedule) and the requests' time are measured.
  run_stats["queued_time_avg"] = queued / n;
  for (const char* key :
       {"scheduled_time_delay_avg", "scheduled_time_sleep_avg", "worker_start_delay_avg",
        "worker_time_avg", "worker_start_time_targeted_delay_avg"}) {
    run_stats[key] = 0.0;
  }
  run_stats["request_start_time_delay_avg"] = queued / n;
  run_stats["request_start_time_targeted_delay_avg"] = queued / n;
  run_stats["request_time_delay_avg"] = 0.0;
  run_stats["request_time_avg"] = request_time / n;
  const bool chat = c.api == core::ApiKind::kOpenAIChat;
  const std::string request_type = chat ? "chat_completions" : "text_completions";
  ordered_json worker = {{"type_", "generative_requests_worker"},
                         {"backend_type", "openai_http"},
                         {"backend_target", c.base_url},
                         {"backend_model", c.model},
                         {"backend_info", ordered_json::object()}};
  const std::string data = c.dataset_path.empty() ? fmt::format("prompt_tokens={},output_tokens={}",
                                                                c.input_len, c.output_len)
                                                  : c.dataset_path;
  ordered_json loader = {{"type_", "generative_request_loader"},
                         {"data", data},
                         {"data_args", nullptr},
                         {"processor", c.tokenizer.empty() ? c.model : c.tokenizer},
                         {"processor_args", nullptr}};
  ordered_json successful = ordered_json::array();
  ordered_json errored = ordered_json::array();
  for (const Request& r : requests) {
    (r.status == "successful" ? successful : errored).push_back(request_stats(r, request_type));
  }
  ordered_json benchmark;
  benchmark["type_"] = "generative_benchmark";
  benchmark["id_"] = fmt::format("tokenbench-{}", in.summary.value("date", std::string()));
  benchmark["run_id"] = benchmark["id_"];
  benchmark["args"] = args;
  benchmark["run_stats"] = run_stats;
  benchmark["worker"] = worker;
  benchmark["request_loader"] = loader;
  benchmark["extras"] = ordered_json::object();
  benchmark["metrics"] = metrics(requests);
  benchmark["start_time"] = start;
  benchmark["end_time"] = end;
  benchmark["request_totals"] = counts;
  benchmark["request_samples"] = nullptr;
  benchmark["requests"] = {{"successful", successful},
                           {"errored", errored},
                           {"incomplete", ordered_json::array()},
                           {"total", nullptr}};
  benchmark["duration"] = end - start;
  ordered_json out;
  out["benchmarks"] = ordered_json::array({benchmark});
  return out.dump(4);
}

}  // namespace tokenbench::report
