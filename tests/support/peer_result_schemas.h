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

}  // namespace tokenbench::testing
