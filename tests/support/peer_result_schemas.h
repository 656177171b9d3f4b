#pragma once

// What each peer's own code requires of the result files tokenbench writes in its layout
// (--export vllm, evalscope), read from the peer's repository at the commit named. Each check
// returns the problems found, empty when the file would load.

#include <algorithm>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <string>
#include <vector>

namespace tokenbench::testing {

// vllm-project/vllm vllm/benchmarks/serve.py @ 009e6d4a: the keys `result_json` holds for a
// generation run with --save-result --save-detailed --percentile-metrics ttft,tpot,itl,e2el
// (main_async and benchmark()), by type; vllm/benchmarks/sweep/plot.py @ 01864b80 reads
// request_throughput and p99_e2el_ms (its default axes) as numbers.
inline std::vector<std::string> vllm_result_problems(const nlohmann::json& j) {
  std::vector<std::string> problems;
  if (!j.is_object()) return {"not an object"};
  const auto need = [&](const char* key, auto ok, const char* type) {
    if (!j.contains(key)) {
      problems.push_back(std::string("missing ") + key);
    } else if (!ok(j[key])) {
      problems.push_back(std::string(key) + " is not " + type);
    }
  };
  const auto string = [](const nlohmann::json& v) { return v.is_string(); };
  const auto string_or_null = [](const nlohmann::json& v) { return v.is_string() || v.is_null(); };
  const auto integer = [](const nlohmann::json& v) { return v.is_number_integer(); };
  const auto number = [](const nlohmann::json& v) { return v.is_number(); };
  const auto number_or_null = [](const nlohmann::json& v) { return v.is_number() || v.is_null(); };
  const auto rate = [](const nlohmann::json& v) { return v.is_number() || v == "inf"; };
  for (const char* key : {"date", "endpoint_type", "backend", "model_id"})
    need(key, string, "a string");
  for (const char* key : {"label", "tokenizer_id"}) need(key, string_or_null, "a string or null");
  need("num_prompts", integer, "an integer");
  need("request_rate", rate, "a number or \"inf\"");
  need("burstiness", number, "a number");
  need(
      "max_concurrency",
      [](const nlohmann::json& v) { return v.is_number_integer() || v.is_null(); },
      "an integer or null");
  for (const char* key : {"completed", "failed", "total_input_tokens", "total_output_tokens",
                          "max_concurrent_requests"}) {
    need(key, integer, "an integer");
  }
  for (const char* key : {"duration", "request_throughput", "output_throughput",
                          "total_token_throughput", "max_output_tokens_per_s", "rtfx"}) {
    need(key, number, "a number");
  }
  need("request_goodput", number_or_null, "a number or null");
  for (const char* metric : {"ttft", "tpot", "itl", "e2el"}) {
    for (const char* stat : {"mean", "median", "std", "p99"}) {
      const std::string key = std::string(stat) + "_" + metric + "_ms";
      need(key.c_str(), number, "a number");
    }
  }
  // --save-detailed: one element per request.
  const char* arrays[] = {"input_lens", "output_lens", "ttfts",           "itls",
                          "latencies",  "start_times", "generated_texts", "errors"};
  std::size_t n = 0;
  bool first = true;
  for (const char* key : arrays) {
    need(
        key, [](const nlohmann::json& v) { return v.is_array(); }, "an array");
    if (!j.contains(key) || !j[key].is_array()) continue;
    if (!first && j[key].size() != n) problems.push_back(std::string(key) + "'s length differs");
    n = j[key].size();
    first = false;
  }
  if (j.contains("itls") && j["itls"].is_array()) {
    for (const auto& gaps : j["itls"]) {
      if (!gaps.is_array()) problems.push_back("itls holds a non-list");
    }
  }
  if (j.contains("completed") && j.contains("failed") && j.contains("ttfts") &&
      j["ttfts"].is_array() &&
      j["ttfts"].size() != j["completed"].get<std::size_t>() + j["failed"].get<std::size_t>()) {
    problems.push_back("the arrays do not hold every request, completed and failed");
  }
  return problems;
}

// modelscope/evalscope evalscope/perf/utils/perf_models.py @ fde259d2: BenchmarkSummary's
// fields by their aliases (perf_constants.py's Metrics), int or float; pydantic ignores other
// keys, so a key it does not know would be lost: none is allowed here.
inline std::vector<std::string> evalscope_summary_problems(const nlohmann::json& j) {
  const std::set<std::string> integers = {"Concurrency",      "Total Requests",
                                          "Success Requests", "Failed Requests",
                                          "Stream Requests",  "Non-Stream Requests"};
  const std::set<std::string> floats = {"Test Duration (s)",
                                        "Request Rate (req/s)",
                                        "Req Throughput (req/s)",
                                        "Avg Latency (s)",
                                        "Avg Input Tokens",
                                        "Output Throughput (tok/s)",
                                        "Total Throughput (tok/s)",
                                        "Avg TTFT (ms)",
                                        "Avg TPOT (ms)",
                                        "Avg ITL (ms)",
                                        "Avg Output Tokens",
                                        "Input Throughput (tok/s)",
                                        "Avg Turns/Request",
                                        "KV Cache Hit Rate (%)",
                                        "Avg First-Turn TTFT (ms)",
                                        "Avg Subsequent-Turn TTFT (ms)",
                                        "Avg Decoded Tok/Iter",
                                        "Spec. Accept Rate"};
  std::vector<std::string> problems;
  if (!j.is_object()) return {"not an object"};
  for (const auto& [key, value] : j.items()) {
    if (integers.contains(key)) {
      if (!value.is_number_integer()) problems.push_back(key + " is not an integer");
    } else if (floats.contains(key)) {
      if (!value.is_number()) problems.push_back(key + " is not a number");
    } else {
      problems.push_back("unknown key " + key + " (BenchmarkSummary would drop it)");
    }
  }
  // perf_archive.py reads these two for its token statistics.
  for (const char* key : {"Avg Input Tokens", "Avg Output Tokens"}) {
    if (!j.contains(key)) problems.push_back(std::string("missing ") + key);
  }
  return problems;
}

// PercentileRow (perf_models.py @ fde259d2): "Percentiles" a string, every other field a known
// column, a number or null; get_percentile_results's rows are min, 1% ... 99%, max, and the
// report's p99 lookups find the row labelled "99%".
inline std::vector<std::string> evalscope_percentile_problems(const nlohmann::json& rows) {
  const std::set<std::string> columns = {
      "Latency (s)",   "TTFT (ms)",      "ITL (ms)",      "TPOT (ms)",     "Input tokens",
      "Output tokens", "Output (tok/s)", "Input (tok/s)", "Total (tok/s)", "Decode (tok/s)"};
  const std::vector<std::string> labels = {"min", "1%",  "5%",  "10%", "25%", "50%",
                                           "75%", "90%", "95%", "99%", "max"};
  std::vector<std::string> problems;
  if (!rows.is_array()) return {"not a list of rows"};
  if (rows.size() != labels.size()) problems.push_back("not 11 rows");
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const auto& row = rows[i];
    if (!row.is_object() || !row.contains("Percentiles") || !row["Percentiles"].is_string()) {
      problems.push_back("a row without its Percentiles label");
      continue;
    }
    if (i < labels.size() && row["Percentiles"] != labels[i]) {
      problems.push_back("row " + std::to_string(i) + " is not " + labels[i]);
    }
    for (const auto& [key, value] : row.items()) {
      if (key == "Percentiles") continue;
      if (!columns.contains(key)) problems.push_back("unknown column " + key);
      if (!value.is_number() && !value.is_null()) problems.push_back(key + " is not a number");
    }
  }
  return problems;
}

