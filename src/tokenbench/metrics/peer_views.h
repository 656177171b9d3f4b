#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tokenbench/core/names.h"
#include "tokenbench/core/request.h"

namespace tokenbench::metrics {

// Peer-definition views (`tokenbench report DIR --as PEER`; docs/METRICS.md, "How peers differ"):
// the summary recomputed from the records with another benchmark tool's own definitions, beside
// tokenbench's figure. Pure functions of the records: the same requests (successful, measure
// phase, streamed, not --nonstream-sample, not replaced by a retry), other formulas.

/// The tools whose definitions a view follows. Each peer's definitions are data: a row of
/// kPeerDefinitions in peer_views.cpp (percentile method, source, and each figure's formula and
/// wording); a new peer is a value here, its name below, and that row.
enum class Peer { kVllm, kSglang, kGuidellm, kEvalscope, kAiperf, kLlmperf };

/// Each peer's name, as `report --as` reads it and a view writes it (case-sensitive).
inline constexpr auto kPeerNames = core::make_names<Peer>({{Peer::kVllm, "vllm"},
                                                           {Peer::kSglang, "sglang"},
                                                           {Peer::kGuidellm, "guidellm"},
                                                           {Peer::kEvalscope, "evalscope"},
                                                           {Peer::kAiperf, "aiperf"},
                                                           {Peer::kLlmperf, "llmperf"}});

/// "vllm", "sglang", "guidellm", "evalscope", "aiperf", "llmperf" (kPeerNames).
std::string_view to_string(Peer peer);

/// The peer named `name` (as to_string writes it, case-sensitive); nullopt for another name.
std::optional<Peer> peer_from_string(std::string_view name);

/// One figure of a view: tokenbench's value and the peer's, computed from the same records.
struct PeerRow {
  std::string figure;      ///< e.g. "TPOT mean (ms)"
  double tokenbench = 0;   ///< kUndefined (NaN) when undefined
  double peer = 0;         ///< kUndefined (NaN) when undefined or not reported by the peer
  std::string definition;  ///< the peer's definition as applied to tokenbench's stamps
  std::string source;      ///< where the definition comes from: repository file @ commit
};

/// A whole view. Plain data.
struct PeerView {
  Peer peer = Peer::kVllm;
  std::size_t requests = 0;  ///< records the figures were computed over
  std::vector<PeerRow> rows;
  std::vector<std::string> notes;  ///< caveats common to the rows
};

/// The records every peer view (and its tokenbench column) is computed over, as the peers count
/// them: successful, streamed, measured last attempts.
bool counted_by_peers(const core::RequestRecord& r);

/// Recomputes the summary figures of `records` (any order, any phase) with `peer`'s definitions:
/// TTFT, TPOT, ITL and E2E latency (mean, p50, p90, p99; the peer's percentile method) and the
/// output throughput. Pure.
PeerView peer_view(Peer peer, const std::vector<core::RequestRecord>& records);

/// The p-th percentile (p in [0, 100]) of ascending-sorted `sorted` as EvalScope computes it
/// (evalscope/perf/utils/db_util.py, calculate_percentiles): the value at 0-based index
/// floor(n x p / 100), the last for p >= 100. kUndefined for an empty input.
double floor_index_percentile(const std::vector<double>& sorted, double p);

/// The view as a console table (figure, tokenbench, peer, difference) followed by each
/// figure's definition and source, and the notes.
std::string render_peer_view(const PeerView& view);

}  // namespace tokenbench::metrics
