#include "tokenbench/core/request_mix.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>

#include "tokenbench/core/config_check.h"

namespace tokenbench::core {
namespace {

// "name=weight" split; the weight NaN when absent.
std::pair<std::string, double> name_and_weight(const std::string& item, const char* flag) {
  const auto eq = item.rfind('=');
  if (eq == std::string::npos) return {item, std::nan("")};
  const std::string name = item.substr(0, eq);
  const std::string text = item.substr(eq + 1);
  double w = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), w);
  if (ec != std::errc() || end != text.data() + text.size() || !(w > 0) || !std::isfinite(w)) {
    throw ConfigError(
        fmt::format("{} '{}': the weight '{}' is not a positive number (give name=0.6,other=0.4)",
                    flag, item, text));
  }
  return {name, w};
}

// Shares from weights (all given, or none: uniform).
void set_shares(RequestMix& mix, std::vector<double> weights, const char* flag) {
  const std::size_t given = static_cast<std::size_t>(
      std::count_if(weights.begin(), weights.end(), [](double w) { return !std::isnan(w); }));
  if (given != 0 && given != weights.size()) {
    throw ConfigError(fmt::format(
        "{} gives a weight to some of its names and not to others: give every name one, or "
        "none (uniform)",
        flag));
  }
  mix.weighted = given != 0;
  if (!mix.weighted) weights.assign(weights.size(), 1.0);
  double total = 0;
  for (const double w : weights) total += w;
  mix.shares.clear();
  for (const double w : weights) mix.shares.push_back(w / total);
}

void check_names(const RequestMix& mix, const char* flag) {
  for (std::size_t i = 0; i < mix.names.size(); ++i) {
    if (mix.names[i].empty())
      throw ConfigError(fmt::format("{} has an empty name: give a,b,c", flag));
    if (std::find(mix.names.begin(), mix.names.begin() + static_cast<std::ptrdiff_t>(i),
                  mix.names[i]) != mix.names.begin() + static_cast<std::ptrdiff_t>(i)) {
      throw ConfigError(fmt::format("{} names '{}' twice", flag, mix.names[i]));
    }
  }
}

}  // namespace

RequestMix request_mix(const RunConfig& config) {
  RequestMix mix;
  if (!config.lora_modules.empty() && !config.model_mix.empty()) {
    throw ConfigError("--lora-modules and --model-mix both name each request's model: give one");
  }
  if (!config.model_mix.empty()) {
    std::vector<double> weights;
    for (const auto& item : config.model_mix) {
      auto [name, w] = name_and_weight(item, "--model-mix");
      mix.names.push_back(std::move(name));
      weights.push_back(w);
    }
    check_names(mix, "--model-mix");
    set_shares(mix, std::move(weights), "--model-mix");
    return mix;
  }
  if (config.lora_modules.empty()) {
    if (!config.lora_weights.empty()) {
      throw ConfigError("--lora-weights weighs --lora-modules's adapters: add --lora-modules");
    }
    return mix;
  }
  mix.lora = true;
  mix.names = config.lora_modules;
  check_names(mix, "--lora-modules");
  std::vector<double> weights(mix.names.size(), std::nan(""));
  for (const auto& item : config.lora_weights) {
    auto [name, w] = name_and_weight(item, "--lora-weights");
    if (std::isnan(w)) {
      throw ConfigError(fmt::format("--lora-weights '{}' has no weight: give {}=0.5", item, item));
    }
    const auto it = std::find(mix.names.begin(), mix.names.end(), name);
    if (it == mix.names.end()) {
      throw ConfigError(
          fmt::format("--lora-weights names '{}', which is not one of --lora-modules", name));
    }
    weights[static_cast<std::size_t>(it - mix.names.begin())] = w;
  }
  set_shares(mix, std::move(weights), "--lora-weights");
  return mix;
}

std::size_t mix_choice(const RequestMix& mix, LoraAssignment assignment, std::uint64_t seed,
                       std::uint64_t index) {
  const std::size_t n = mix.names.size();
  if (n <= 1) return 0;
  // splitmix64 of (seed, index): independent draws, one per request index.
  const auto draw = [seed, index] {
    std::uint64_t z = seed + 0x9E3779B97F4A7C15ULL * (index + 1);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  };
  if (!mix.weighted) {
    return assignment == LoraAssignment::kRoundRobin ? index % n : draw() % n;
  }
  double u = 0;
  if (assignment == LoraAssignment::kRoundRobin) {
    constexpr double kGolden = 0.6180339887498949;
    u = std::fmod(static_cast<double>(index + 1) * kGolden, 1.0);
  } else {
    u = static_cast<double>(draw() >> 11) * 0x1.0p-53;
  }
  double cumulative = 0;
  for (std::size_t i = 0; i < n; ++i) {
    cumulative += mix.shares[i];
    if (u < cumulative) return i;
  }
  return n - 1;
}

}  // namespace tokenbench::core
