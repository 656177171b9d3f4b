#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "tokenbench/core/request.h"
#include "tokenbench/core/run_config.h"
#include "tokenbench/tokenizer/tokenizer.h"
#include "tokenbench/workload/jobs.h"
#include "tokenbench/workload/prompt_source.h"

namespace tokenbench::workload {

/// A conversation of a multi-turn run: its user turns, sent in order, each with the history of
/// the turns before it and the replies they actually got.
struct Session {
  std::vector<core::RequestSpec> turns;
};

/// The prompts of a run, split by phase so that warmup never sends the measured prompts (a
/// prefix cache would otherwise flatter the measurement). A multi-turn run (--multi-turn) has
/// sessions instead, and a --dataset jobs run jobs, and neither has a warmup or measure source.
struct Workload {
  std::unique_ptr<PromptSource> warmup;   ///< null: no warmup
  std::unique_ptr<PromptSource> measure;  ///< cycled when the run needs more
  std::vector<Session> warmup_sessions;
  std::vector<Session> sessions;  ///< served cyclically when the run needs more
  std::vector<Job> warmup_jobs;
  std::vector<Job> jobs;  ///< served cyclically when the run needs more
};

/// How many distinct prompts a duration-limited run cycles through.
inline constexpr std::size_t kDurationPoolSize = 4096;
/// A generated phase of at most this many prompts is made once and held; a larger one is made as
/// the run asks for its prompts (PromptSource), so memory does not grow with --num-prompts.
inline constexpr std::size_t kHeldPrompts = kDurationPoolSize;
/// The same with --image-count, whose requests carry their images (about 125 KB of base64 each
/// at 512x512): fewer, so that a run's bodies stay within memory.
inline constexpr std::size_t kImagePoolSize = 512;

/// The prompts one request carries: --batch-size for embeddings, a query and --documents for
/// rerank and score, else 1.
std::size_t inputs_per_request(const core::RunConfig& config);

/// Requests a phase's feed makes ahead of its schedule (driver::RequestFeed): kMadeAhead, or
/// fewer so that they take at most kMadeAheadBytes, and never fewer than kMadeAheadLeast.
inline constexpr std::size_t kMadeAhead = 4096;
inline constexpr std::int64_t kMadeAheadBytes = std::int64_t{64} << 20;
inline constexpr std::int64_t kMadeAheadLeast = 16;
std::size_t made_ahead(std::int64_t request_bytes);

/// What one request costs while it is made ahead or in flight: its spec's prompts of
/// `prompt_bytes` each (--batch-size of them) and its body's copy of them, its images twice,
/// --extra-body and its own bookkeeping. The second form estimates the prompt from the
/// configuration (4 KiB for a file's).
std::int64_t request_bytes(std::int64_t prompt_bytes, const core::RunConfig& config);
std::int64_t request_bytes(const core::RunConfig& config);

/// What a workload costs in memory whatever the run's length, estimated from the configuration
/// alone (before anything is built): `requests` prompts held for the whole run (a multi-turn
/// run's sessions, requests with images, shared-prefix's G x P, a generated phase of at most
/// kHeldPrompts; a longer generated phase is made as it goes, and a file's prompts are bounded by
/// the file), `ahead` requests made ahead of the schedule, and `bytes` for them and the
/// schedule itself. Pure; any thread.
struct WorkloadEstimate {
  std::int64_t requests = 0;
  std::int64_t ahead = 0;  ///< requests made ahead of the schedule (both phases)
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
