#pragma once

// A run's figures as llm-d-benchmark's benchmark report, version 0.2 (`tokenbench report DIR
// --as llm-d`), the result schema llm-d's harnesses exchange and its analysis tools read.
//
// Read for it: llm-d/llm-d-benchmark 8bc9f1dd, llmdbenchmark/analysis/benchmark_report/
// schema_v0_2.py (the pydantic model), base.py (Units), br_v0_2_json_schema.json (the JSON
// Schema made from it), README.md, and native_to_br0_2.py's import_vllm_benchmark (how llm-d
// itself maps vLLM's summary keys, which tokenbench's top-level keys follow).
// docs/REPORTS.md, "llm-d benchmark report", has the mapping and what is left out.

#include <nlohmann/json.hpp>
#include <string>

#include "tokenbench/core/run_config.h"

namespace tokenbench::report {

/// The benchmark report's version tokenbench writes ("0.2"; a 0.2.1 reader reads it too).
inline constexpr const char* kLlmdReportVersion = "0.2";

/// The benchmark report (v0.2) of one results directory from its summary.json (`summary`) and
/// configuration (`config`, config.yaml): run.uid is `run_id` (the directory's name),
/// scenario.load what tokenbench sent, results.request_performance.aggregate its request counts,
/// latency distributions and throughputs. Only fields whose definitions match tokenbench's
/// figures are written; every other one is left out (the schema makes them optional), never
/// null. Pure.
nlohmann::json summary_to_llmd_report(const nlohmann::json& summary, const core::RunConfig& config,
                                      const std::string& run_id);

}  // namespace tokenbench::report
