#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tokenbench::sim {

/// The name of LoRA adapter `index` as the server serves it: "lora-<index>".
std::string lora_name(std::int64_t index);

/// The index of the adapter `model` names ("lora-<i>" with i < `adapters`), or -1. Pure.
std::int32_t lora_index(std::string_view model, std::int64_t adapters);

/// Appends the names of the adapters whose flag is set, ascending and comma-separated
/// ("lora-0,lora-2"); nothing when none is.
void append_lora_names(std::string& out, const std::vector<char>& set);

/// Which LoRA adapters the engine model holds loaded (--lora-adapters, --max-loras, vLLM's
/// max_loras): at most `max_loras` at once. A request for an adapter that is not loaded loads it
/// when admitted, evicting the least recently used loaded adapter that no running sequence uses;
/// when every loaded adapter is in use, the request cannot be admitted yet. Since only loaded
/// adapters run, the running batch never holds more than `max_loras` distinct adapters.
///
/// Pure and single-threaded: owned by the EngineModel. Adapter -1 is the base model: always
/// admissible, never counted.
class LoraSlots {
 public:
  LoraSlots(std::int64_t adapters, std::int64_t max_loras);

  bool enabled() const { return !running_.empty(); }
  std::int64_t max_loras() const { return max_; }
  std::int64_t adapters() const { return static_cast<std::int64_t>(running_.size()); }

  /// A sequence of `adapter` could start now: it is loaded, a slot is free, or a loaded adapter
  /// no running sequence uses can be evicted.
  bool can_admit(std::int32_t adapter) const;
  /// A sequence of `adapter` starts running (can_admit() must hold): loads the adapter if it is
  /// not loaded, evicting if needed. True when it was loaded now.
  bool acquire(std::int32_t adapter);
  /// A sequence of `adapter` stops running (finished, aborted or preempted).
  void release(std::int32_t adapter);

  /// Flags, per adapter, those that running sequences use (sized adapters()).
  void running(std::vector<char>& out) const;

 private:
  std::int64_t max_;
  std::vector<std::int64_t> running_;     // running sequences per adapter
  std::vector<char> loaded_;              // per adapter
  std::vector<std::uint64_t> last_used_;  // LRU stamp: the last acquire or release
  std::uint64_t clock_ = 0;
  std::int64_t loaded_count_ = 0;
};

}  // namespace tokenbench::sim
