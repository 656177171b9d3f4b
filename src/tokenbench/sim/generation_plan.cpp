#include "tokenbench/sim/generation_plan.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <numbers>
#include <stdexcept>
#include <string>
#include <vector>

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

EosConfig parse_eos_config(std::string_view text) {
  const std::string whole(text);
  auto bad = [&](const std::string& why) {
    return std::invalid_argument("--eos-dist '" + whole + "': " + why);
  };
  std::vector<double> args;
  const std::string_view kind = text.substr(0, text.find(':'));
  for (std::size_t pos = text.find(':'); pos != std::string_view::npos;) {
    const std::size_t next = text.find(':', pos + 1);
    const std::string_view part = text.substr(
        pos + 1, next == std::string_view::npos ? std::string_view::npos : next - pos - 1);
    double v = 0;
    const auto [end, ec] = std::from_chars(part.data(), part.data() + part.size(), v);
    if (part.empty() || ec != std::errc{} || end != part.data() + part.size() || v < 0) {
      throw bad("'" + std::string(part) + "' is not a non-negative number");
    }
    args.push_back(v);
    pos = next;
  }
  EosConfig c;
  if (kind == "uniform" || kind == "none") {
    if (!args.empty()) throw bad("takes no parameters");
    c.dist = kind == "none" ? EosDistribution::kNone : EosDistribution::kUniform;
  } else if (kind == "exponential") {
    if (args.size() != 1 || args[0] < 1) throw bad("needs exponential:MEAN with MEAN >= 1");
    c.dist = EosDistribution::kExponential;
    c.mean = args[0];
  } else if (kind == "normal") {
    if (args.size() != 2) throw bad("needs normal:MEAN:STDDEV");
    c.dist = EosDistribution::kNormal;
    c.mean = args[0];
    c.stddev = args[1];
  } else {
    throw bad("unknown distribution (known: uniform, exponential:MEAN, normal:MEAN:STDDEV, none)");
  }
  return c;
}

GenerationPlan plan_generation(const CompletionRequest& request, std::uint64_t seed,
                               std::uint64_t arrival, const EosConfig& eos) {
  const std::int64_t max_tokens = std::max<std::int64_t>(1, request.max_tokens);
  if (request.ignore_eos || eos.dist == EosDistribution::kNone) {
    return {max_tokens, FinishReason::kLength};
  }
  const std::int64_t lo = std::clamp<std::int64_t>(request.min_tokens, 1, max_tokens);
  SimRng rng(mix_keys(seed ^ kLengthStream, arrival));
  std::int64_t n = lo;
  switch (eos.dist) {
    case EosDistribution::kExponential:
      n = static_cast<std::int64_t>(std::ceil(-eos.mean * std::log1p(-rng.unit())));
      break;
    case EosDistribution::kNormal: {
      // Box-Muller; 1 - unit() is in (0, 1].
      const double u1 = 1.0 - rng.unit();
      const double u2 = rng.unit();
      const double z = std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
      n = std::llround(eos.mean + eos.stddev * z);
      break;
    }
    default:
      n = rng.between(lo, max_tokens);
      break;
  }
  n = std::clamp(n, lo, max_tokens);
  return {n, n == max_tokens ? FinishReason::kLength : FinishReason::kStop};
}

std::span<const std::string_view> vocabulary() { return kVocabulary; }

std::string_view token_text(std::uint64_t seed, std::uint64_t arrival, std::int64_t index) {
  const std::uint64_t h = mix_keys(seed ^ kTokenStream, arrival, static_cast<std::uint64_t>(index));
  return kVocabulary[h % kVocabulary.size()];
}

}  // namespace tokenbench::sim
