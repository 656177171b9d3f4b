#pragma once

#include <cstdint>
#include <vector>

#include "tokenbench/core/request.h"
#include "tokenbench/core/run_config.h"
#include "tokenbench/tokenizer/tokenizer.h"

namespace tokenbench::workload {

/// A conversation of a multi-turn run: its user turns, sent in order, each with the history of
/// the turns before it and the replies they actually got.
struct Session {
  std::vector<core::RequestSpec> turns;
};

/// The prompts of a run, split by phase so that warmup never sends the measured prompts (a
/// prefix cache would otherwise flatter the measurement). A multi-turn run (--multi-turn) has
/// sessions instead, and empty warmup and measure.
struct Workload {
  std::vector<core::RequestSpec> warmup;
  std::vector<core::RequestSpec> measure;  ///< served cyclically when the run needs more
  std::vector<Session> warmup_sessions;
  std::vector<Session> sessions;  ///< served cyclically when the run needs more
};

/// How many distinct prompts a duration-limited run cycles through.
inline constexpr std::size_t kDurationPoolSize = 4096;
/// The same with --image-count, whose requests carry their images (about 125 KB of base64 each
/// at 512x512): fewer, so that a run's bodies stay within memory.
inline constexpr std::size_t kImagePoolSize = 512;

/// What a workload built up front costs in memory, estimated from the configuration alone (before
/// anything is built): `requests` prompts made for the run (warmup included) and `bytes` for them,
/// their request bodies and their schedule. A dataset read from a file counts its requests only
/// (its prompts are bounded by the file). Pure; any thread.
struct WorkloadEstimate {
  std::int64_t requests = 0;
  std::int64_t bytes = 0;
};
WorkloadEstimate estimate_workload(const core::RunConfig& config);

/// Builds the workload that `config` describes (any of core::Dataset); prompts are token-exact
/// and input counts come from `tokenizer` when one is given. With config.image_count, every
/// request also carries that many synthetic images (synthetic_image.h; made on several threads).
/// Throws std::runtime_error with a one-line message on a bad dataset.
Workload build_workload(const core::RunConfig& config,
                        const tokenizer::Tokenizer* tokenizer = nullptr);

}  // namespace tokenbench::workload