// evalscope/perf/utils/report/perf_data.py @ fde259d2 (RunLoader): the run directories it reads.
inline bool evalscope_run_dir_matches(const std::string& name) {
  static const std::regex parallel(R"(^parallel_(\d+)_number_(\d+)$)");
  static const std::regex rate(R"(^rate_(-?[\d.]+)_number_(\d+)$)");
  return std::regex_match(name, parallel) || std::regex_match(name, rate);
}

// ai-dynamo/aiperf aiperf/common/models/export_models.py @ db4f6397: JsonExportData, read by
// JsonExportData.model_validate_json (its tests' loader): every field optional, extra keys
// allowed; a metric is an object with a string `unit` and numbers (or null) for avg, p1 ... p99,
// min, max, std; error_summary's items {error_details: {message: str, ...}, count: int};
// start_time and end_time datetimes; was_cancelled a bool.
inline std::vector<std::string> aiperf_json_problems(const nlohmann::json& j) {
  const std::set<std::string> stats = {"avg", "p1",  "p5",  "p10", "p25", "p50", "p75",
                                       "p90", "p95", "p99", "min", "max", "std"};
  const std::set<std::string> tags = {"request_throughput",
                                      "request_latency",
                                      "request_count",
                                      "time_to_first_token",
                                      "time_to_second_token",
                                      "inter_token_latency",
                                      "output_token_throughput",
                                      "output_token_throughput_per_user",
                                      "output_sequence_length",
                                      "input_sequence_length",
                                      "goodput",
                                      "good_request_count",
                                      "output_token_count",
                                      "reasoning_token_count",
                                      "min_request_timestamp",
                                      "max_response_timestamp",
                                      "inter_chunk_latency",
                                      "total_output_tokens",
                                      "total_reasoning_tokens",
                                      "benchmark_duration",
                                      "total_isl",
                                      "total_osl",
                                      "error_request_count",
                                      "error_isl",
                                      "total_error_isl"};
  std::vector<std::string> problems;
  if (!j.is_object()) return {"not an object"};
  static const std::regex datetime(R"(^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?$)");
  for (const auto& [key, value] : j.items()) {
    if (tags.contains(key)) {
      if (!value.is_object() || !value.contains("unit") || !value["unit"].is_string()) {
        problems.push_back(key + " has no string unit");
        continue;
      }
      for (const auto& [stat, v] : value.items()) {
        if (stat == "unit") continue;
        if (!stats.contains(stat)) problems.push_back(key + "." + stat + " is not a statistic");
        if (!v.is_number() && !v.is_null()) problems.push_back(key + "." + stat + " not a number");
      }
    } else if (key == "was_cancelled") {
      if (!value.is_boolean()) problems.push_back("was_cancelled is not a bool");
    } else if (key == "error_summary") {
      for (const auto& e : value) {
        if (!e.contains("count") || !e["count"].is_number_integer() ||
            !e.contains("error_details") || !e["error_details"].contains("message") ||
            !e["error_details"]["message"].is_string()) {
          problems.push_back("an error_summary item lacks its message or count");
        }
      }
    } else if (key == "start_time" || key == "end_time") {
      if (!value.is_string() || !std::regex_match(value.get<std::string>(), datetime)) {
        problems.push_back(key + " is not a datetime");
      }
    }
  }
  return problems;
}

