#include "tokenbench/sim/generation_plan.h"

#include <algorithm>
#include <array>

#include "tokenbench/sim/sim_rng.h"

namespace tokenbench::sim {
namespace {

constexpr std::uint64_t kLengthStream = 0x1e9;
constexpr std::uint64_t kTokenStream = 0x70c;

constexpr std::array<std::string_view, 64> kVocabulary{
    " the",    " model", " token",  " server", " answer",  " of",     " and",   " to",
    " a",      " in",    " is",     " that",   " it",      " for",    " on",    " with",
    " as",     " this",  " time",   " data",   " request", " stream", " fast",  " slow",
    " batch",  " cache", " memory", " queue",  " load",    " test",   " value", " result",
    " first",  " last",  " next",   " word",   " text",    " line",   " point", " state",
    " system", " user",  " input",  " output", " rate",    " step",   " block", " graph",
    " simple", " small", " large",  " good",   " new",     " old",    " long",  " short",
    " we",     " you",   " they",   " can",    " will",    " may",    " run",   " end",
};

}  // namespace

std::string_view to_string(FinishReason reason) {
  return reason == FinishReason::kLength ? "length" : "stop";
}

GenerationPlan plan_generation(const CompletionRequest& request, std::uint64_t seed,
                               std::uint64_t arrival) {
  const std::int64_t max_tokens = std::max<std::int64_t>(1, request.max_tokens);
  if (request.ignore_eos) return {max_tokens, FinishReason::kLength};
  const std::int64_t lo = std::clamp<std::int64_t>(request.min_tokens, 1, max_tokens);
  SimRng rng(mix_keys(seed ^ kLengthStream, arrival));
  const std::int64_t n = rng.between(lo, max_tokens);
  return {n, n == max_tokens ? FinishReason::kLength : FinishReason::kStop};
}

std::span<const std::string_view> vocabulary() { return kVocabulary; }

std::string_view token_text(std::uint64_t seed, std::uint64_t arrival, std::int64_t index) {
  const std::uint64_t h = mix_keys(seed ^ kTokenStream, arrival, static_cast<std::uint64_t>(index));
  return kVocabulary[h % kVocabulary.size()];
}

}  // namespace tokenbench::sim
