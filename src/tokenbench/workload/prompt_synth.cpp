#include "tokenbench/workload/prompt_synth.h"

#include <algorithm>
#include <stdexcept>

#include "tokenbench/core/approx_tokens.h"
#include "tokenbench/workload/dataset.h"

namespace tokenbench::workload {
namespace {

constexpr int kAdjustRounds = 10;

// Token ids a prompt may use: not special, not a hole, and decoding to valid text on their own
// (byte-fallback and partial-UTF-8 tokens decode to U+FFFD and never survive a re-encode).
std::vector<std::int32_t> allowed_ids(const tokenizer::Tokenizer& tok) {
  std::vector<std::int32_t> ids;
  const auto n = static_cast<std::int32_t>(tok.vocab_size());
  ids.reserve(static_cast<std::size_t>(n));
  for (std::int32_t id = 0; id < n; ++id) {
    if (tok.is_special(id) || !tok.id_to_token(id)) continue;
    const std::int32_t one[1] = {id};
    const std::string text = tok.decode(one);
    if (text.empty() || text.find("\xEF\xBF\xBD") != std::string::npos) continue;
    ids.push_back(id);
  }
  return ids;
}

template <typename Pick>
std::string words(std::int64_t n, Pick&& pick) {
  const auto& vocab = random_prompt_vocabulary();
  std::string text;
  text.reserve(static_cast<std::size_t>(std::max<std::int64_t>(0, n)) * 6);
  for (std::int64_t w = 0; w < n; ++w) {
    if (w > 0) text.push_back(' ');
    text.append(vocab[pick(vocab.size())]);
  }
  return text;
}

// A stream of its own per block: the same key gives the same block whatever came before.
std::mt19937_64 block_stream(std::uint64_t seed, std::uint64_t key) {
  std::seed_seq seq{static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32),
                    static_cast<std::uint32_t>(key), static_cast<std::uint32_t>(key >> 32),
                    0x6d6f6f6eu};
  return std::mt19937_64(seq);
}

}  // namespace

PromptSynth::PromptSynth(std::uint64_t seed, const tokenizer::Tokenizer* tokenizer)
    : seed_(seed), tokenizer_(tokenizer), rng_(seed) {
  if (tokenizer_ != nullptr) {
    allowed_ = std::make_shared<const std::vector<std::int32_t>>(allowed_ids(*tokenizer_));
    if (allowed_->empty()) {
      throw std::runtime_error("the tokenizer has no ordinary tokens to build prompts from");
    }
  }
}

PromptSynth PromptSynth::reseeded(std::uint64_t seed) const {
  PromptSynth copy = *this;
  copy.seed_ = seed;
  copy.rng_.seed(seed);
  return copy;
}

std::vector<std::int32_t> PromptSynth::random_ids(std::int64_t n) {
  std::vector<std::int32_t> ids(static_cast<std::size_t>(std::max<std::int64_t>(0, n)));
  if (allowed_ == nullptr) return ids;
  std::uniform_int_distribution<std::size_t> pick(0, allowed_->size() - 1);
  for (auto& id : ids) id = (*allowed_)[pick(rng_)];
  return ids;
}

std::string PromptSynth::random_words(std::int64_t n) {
  return words(n, [this](std::size_t size) {
    return std::uniform_int_distribution<std::size_t>(0, size - 1)(rng_);
  });
}

SynthPrompt PromptSynth::make_after(const std::vector<std::int32_t>& prefix,
                                    const std::string& prefix_words, std::int64_t n) {
  SynthPrompt out;
  if (tokenizer_ == nullptr) {
    const std::string own = random_words(n);
    out.text = prefix_words.empty() ? own : (own.empty() ? prefix_words : prefix_words + " " + own);
    out.tokens = core::approx_token_count(out.text);
    out.source = core::TokenSource::kApproximate;
    return out;
  }
  const auto target = static_cast<std::int64_t>(prefix.size()) + n;
  std::vector<std::int32_t> ids = prefix;
  const auto own = random_ids(n);
  ids.insert(ids.end(), own.begin(), own.end());
  std::string text = tokenizer_->decode(ids);
  auto count = static_cast<std::int64_t>(tokenizer_->count(text));
  for (int round = 0; round < kAdjustRounds && count != target; ++round) {
    ids = tokenizer_->encode(text);
    if (count > target) {
      ids.resize(static_cast<std::size_t>(target));
    } else {
      const auto more = random_ids(target - count);
      ids.insert(ids.end(), more.begin(), more.end());
    }
    text = tokenizer_->decode(ids);
    count = static_cast<std::int64_t>(tokenizer_->count(text));
  }
  out.text = std::move(text);
  out.tokens = count;
  out.source = core::TokenSource::kTokenizer;
  return out;
}

SynthPrompt PromptSynth::make(std::int64_t n) { return make_after({}, "", n); }

std::vector<std::int32_t> PromptSynth::block_ids(std::uint64_t key, std::int64_t n) const {
  std::vector<std::int32_t> ids;
  if (allowed_ == nullptr) return ids;
  auto rng = block_stream(seed_, key);
  std::uniform_int_distribution<std::size_t> pick(0, allowed_->size() - 1);
  ids.resize(static_cast<std::size_t>(std::max<std::int64_t>(0, n)));
  for (auto& id : ids) id = (*allowed_)[pick(rng)];
  return ids;
}

std::string PromptSynth::block_words(std::uint64_t key, std::int64_t n) const {
  auto rng = block_stream(seed_, key);
  return words(n, [&rng](std::size_t size) {
    return std::uniform_int_distribution<std::size_t>(0, size - 1)(rng);
  });
}

std::int64_t PromptSynth::append_blocks(const std::vector<std::uint64_t>& hash_ids,
                                        std::int64_t block_tokens, std::int64_t total,
                                        std::vector<std::int32_t>& ids, std::string& words) const {
  std::int64_t have = 0;
  for (const std::uint64_t key : hash_ids) {
    if (have >= total) break;
    const std::int64_t n = std::min(block_tokens, total - have);
    if (exact()) {
      const auto block = block_ids(key, n);
      ids.insert(ids.end(), block.begin(), block.end());
    } else {
      words += (words.empty() ? "" : " ") + block_words(key, n);
    }
    have += n;
  }
  return have;
}

SynthPrompt PromptSynth::blocks_prompt(const std::vector<std::uint64_t>& hash_ids,
                                       std::int64_t block_tokens, std::int64_t total) const {
  std::vector<std::int32_t> ids;
  std::string words;
  const std::int64_t have = append_blocks(hash_ids, block_tokens, total, ids, words);
  std::uint64_t key = static_cast<std::uint64_t>(total) ^ 0x7461696cULL;  // "tail"
  for (const std::uint64_t h : hash_ids) key = (key ^ h) * 0x100000001b3ULL;
  PromptSynth own = *this;
  own.rng_ = block_stream(seed_, key);
  return own.make_after(ids, words, total - have);
}

std::string PromptSynth::decode(const std::vector<std::int32_t>& ids) const {
  return tokenizer_ != nullptr ? tokenizer_->decode(ids) : std::string();
}

std::int64_t PromptSynth::count(const std::string& text) const {
  return tokenizer_ != nullptr ? static_cast<std::int64_t>(tokenizer_->count(text))
                               : core::approx_token_count(text);
}

}  // namespace tokenbench::workload
