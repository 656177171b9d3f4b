#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "tokenbench/tokenizer/tokenizer.h"
#include "tokenbench/workload/jobs.h"

namespace tokenbench::workload {

/// The shape of the synthetic jobs of `--jobs SPEC` (docs/WORKLOADS.md, "Synthetic jobs"): a
/// planner, `depth` levels of `fanout` sub-agents (each waiting for the level before it, taking
/// the reply of the agent at its place there), each sub-agent making `tools` tool calls (a call
/// each, `tool_ms` after the one before, its result `tool_tokens` tokens), and a join that takes
/// every last sub-agent's reply. Every call starts with the job's system prompt of `prefix`
/// tokens, common to all jobs with `shared`.
struct JobShape {
  std::int64_t fanout = 3;
  std::int64_t depth = 1;
  std::int64_t tools = 0;
  std::int64_t prefix = 0;
  bool shared = false;
  std::int64_t input = 64;  ///< tokens of each call's own user message
  std::int64_t output = 0;  ///< each call's output length; 0: --output-len
  std::int64_t tool_tokens = 128;
  double tool_ms = 100;
};

/// The most distinct synthetic jobs a run makes (up front; a longer run cycles them).
inline constexpr std::size_t kSyntheticJobs = 1024;

/// Parses "fanout:3,depth:2,tools:1,prefix:512" (keys fanout, depth, tools, prefix, share
/// (job|run), input, output, tool_tokens, tool_ms; any left out keep their defaults), or a YAML
/// file of the same keys (a name ending .yaml or .yml: `fanout: 3` a line). Throws
/// std::invalid_argument with one line naming the bad item (or file and line) and the keys.
JobShape parse_job_shape(const std::string& spec_or_file);

/// The calls one job of `shape` has.
std::int64_t calls_per_job(const JobShape& shape);

/// Synthetic job `index` of `shape`, made from `seed` (the same for the same seed and index), as
/// its line of a job file would read (so it is checked as one: parse_job). `output_len` is each
/// call's output length where the shape gives none.
Job make_synthetic_job(const JobShape& shape, std::uint64_t seed, std::size_t index,
                       std::int64_t output_len, const tokenizer::Tokenizer* tokenizer = nullptr);

}  // namespace tokenbench::workload
