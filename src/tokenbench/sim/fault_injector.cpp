#include "tokenbench/sim/fault_injector.h"

#include <array>
#include <charconv>
#include <stdexcept>
#include <utility>

#include "tokenbench/sim/sim_rng.h"

namespace tokenbench::sim {
namespace {

constexpr std::array<std::pair<FaultKind, std::string_view>, 8> kNames{{
    {FaultKind::kHttp429, "http_429"},
    {FaultKind::kHttp500, "http_500"},
    {FaultKind::kHttp503, "http_503"},
    {FaultKind::kStreamCut, "stream_cut"},
    {FaultKind::kMalformed, "malformed"},
    {FaultKind::kErrorEvent, "error_event"},
    {FaultKind::kStall, "stall"},
    {FaultKind::kSlowFirstByte, "slow_first_byte"},
}};

// A purpose tag so that fault draws never correlate with token or length draws.
constexpr std::uint64_t kFaultStream = 0xfa017;

double parse_double(std::string_view s, std::string_view what, std::string_view whole) {
  double value = 0.0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (s.empty() || ec != std::errc{} || end != s.data() + s.size()) {
    throw std::invalid_argument("bad " + std::string(what) + " '" + std::string(s) +
                                "' in --fault '" + std::string(whole) + "'");
  }
  return value;
}

}  // namespace

std::string_view to_string(FaultKind kind) {
  for (const auto& [k, name] : kNames) {
    if (k == kind) return name;
  }
  return "none";
}

std::optional<FaultKind> fault_kind_from_string(std::string_view name) {
  for (const auto& [k, n] : kNames) {
    if (n == name) return k;
  }
  return std::nullopt;
}

FaultRule parse_fault_rule(std::string_view text) {
  const std::string whole(text);
  const auto colon = text.find(':');
  if (colon == std::string_view::npos) {
    throw std::invalid_argument("--fault '" + whole +
                                "' must look like KIND:SPEC (e.g. http_429:0.1)");
  }
  FaultRule rule;
  const auto kind = fault_kind_from_string(text.substr(0, colon));
  if (!kind) {
    throw std::invalid_argument("unknown fault kind '" + std::string(text.substr(0, colon)) +
                                "' (known: http_429, http_500, http_503, stream_cut, malformed, "
                                "error_event, stall, slow_first_byte)");
  }
  rule.kind = *kind;
  std::string_view rest = text.substr(colon + 1);
  std::string_view spec = rest;
  std::string_view seconds;
  if (const auto c2 = rest.find(':'); c2 != std::string_view::npos) {
    spec = rest.substr(0, c2);
    seconds = rest.substr(c2 + 1);
  }
  const bool timed = rule.kind == FaultKind::kStall || rule.kind == FaultKind::kSlowFirstByte;
  rule.seconds = rule.kind == FaultKind::kStall           ? 5.0
                 : rule.kind == FaultKind::kSlowFirstByte ? 1.0
                                                          : 0.0;
  if (!seconds.empty() || rest.find(':') != std::string_view::npos) {
    if (!timed) {
      throw std::invalid_argument("--fault '" + whole +
                                  "': only stall and slow_first_byte take SECONDS");
    }
    rule.seconds = parse_double(seconds, "SECONDS", whole);
    if (rule.seconds < 0)
      throw std::invalid_argument("--fault '" + whole + "': SECONDS must be >= 0");
  }
  if (spec.starts_with("every=")) {
    const double n = parse_double(spec.substr(6), "N", whole);
    if (n < 1 || n != static_cast<double>(static_cast<std::int64_t>(n))) {
      throw std::invalid_argument("--fault '" + whole + "': every=N needs an integer N >= 1");
    }
    rule.every = static_cast<std::int64_t>(n);
  } else {
    rule.probability = parse_double(spec, "probability", whole);
    if (rule.probability < 0 || rule.probability > 1) {
      throw std::invalid_argument("--fault '" + whole + "': the probability must be in [0, 1]");
    }
  }
  return rule;
}

FaultInjector::FaultInjector(std::vector<FaultRule> rules, std::uint64_t seed)
    : rules_(std::move(rules)), seed_(seed) {}

FaultDecision FaultInjector::decide(std::uint64_t arrival) const {
  for (std::size_t i = 0; i < rules_.size(); ++i) {
    const FaultRule& rule = rules_[i];
    bool fires = false;
    if (rule.every > 0) {
      fires = (arrival + 1) % static_cast<std::uint64_t>(rule.every) == 0;
    } else {
      fires = to_unit(mix_keys(seed_ ^ kFaultStream, arrival, i)) < rule.probability;
    }
    if (fires) return {rule.kind, rule.seconds};
  }
  return {};
}

}  // namespace tokenbench::sim
