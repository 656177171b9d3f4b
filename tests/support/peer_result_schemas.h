#pragma once

// What each peer's own code requires of the result files tokenbench writes in its layout
// (--export vllm, evalscope), read from the peer's repository at the commit named. Each check
// returns the problems found, empty when the file would load.

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

}  // namespace tokenbench::testing
