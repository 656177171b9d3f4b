#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace tokenbench::sim {

/// Speculative decoding in the engine model (`--spec-decode k=K,accept=P`, docs/SIMULATOR.md,
/// "Speculative decoding"). Plain data; K = 0 means off.
struct SpecDecodeConfig {
  std::int64_t k = 0;   ///< draft tokens each decoding sequence proposes per step (1..16)
  double accept = 0.0;  ///< probability that a draft position is accepted, in [0, 1)
  bool enabled() const { return k > 0; }
  bool operator==(const SpecDecodeConfig&) const = default;
};

/// The most draft tokens `--spec-decode` accepts.
inline constexpr std::int64_t kMaxSpecTokens = 16;

/// Parses `k=K,accept=P` (either order, both required): K an integer in 1..16, P in [0, 1).
/// Throws std::invalid_argument with a one-line message on bad input.
SpecDecodeConfig parse_spec_decode(std::string_view text);

/// How many of `k` draft tokens are accepted: each position is accepted with probability `p`
/// until the first rejection (a Bernoulli draw per position). A pure function of the seed, the
/// request and its output position, so that a run repeats (and a recompute after a preemption
/// draws the same). Any thread.
std::int64_t draw_accepted_drafts(std::uint64_t seed, std::uint64_t request_id,
                                  std::int64_t position, std::int64_t k, double p);

/// vLLM's speculative-decoding counters (vllm:spec_decode_*). Plain data; not thread-safe.
struct SpecDecodeCounts {
  std::int64_t drafts = 0;        ///< sequences that drafted, one per sequence per step
  std::int64_t draft_tokens = 0;  ///< K per draft
  std::int64_t accepted = 0;      ///< accepted draft tokens (the bonus token excluded)
  std::vector<std::int64_t> accepted_per_pos;  ///< accepted at draft position 0 .. K-1

  /// Counts one draft of `k` tokens of which the first `accepted` were accepted.
  void record(std::int64_t k, std::int64_t accepted_tokens);
  void merge(const SpecDecodeCounts& other);
  /// Zeroes every count (keeps the number of positions).
  void clear();
  bool empty() const { return drafts == 0; }
};

}  // namespace tokenbench::sim