// aiperf/exporters/csv_exporter.py @ db4f6397: a section of record metrics under
// "Metric,avg,min,max,p1,p5,p10,p25,p50,p75,p90,p95,p99,std", an empty line, then
// "Metric,Value" rows; CRLF line ends; each row's cells as many as its header's.
inline std::vector<std::string> aiperf_csv_problems(const std::string& csv) {
  std::vector<std::string> problems;
  const std::string records = "Metric,avg,min,max,p1,p5,p10,p25,p50,p75,p90,p95,p99,std\r\n";
  if (csv.rfind(records, 0) != 0) problems.push_back("the record metrics' header is not first");
  const auto blank = csv.find("\r\n\r\nMetric,Value\r\n");
  if (blank == std::string::npos) problems.push_back("no blank line before Metric,Value");
  std::size_t at = 0;
  std::size_t columns = 14;
  while (at < csv.size()) {
    const auto end = csv.find("\r\n", at);
    if (end == std::string::npos) {
      problems.push_back("a line without CRLF");
      break;
    }
    const std::string line = csv.substr(at, end - at);
    at = end + 2;
    if (line.empty()) {
      columns = 2;
      continue;
    }
    if (static_cast<std::size_t>(std::count(line.begin(), line.end(), ',')) + 1 != columns) {
      problems.push_back("a row of another width: " + line);
    }
  }
  return problems;
}

