#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tokenbench::sim {

/// What a fault does to one completion request (docs/SIMULATOR.md describes each reply).
enum class FaultKind {
  kNone,
  kHttp429,        ///< 429 with Retry-After: 1 and a rate_limit_error body
  kHttp500,        ///< 500 with a server_error body
  kHttp503,        ///< 503 with a server_error body
  kStreamCut,      ///< the connection closes after floor(n/2) tokens; the body is not terminated
  kMalformed,      ///< one event whose data is not JSON after floor(n/2) tokens; then normal
  kErrorEvent,     ///< an error event after floor(n/2) tokens, then [DONE] and a proper end
  kStall,          ///< the stream pauses for `seconds` after floor(n/2) tokens, then goes on
  kSlowFirstByte,  ///< the reply (headers included) starts `seconds` late
};

/// The flag spelling of a kind ("http_429", "stream_cut", ...).
std::string_view to_string(FaultKind kind);
std::optional<FaultKind> fault_kind_from_string(std::string_view name);

/// One `--fault KIND:SPEC[:SECONDS]` rule. SPEC is either a probability in [0, 1] or `every=N`,
/// counted over accepted completion requests in arrival order. Plain data.
struct FaultRule {
  FaultKind kind = FaultKind::kNone;
  double probability = 0.0;  ///< used when every == 0
  std::int64_t every = 0;    ///< > 0: fires on the N-th, 2N-th, ... accepted request
  double seconds = 0.0;      ///< the pause of kStall / kSlowFirstByte
};

/// Parses "KIND:SPEC[:SECONDS]", e.g. "http_429:0.1", "stream_cut:every=5", "stall:every=3:2.5".
/// SECONDS is accepted only by stall (default 5) and slow_first_byte (default 1).
/// Throws std::invalid_argument with a one-line message on bad input.
FaultRule parse_fault_rule(std::string_view text);

/// The fault chosen for one request: kNone, or a kind with its parameter.
struct FaultDecision {
  FaultKind kind = FaultKind::kNone;
  double seconds = 0.0;
};

/// Decides, deterministically from the seed and a request's arrival index, which fault (if any)
/// hits that request. Immutable after construction; decide() is safe from any thread.
class FaultInjector {
 public:
  FaultInjector() = default;
  FaultInjector(std::vector<FaultRule> rules, std::uint64_t seed);

  /// `arrival` is the 0-based index of the accepted completion request. Rules are tried in order;
  /// the first that fires wins. Probability rules draw independently per rule and request.
  FaultDecision decide(std::uint64_t arrival) const;

  bool empty() const { return rules_.empty(); }

 private:
  std::vector<FaultRule> rules_;
  std::uint64_t seed_ = 0;
};

}  // namespace tokenbench::sim
