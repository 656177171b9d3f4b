#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "tokenbench/telemetry/scrape.h"

// What a server's /metrics says about the engine's features over the measure phase: speculative
// decoding's acceptance, and the LoRA adapters it served. Pure functions of scrapes.
namespace tokenbench::telemetry {

/// Speculative decoding over the measure phase, as vLLM's `bench serve` prints it
/// (docs/TELEMETRY.md).
struct SpecDecodeStat {
  /// The counters' differences; absent (NaN) where the server exports only the mean length.
  double drafts = 0;
  double draft_tokens = 0;
  double accepted = 0;
  /// accepted / draft_tokens: the share of proposed tokens the target model kept.
  double acceptance_rate = 0;
  /// 1 + accepted / drafts: tokens each verification step gave a sequence (the bonus included).
  double acceptance_length = 0;
  /// accepted at position i / drafts: how often the i-th draft token survived.
  std::vector<double> per_position;
  /// Where it came from: "counters" (the differences above) or "gauge" (SGLang's mean length).
  std::string source;
};

/// The LoRA adapters the server ran over the measure phase (vLLM's lora_requests_info).
struct LoraStat {
  std::vector<std::string> adapters;  ///< every adapter seen running, sorted
  int max_running = 0;                ///< most adapters running at once in a scrape
  int max_waiting = 0;                ///< most adapters waiting at once
  double max_lora = 0;                ///< the server's limit
  int samples = 0;
};

/// The acceptance from the counters at the measure phase's edges `start` and `end` (`scrapes`:
/// the gauge's readings in between); nullopt when the server does not speculate or drafted
/// nothing.
std::optional<SpecDecodeStat> spec_decode_stat(const std::vector<Scrape>& scrapes,
                                               const Scrape& start, const Scrape& end);

/// The adapters of the scrapes from `start` to `end`; nullopt without lora_requests_info.
std::optional<LoraStat> lora_stat(const std::vector<Scrape>& scrapes, const Scrape& start,
                                  const Scrape& end);

nlohmann::json spec_decode_to_json(const std::optional<SpecDecodeStat>& stat);
nlohmann::json lora_to_json(const std::optional<LoraStat>& stat);
/// The console's lines, "" when there is nothing to say.
std::string render_spec_decode(const std::optional<SpecDecodeStat>& stat);
std::string render_lora(const std::optional<LoraStat>& stat);

/// A snapshot's features for telemetry.jsonl, and back.
void features_to_json(const ServerSnapshot& snapshot, nlohmann::json& out);
void features_from_json(const nlohmann::json& in, ServerSnapshot& snapshot);

}  // namespace tokenbench::telemetry