// vllm-project/guidellm v0.3.1 (121dcdc4) src/guidellm/benchmark/output.py, benchmark.py,
// objects/statistics.py, scheduler/strategy.py, benchmark/profile.py: what
// GenerativeBenchmarksReport.load_file (json.load, then model_validate) requires, model by
// model: required fields present (nullable ones may be null), discriminators (`type_`) present
// and known, every metric a StatusDistributionSummary whose statuses hold full
// DistributionSummary objects (the console that `benchmark from-file` prints reads successful,
// errored and incomplete), Percentiles' eleven keys, and the requests' stats.
inline std::vector<std::string> guidellm_benchmarks_problems(const nlohmann::json& j) {
  std::vector<std::string> problems;
  const auto need = [&problems](const nlohmann::json& o, const std::string& where,
                                std::initializer_list<const char*> keys, bool nullable) {
    for (const char* k : keys) {
      if (!o.is_object() || !o.contains(k)) {
        problems.push_back(where + "." + k + " is missing");
      } else if (!nullable && o[k].is_null()) {
        problems.push_back(where + "." + k + " is null");
      }
    }
  };
  const auto number = [&problems](const nlohmann::json& o, const std::string& where,
                                  const char* key) {
    if (o.contains(key) && !o[key].is_number())
      problems.push_back(where + "." + key + " not a number");
  };
  if (!j.is_object() || !j.contains("benchmarks") || !j["benchmarks"].is_array()) {
    return {"no benchmarks list"};
  }
  for (std::size_t b = 0; b < j["benchmarks"].size(); ++b) {
    const auto& g = j["benchmarks"][b];
    const std::string at = "benchmarks[" + std::to_string(b) + "]";
    if (g.contains("type_") && g["type_"] != "generative_benchmark") {
      problems.push_back(at + ".type_ is not generative_benchmark");
    }
    need(g, at,
         {"run_id", "args", "run_stats", "worker", "request_loader", "extras", "metrics",
          "start_time", "end_time", "request_totals", "requests"},
         false);
    if (!problems.empty()) return problems;
    const auto& args = g["args"];
    need(args, at + ".args", {"profile", "strategy_index", "strategy"}, false);
    need(args, at + ".args",
         {"max_number", "max_duration", "warmup_number", "warmup_duration", "cooldown_number",
          "cooldown_duration"},
         true);
    static const std::set<std::string> profiles = {"synchronous", "concurrent", "throughput",
                                                   "async",       "sweep",      "profile"};
    static const std::set<std::string> strategies = {"synchronous", "concurrent", "throughput",
                                                     "constant",    "poisson",    "strategy"};
    const auto& profile = args["profile"];
    if (!profile.contains("type_") || !profiles.contains(profile["type_"].get<std::string>())) {
      problems.push_back(at + ".args.profile has no known type_");
    } else if (profile["type_"] == "concurrent") {
      need(profile, at + ".args.profile", {"streams"}, false);
    } else if (profile["type_"] == "async") {
      need(profile, at + ".args.profile", {"strategy_type", "rate"}, false);
    }
    const auto& strategy = args["strategy"];
    if (!strategy.contains("type_") || !strategies.contains(strategy["type_"].get<std::string>())) {
      problems.push_back(at + ".args.strategy has no known type_");
    } else if (strategy["type_"] == "concurrent") {
      need(strategy, at + ".args.strategy", {"streams"}, false);
    } else if (strategy["type_"] == "constant" || strategy["type_"] == "poisson") {
      need(strategy, at + ".args.strategy", {"rate"}, false);
    }
    const auto& stats = g["run_stats"];
    need(stats, at + ".run_stats",
         {"start_time", "end_time", "requests_made", "queued_time_avg", "scheduled_time_delay_avg",
          "scheduled_time_sleep_avg", "worker_start_delay_avg", "worker_time_avg",
          "worker_start_time_targeted_delay_avg", "request_start_time_delay_avg",
          "request_start_time_targeted_delay_avg", "request_time_delay_avg", "request_time_avg"},
         false);
    const auto& worker = g["worker"];
    need(worker, at + ".worker", {"backend_type", "backend_target", "backend_model"}, false);
    if (worker.value("backend_type", std::string()) != "openai_http") {
      problems.push_back(at + ".worker.backend_type is not openai_http");
    }
    need(g["request_loader"], at + ".request_loader", {"data", "processor"}, false);
    need(g["request_loader"], at + ".request_loader", {"data_args", "processor_args"}, true);
    for (const char* status : {"successful", "errored", "incomplete", "total"}) {
      const auto& totals = g["request_totals"];
      if (totals.contains(status) && !totals[status].is_number_integer()) {
        problems.push_back(at + ".request_totals." + status + " is not an integer");
      }
    }
    const char* metrics[] = {"requests_per_second",      "request_concurrency",
                             "request_latency",          "prompt_token_count",
                             "output_token_count",       "time_to_first_token_ms",
                             "time_per_output_token_ms", "inter_token_latency_ms",
                             "output_tokens_per_second", "tokens_per_second"};
    for (const char* metric : metrics) {
      const std::string where = at + ".metrics." + metric;
      if (!g["metrics"].contains(metric)) {
        problems.push_back(where + " is missing");
        continue;
      }
      for (const char* status : {"successful", "errored", "incomplete", "total"}) {
        const auto& d = g["metrics"][metric];
        const std::string in = where + "." + status;
        need(d, where, {status}, false);
        if (!d.contains(status) || d[status].is_null()) continue;
        need(d[status], in,
             {"mean", "median", "mode", "variance", "std_dev", "min", "max", "count", "total_sum",
              "percentiles"},
             false);
        for (const char* k :
             {"mean", "median", "mode", "variance", "std_dev", "min", "max", "total_sum"}) {
          number(d[status], in, k);
        }
        if (d[status].contains("count") && !d[status]["count"].is_number_integer()) {
          problems.push_back(in + ".count is not an integer");
        }
        if (d[status].contains("percentiles")) {
          need(d[status]["percentiles"], in + ".percentiles",
               {"p001", "p01", "p05", "p10", "p25", "p50", "p75", "p90", "p95", "p99", "p999"},
               false);
        }
      }
    }
    const auto& requests = g["requests"];
    for (const char* status : {"successful", "errored", "incomplete"}) {
      if (!requests.contains(status) || !requests[status].is_array()) {
        problems.push_back(at + ".requests." + status + " is not a list");
        continue;
      }
      for (const auto& r : requests[status]) {
        const std::string where = at + ".requests." + status + "[]";
        need(r, where,
             {"request_type", "scheduler_info", "prompt", "prompt_tokens", "output_tokens",
              "start_time", "end_time"},
             false);
        need(r, where, {"request_id"}, true);
        if (std::string_view(status) == "successful") {
          need(r, where, {"output", "first_token_time", "last_token_time"}, false);
        } else {
          need(r, where, {"error"}, false);
        }
        const std::string type = r.value("request_type", std::string());
        if (type != "text_completions" && type != "chat_completions") {
          problems.push_back(where + ".request_type is " + type);
        }
      }
    }
  }
  return problems;
}

}  // namespace tokenbench::testing
