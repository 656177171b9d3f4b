#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "tokenbench/core/request.h"
#include "tokenbench/tokenizer/tokenizer.h"
#include "tokenbench/workload/length_dist.h"
#include "tokenbench/workload/prompt_source.h"

namespace tokenbench::workload {

/// Options of the random dataset (vLLM's `--dataset-name random`).
struct RandomDatasetOptions {
  std::int64_t input_len = 1024;
  std::int64_t output_len = 128;
  /// Lengths are drawn uniformly from [len*(1-r), len*(1+r)] (vLLM's symmetric range), at least 1.
  double range_ratio = 0.0;
  /// A random prefix of this many tokens, the same for every prompt (vLLM's --random-prefix-len),
  /// placed before each prompt's own input_len tokens.
  std::int64_t prefix_len = 0;
  std::uint64_t seed = 0;
  /// --input-dist / --output-dist: kFixed keeps input_len / output_len (with range_ratio).
  LengthDist input_dist;
  LengthDist output_dist;
  /// --prefix-hit-rate (>= 0): each prompt starts with the first blocks of one shared text, as
  /// many as keep the hit rate of an ideal prefix cache over the prompts, in order, at this
  /// share of their tokens (blocks of `hit_block` words; without a tokenizer). -1: none.
  double hit_rate = -1;
  std::int64_t hit_block = 16;
};

/// `count` synthetic requests, ids from `first_id`, deterministic for a seed.
///
/// With a tokenizer the prompts are token-exact, as vLLM builds them: random non-special token
/// ids are decoded to text, the text is re-encoded, and the ids are cut or topped up until the
/// re-encoded count equals the target (a few rounds; the achieved count is what is recorded, with
/// source kTokenizer). Without one, a prompt of L tokens is L words drawn from common English words
/// that are single tokens in GPT-2/Llama/Qwen vocabularies, counted as words (kApproximate).
std::vector<core::RequestSpec> make_random_dataset(const RandomDatasetOptions& options,
                                                   std::size_t count, std::uint64_t first_id = 0,
                                                   const tokenizer::Tokenizer* tokenizer = nullptr);
/// The same prompts made one at a time: the first call makes make_random_dataset's first, ...
/// The tokenizer must outlive the generator and its copies.
PromptGenerator random_generator(const RandomDatasetOptions& options,
                                 const tokenizer::Tokenizer* tokenizer = nullptr,
                                 std::uint64_t first_id = 0);

/// Reads a JSON Lines dataset: one object per line with "prompt" (string) or "messages" (array of
/// chat messages), and optionally "output_len" (or "max_tokens") for the requested output length;
/// blank lines are skipped. `default_output_len` applies where a line gives none (0: none).
/// Throws std::runtime_error with a one-line message naming the file and line on bad input.
/// With a tokenizer, input lengths are counted with it (source kTokenizer: the prompt, or the
/// concatenated message contents); else approximated as words (kApproximate). With
/// `session_field`, every line needs that field (a string or integer): its session
/// (RequestSpec::session_key, --session-field).
std::vector<core::RequestSpec> load_jsonl_dataset(const std::string& path,
                                                  std::int64_t default_output_len,
                                                  const tokenizer::Tokenizer* tokenizer = nullptr,
                                                  const std::string& session_field = "");
/// Reads a JSON Lines dataset through, checking every line as load_jsonl_dataset does (the same
/// errors) and keeping none: its number of requests. Throws as load_jsonl_dataset.
std::size_t check_jsonl_dataset(const std::string& path);
/// The requests of a JSON Lines dataset (without sessions) made one at a time as the file is
/// read, a line per call: a file of any size costs a line of memory. Call it at most as many
/// times as check_jsonl_dataset counted (then it throws: the file changed).
PromptGenerator jsonl_generator(const std::string& path, std::int64_t default_output_len,
                                const tokenizer::Tokenizer* tokenizer = nullptr);

/// What the file datasets beyond jsonl read, and how (docs/WORKLOADS.md describes each format).
struct DatasetOptions {
  std::string path;
  /// The output length where the file gives none; 0 leaves it to the server.
  std::int64_t output_len = 0;
  /// --output-len was given: it replaces the lengths a file gives (ShareGPT's replies, traces).
  bool output_len_override = false;
  std::string prompt_field = "prompt";  ///< csv: the prompt's column
  std::string output_len_field;         ///< csv: a column of output lengths ("" for none)
  std::string timestamp_field;          ///< csv: a column of arrival times in seconds ("" for none)
  std::string session_field;            ///< csv: a column naming each row's session ("" for none)
  /// sharegpt: every human turn with a reply becomes a prompt, keyed by its conversation
  /// (RequestSpec::session_key), for --multi-turn; vLLM's filters then apply to the first turn.
  bool all_turns = false;
  std::int64_t input_len = 1024;         ///< sonnet: a prompt's most tokens, instruction included
  std::int64_t sonnet_prefix_len = 200;  ///< sonnet: tokens of the fixed head, instruction included
  std::uint64_t seed = 0;
  const tokenizer::Tokenizer* tokenizer = nullptr;
};

/// `lines`: one prompt per line (blank lines skipped), each with options.output_len.
std::vector<core::RequestSpec> load_lines_dataset(const DatasetOptions& options);
/// The same read through and counted, keeping none; and made one at a time as the file is read
/// (as check_jsonl_dataset and jsonl_generator).
std::size_t check_lines_dataset(const DatasetOptions& options);
PromptGenerator lines_generator(const DatasetOptions& options);

/// `csv`: a CSV file with a header; options.prompt_field names the prompt's column, and
/// output_len_field and timestamp_field optional columns of output lengths and arrival times.
std::vector<core::RequestSpec> load_csv_dataset(const DatasetOptions& options);

/// `sharegpt`: the ShareGPT JSON layout, a list of {"conversations": [{"from", "value"}, ...]}.
/// Each conversation gives one request: its first human turn is the prompt and the reply after it
/// sets the output length (its token count; --output-len replaces it). vLLM's filters apply: a
/// conversation without a reply is skipped, and so is one whose prompt has fewer than 4 tokens,
/// whose reply has fewer than 4 (unless --output-len), whose prompt has more than 1024 or whose
/// prompt and reply together more than 2048. File order is kept.
std::vector<core::RequestSpec> load_sharegpt_dataset(const DatasetOptions& options);

/// The instruction that starts every sonnet prompt (vLLM's).
inline constexpr const char* kSonnetInstruction =
    "Pick as many lines as you can from these poem lines:\n";

/// `sonnet`: vLLM's sonnet dataset, `count` requests from a text file of poem lines (blank lines
/// skipped). Every prompt is kSonnetInstruction, then the file's first lines while the prompt
/// stays within options.sonnet_prefix_len tokens (the same head in every prompt, for prefix
/// caching), then lines drawn at random (seeded) until the next one drawn would take the prompt
/// past options.input_len. Lines are counted with the tokenizer, else as words.
std::vector<core::RequestSpec> make_sonnet_dataset(const DatasetOptions& options,
                                                   std::size_t count);
/// The same prompts made one at a time (the file is read when the generator is made).
PromptGenerator sonnet_generator(const DatasetOptions& options);

/// `burstgpt`: the BurstGPT CSV (Timestamp, Model, Request tokens, Response tokens, Total tokens,
/// Log Type). As vLLM reads it, only rows of Model GPT-4 with Response tokens above 0 are used;
/// each gives a synthetic prompt of its request tokens, its response tokens as output length and
/// its timestamp as arrival.
std::vector<core::RequestSpec> load_burstgpt_dataset(const DatasetOptions& options);

/// `azure`: the Azure LLM inference trace CSV (TIMESTAMP, ContextTokens, GeneratedTokens), the
/// timestamp as "YYYY-MM-DD HH:MM:SS[.fraction]"; synthetic prompts of ContextTokens.
std::vector<core::RequestSpec> load_azure_dataset(const DatasetOptions& options);

/// Tokens per hash id in a Mooncake trace.
inline constexpr std::int64_t kMooncakeBlockTokens = 512;

/// `mooncake`: Mooncake trace JSON Lines ({"timestamp" (ms), "input_length", "output_length",
/// "hash_ids": [...]}). A prompt is its hash ids' blocks of 512 tokens in order, the last cut to
/// input_length; a block's tokens depend only on the seed and its hash id, so requests sharing a
/// hash id share that block, as they share the cache in the trace.
std::vector<core::RequestSpec> load_mooncake_dataset(const DatasetOptions& options);

/// Options of `shared-prefix` (SGLang's generated-shared-prefix workload).
struct SharedPrefixOptions {
  std::int64_t groups = 8;              ///< G groups
  std::int64_t prompts_per_group = 16;  ///< P prompts in each
  std::int64_t prefix_len = 512;        ///< tokens of the prefix the prompts of a group share
  std::int64_t question_len = 128;      ///< tokens of each prompt's own part, after the prefix
  std::int64_t output_len = 128;
  bool grouped = false;  ///< order: a group's prompts together; else interleaved (one per group)
  std::uint64_t seed = 0;
  /// --input-dist / --output-dist: each prompt's own part and its output drawn from these
  /// (question_len and output_len when kFixed).
  LengthDist question_dist;
  LengthDist output_dist;
};

/// `shared-prefix`: G x P requests; group g's prompts are its prefix of prefix_len random tokens
/// followed by question_len of their own. Interleaved order sends prompt 0 of every group, then
/// prompt 1 of every group, ...; grouped sends group 0's P prompts, then group 1's, ...
std::vector<core::RequestSpec> make_shared_prefix_dataset(const SharedPrefixOptions& options,
                                                          const tokenizer::Tokenizer* tokenizer);

/// `fixed`: `count` requests with the same prompt (--prompt), for the "same prompt for every
/// model" comparison.
std::vector<core::RequestSpec> make_fixed_dataset(const std::string& prompt, std::size_t count,
                                                  std::int64_t output_len,
                                                  const tokenizer::Tokenizer* tokenizer);
/// The same requests made one at a time.
PromptGenerator fixed_generator(const std::string& prompt, std::int64_t output_len,
                                const tokenizer::Tokenizer* tokenizer);

/// Sets spec.input_tokens and input_source from `text`: counted with the tokenizer when there is
/// one (kTokenizer), else approximated as words (kApproximate).
void count_input(core::RequestSpec& spec, const std::string& text,
                 const tokenizer::Tokenizer* tokenizer);

/// The single-token words random prompts are made of (exposed for tests and the simulator).
const std::vector<std::string>& random_prompt_vocabulary();

}  // namespace tokenbench::workload
