#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "tokenbench/core/request.h"
#include "tokenbench/tokenizer/tokenizer.h"

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

/// Reads a JSON Lines dataset: one object per line with "prompt" (string) or "messages" (array of
/// chat messages), and optionally "output_len" (or "max_tokens") for the requested output length;
/// blank lines are skipped. `default_output_len` applies where a line gives none (0: none).
/// Throws std::runtime_error with a one-line message naming the file and line on bad input.
/// With a tokenizer, input lengths are counted with it (source kTokenizer: the prompt, or the
/// concatenated message contents); else approximated as words (kApproximate).
std::vector<core::RequestSpec> load_jsonl_dataset(const std::string& path,
                                                  std::int64_t default_output_len,
                                                  const tokenizer::Tokenizer* tokenizer = nullptr);

/// The single-token words random prompts are made of (exposed for tests and the simulator).
const std::vector<std::string>& random_prompt_vocabulary();

}  // namespace tokenbench::workload
