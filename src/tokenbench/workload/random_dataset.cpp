#include <algorithm>
#include <cmath>
#include <random>

#include "tokenbench/core/approx_tokens.h"
#include "tokenbench/workload/dataset.h"

namespace tokenbench::workload {
namespace {

constexpr int kAdjustRounds = 10;

std::int64_t draw_length(std::mt19937_64& rng, std::int64_t len, double ratio) {
  if (ratio <= 0.0) return std::max<std::int64_t>(1, len);
  const auto lo = static_cast<std::int64_t>(std::floor(static_cast<double>(len) * (1.0 - ratio)));
  const auto hi = static_cast<std::int64_t>(std::ceil(static_cast<double>(len) * (1.0 + ratio)));
  std::uniform_int_distribution<std::int64_t> dist(std::max<std::int64_t>(1, lo),
                                                   std::max<std::int64_t>(1, hi));
  return dist(rng);
}

// Token ids a random prompt may use: not special, not a hole, and decoding to valid text on their
// own (byte-fallback and partial-UTF-8 tokens decode to U+FFFD and never survive a re-encode).
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

class TokenPromptMaker {
 public:
  TokenPromptMaker(const tokenizer::Tokenizer& tok, std::mt19937_64& rng)
      : tok_(tok), rng_(rng), allowed_(allowed_ids(tok)), pick_(0, allowed_.size() - 1) {}

  bool usable() const { return !allowed_.empty(); }

  std::vector<std::int32_t> random_ids(std::int64_t n) {
    std::vector<std::int32_t> ids(static_cast<std::size_t>(n));
    for (auto& id : ids) id = allowed_[pick_(rng_)];
    return ids;
  }

  // Text whose re-encoding has `target` tokens (or as close as kAdjustRounds get), and its count.
  std::pair<std::string, std::int64_t> make(std::vector<std::int32_t> ids, std::int64_t target) {
    std::string text = tok_.decode(ids);
    auto count = static_cast<std::int64_t>(tok_.count(text));
    for (int round = 0; round < kAdjustRounds && count != target; ++round) {
      ids = tok_.encode(text);
      if (count > target) {
        ids.resize(static_cast<std::size_t>(target));
      } else {
        const auto more = random_ids(target - count);
        ids.insert(ids.end(), more.begin(), more.end());
      }
      text = tok_.decode(ids);
      count = static_cast<std::int64_t>(tok_.count(text));
    }
    return {std::move(text), count};
  }

 private:
  const tokenizer::Tokenizer& tok_;
  std::mt19937_64& rng_;
  std::vector<std::int32_t> allowed_;
  std::uniform_int_distribution<std::size_t> pick_;
};

std::string random_words(std::mt19937_64& rng, std::int64_t n) {
  const auto& vocab = random_prompt_vocabulary();
  std::uniform_int_distribution<std::size_t> pick(0, vocab.size() - 1);
  std::string text;
  text.reserve(static_cast<std::size_t>(n) * 6);
  for (std::int64_t w = 0; w < n; ++w) {
    if (w > 0) text.push_back(' ');
    text.append(vocab[pick(rng)]);
  }
  return text;
}

}  // namespace

const std::vector<std::string>& random_prompt_vocabulary() {
  static const std::vector<std::string> kWords = {
      "the",   "of",     "and",       "to",     "in",      "is",      "that",    "for",
      "it",    "as",     "was",       "with",   "be",      "by",      "on",      "not",
      "he",    "this",   "are",       "or",     "his",     "from",    "at",      "which",
      "but",   "have",   "an",        "they",   "you",     "were",    "her",     "she",
      "there", "one",    "all",       "we",     "their",   "has",     "been",    "if",
      "more",  "when",   "will",      "would",  "who",     "so",      "no",      "time",
      "out",   "up",     "about",     "into",   "than",    "them",    "can",     "only",
      "other", "new",    "some",      "could",  "these",   "two",     "may",     "first",
      "then",  "do",     "any",       "like",   "my",      "now",     "over",    "such",
      "our",   "man",    "me",        "even",   "most",    "made",    "after",   "also",
      "did",   "many",   "before",    "must",   "through", "years",   "where",   "much",
      "your",  "way",    "well",      "down",   "should",  "because", "each",    "just",
      "those", "people", "how",       "too",    "little",  "state",   "good",    "very",
      "make",  "world",  "still",     "own",    "see",     "men",     "work",    "long",
      "get",   "here",   "between",   "both",   "life",    "being",   "under",   "never",
      "day",   "same",   "another",   "know",   "while",   "last",    "might",   "us",
      "great", "old",    "year",      "off",    "come",    "since",   "against", "go",
      "came",  "right",  "used",      "take",   "three",   "water",   "house",   "light",
      "model", "data",   "system",    "number", "point",   "small",   "large",   "part",
      "place", "case",   "week",      "group",  "problem", "fact",    "hand",    "high",
      "early", "young",  "important", "public", "good",    "same",    "able",    "city",
      "story", "line",   "game"};
  return kWords;
}

std::vector<core::RequestSpec> make_random_dataset(const RandomDatasetOptions& options,
                                                   std::size_t count, std::uint64_t first_id,
                                                   const tokenizer::Tokenizer* tokenizer) {
  std::mt19937_64 rng(options.seed);
  std::vector<core::RequestSpec> specs;
  specs.reserve(count);
  const std::int64_t prefix_len = std::max<std::int64_t>(0, options.prefix_len);

  if (tokenizer != nullptr) {
    TokenPromptMaker maker(*tokenizer, rng);
    if (!maker.usable()) {
      throw std::runtime_error("the tokenizer has no ordinary tokens to build random prompts from");
    }
    const std::vector<std::int32_t> prefix = maker.random_ids(prefix_len);
    for (std::size_t i = 0; i < count; ++i) {
      core::RequestSpec spec;
      spec.id = first_id + i;
      const std::int64_t in = draw_length(rng, options.input_len, options.range_ratio);
      spec.max_tokens = draw_length(rng, options.output_len, options.range_ratio);
      std::vector<std::int32_t> ids = prefix;
      const auto own = maker.random_ids(in);
      ids.insert(ids.end(), own.begin(), own.end());
      auto [text, achieved] = maker.make(std::move(ids), prefix_len + in);
      spec.prompt = std::move(text);
      spec.input_tokens = achieved;
      spec.input_source = core::TokenSource::kTokenizer;
      specs.push_back(std::move(spec));
    }
    return specs;
  }

  const std::string prefix = random_words(rng, prefix_len);
  for (std::size_t i = 0; i < count; ++i) {
    core::RequestSpec spec;
    spec.id = first_id + i;
    const std::int64_t in = draw_length(rng, options.input_len, options.range_ratio);
    spec.max_tokens = draw_length(rng, options.output_len, options.range_ratio);
    spec.prompt = prefix.empty() ? random_words(rng, in) : prefix + " " + random_words(rng, in);
    spec.input_tokens = core::approx_token_count(spec.prompt);
    spec.input_source = core::TokenSource::kApproximate;
    specs.push_back(std::move(spec));
  }
  return specs;
}

}  // namespace tokenbench::workload
