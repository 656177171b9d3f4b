#pragma once

#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "tokenbench/core/request.h"
#include "tokenbench/tokenizer/tokenizer.h"

namespace tokenbench::workload {

/// A synthetic prompt and what is known of its length.
struct SynthPrompt {
  std::string text;
  std::int64_t tokens = 0;
  core::TokenSource source = core::TokenSource::kApproximate;
};

/// Builds prompts of a given token length, deterministic for a seed (a copy goes on with the
/// same random stream): the random dataset's prompts,
/// and the prompts of traces that give only lengths (BurstGPT, Azure, Mooncake).
///
/// With a tokenizer a prompt is token-exact, as vLLM builds them: random non-special token ids are
/// decoded to text, re-encoded, and cut or topped up until the count is right (a few rounds; the
/// achieved count is what is kept, source kTokenizer). Without one, a prompt of L tokens is L words
/// that are single tokens in GPT-2/Llama/Qwen vocabularies, counted as words (kApproximate).
class PromptSynth {
 public:
  /// Throws std::runtime_error when the tokenizer has no ordinary token to build prompts from.
  PromptSynth(std::uint64_t seed, const tokenizer::Tokenizer* tokenizer);

  /// A copy drawing from `seed` instead (the tokenizer's allowed ids shared, not found again).
  PromptSynth reseeded(std::uint64_t seed) const;

  /// A prompt of `n` tokens drawn from this synth's own random stream.
  SynthPrompt make(std::int64_t n);

  /// A prompt made of `prefix` (token ids with a tokenizer, else ignored) followed by `n` random
  /// tokens: `prefix_len + n` tokens in all.
  SynthPrompt make_after(const std::vector<std::int32_t>& prefix, const std::string& prefix_words,
                         std::int64_t n);

  /// `n` random token ids (with a tokenizer) and the same length in words (without one), drawn
  /// from this synth's stream: a prefix shared by many prompts.
  std::vector<std::int32_t> random_ids(std::int64_t n);
  std::string random_words(std::int64_t n);

  /// The content of block `key` of `n` tokens, the same for the same (seed, key, n) whatever was
  /// drawn before: Mooncake's hash ids, so that requests sharing a hash id share that block.
  /// Token ids with a tokenizer, else empty (see block_words).
  std::vector<std::int32_t> block_ids(std::uint64_t key, std::int64_t n) const;
  std::string block_words(std::uint64_t key, std::int64_t n) const;

  /// Appends the blocks of `hash_ids`, `block_tokens` each, the last cut so that they hold at
  /// most `total` tokens: token ids with a tokenizer (to `ids`), else words (to `words`). Returns
  /// the tokens appended.
  std::int64_t append_blocks(const std::vector<std::uint64_t>& hash_ids, std::int64_t block_tokens,
                             std::int64_t total, std::vector<std::int32_t>& ids,
                             std::string& words) const;

  /// A prompt of `total` tokens: the blocks of `hash_ids` (append_blocks), then tokens of its
  /// own, drawn from a stream keyed by the ids and `total`: the same arguments, the same prompt,
  /// whatever was drawn before.
  SynthPrompt blocks_prompt(const std::vector<std::uint64_t>& hash_ids, std::int64_t block_tokens,
                            std::int64_t total) const;

  /// Text of token ids (with a tokenizer); counts a text's tokens (tokenizer, else words).
  std::string decode(const std::vector<std::int32_t>& ids) const;
  std::int64_t count(const std::string& text) const;
  bool exact() const { return tokenizer_ != nullptr; }
  std::uint64_t seed() const { return seed_; }

  /// The random stream prompts are drawn from, for callers that draw lengths from it too (the
  /// random dataset: one stream keeps a seed's prompts what they were).
  std::mt19937_64& rng() { return rng_; }

 private:
  std::uint64_t seed_;
  const tokenizer::Tokenizer* tokenizer_;
  // Token ids a prompt may use (with a tokenizer), shared by the synth's copies: a copy is cheap.
  std::shared_ptr<const std::vector<std::int32_t>> allowed_;
  std::mt19937_64 rng_;
};

}  // namespace tokenbench::workload
