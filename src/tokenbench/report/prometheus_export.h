#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace tokenbench::report {

/// A run's figures as Prometheus exposition text (format 0.0.4), for a node exporter's textfile
/// collector or a Pushgateway (`tokenbench report DIR --as prometheus`): every numeric top-level
/// key of summary.json (the vLLM-compatible figures) as a gauge `tokenbench_<key>`, the server's
/// speculative decoding and each --lora-modules / --model-mix member's TTFT, TPOT and E2EL
/// figures, and `tokenbench_run_info` (1) carrying the run's identity. Every sample is labelled
/// with `model`, `backend` and the run's --label values (`label_<name>`). docs/REPORTS.md
/// lists the names. Pure.
std::string summary_to_prometheus(const nlohmann::json& summary);

}  // namespace tokenbench::report
