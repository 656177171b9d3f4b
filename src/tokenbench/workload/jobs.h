#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "tokenbench/core/request.h"
#include "tokenbench/tokenizer/tokenizer.h"
#include "tokenbench/workload/prompt_synth.h"

namespace tokenbench::workload {

/// A content made of cache blocks, as traces that keep only their prompts' block hashes give it
/// (Weka's, Mooncake's): `tokens` tokens, the blocks of `hash_ids` first, `block_tokens` each,
/// then tokens of its own. Made when the call is sent, never held whole.
struct JobBlocks {
  std::vector<std::uint64_t> hash_ids;
  std::int64_t block_tokens = 16;
  std::int64_t tokens = 0;
};

/// One message of a job call's prompt, in the OpenAI chat shape (the API adapters translate it):
/// either written out (`json`, a JSON object), or the reply call `from` actually streamed, put
/// in as the assistant's message's content when the call is sent (beside the tool_calls the
/// file gives it, in `json`, when the reply stands for a call of a tool), or a content made of
/// `blocks` (`json` then holds its other fields).
struct JobMessage {
  std::string json;        ///< the message as a JSON object; with `from`, its other fields or ""
  std::int32_t from = -1;  ///< index in Job::calls of the call whose reply this is; -1: none
  std::shared_ptr<const JobBlocks> blocks;
};

/// One LLM call of an agentic job (docs/WORKLOADS.md, "Jobs").
struct JobCall {
  std::string id;                    ///< unique within its job
  std::vector<std::uint32_t> after;  ///< indices in Job::calls of the calls it waits for
  /// Time between the end of the last call it waits for and its send: a tool's run time, or a
  /// human's.
  double delay_ms = 0;
  std::vector<JobMessage> messages;
  std::int64_t max_tokens = 0;  ///< the requested output length; 0 leaves it to the server
  /// The prompt's tokens that the file gives (the written messages; the replies put in by `from`
  /// are counted when sent), and where the count came from.
  std::int64_t input_tokens = 0;
  core::TokenSource input_source = core::TokenSource::kApproximate;
  /// 0 for a call that waits for none, else one more than the deepest call it waits for.
  std::int32_t depth = 0;
};

/// An agentic job: a graph of calls, each sent once the calls it waits for have ended and its
/// delay has passed. `calls` keeps the file's order; `order` lists them so that every call comes
/// after the calls it waits for.
struct Job {
  std::string name;
  std::vector<JobCall> calls;
  std::vector<std::uint32_t> order;
  /// Makes the contents of its block messages (null when it has none). Its hash ids name blocks
  /// of its own (`"hash_scope": "job"`, the default: seeded by the job's name), or the same blocks
  /// in every job of the file (`"run"`: seeded by the run's seed alone).
  std::shared_ptr<const PromptSynth> blocks;
  bool run_scope = false;
};

/// A message of `job` as sent: `m.json`, with its content made of its blocks when it has some
/// (not for a "from" message, whose content is a reply).
std::string message_json(const Job& job, const JobMessage& m);

/// The most calls one job may have, and the most tokens a synthetic message ("tokens": N) may
/// ask for: bounds on what a hostile file can make the client hold.
inline constexpr std::size_t kMaxJobCalls = 4096;
inline constexpr std::int64_t kMaxSyntheticMessageTokens = std::int64_t{1} << 20;

/// Reads a job file (`--dataset jobs`): JSON Lines, one job a line (docs/WORKLOADS.md). A message
/// with "tokens": N gets a content of N tokens made from `seed` (the same seed, the same text).
/// `default_output_len` applies to a call that gives none (0: none). Throws std::runtime_error
/// with one line naming the file, the line, the job and the call: an unknown id in "after" or
/// "from", a cycle, a "from" that names a call it does not wait for, a malformed message.
std::vector<Job> load_job_file(const std::string& path, std::int64_t default_output_len,
                               std::uint64_t seed, const tokenizer::Tokenizer* tokenizer = nullptr);

/// Parses one job (a line of a job file, without the file's name in errors: "job j1, call s2:
/// ..."); `seed` makes its synthetic messages. Throws std::runtime_error.
Job parse_job(const std::string& line, std::int64_t default_output_len, std::uint64_t seed,
              const tokenizer::Tokenizer* tokenizer = nullptr);

/// The job as a line of a job file (what `tokenbench convert` writes): parse_job reads it back to
/// the same job.
std::string job_to_json_line(const Job& job);

}  // namespace tokenbench::workload
