#include <algorithm>
#include <cmath>
#include <random>

#include "tokenbench/core/approx_tokens.h"
#include "tokenbench/workload/dataset.h"
#include "tokenbench/workload/prompt_synth.h"

namespace tokenbench::workload {
namespace {

std::int64_t draw_length(std::mt19937_64& rng, std::int64_t len, double ratio) {
  if (ratio <= 0.0) return std::max<std::int64_t>(1, len);
  const auto lo = static_cast<std::int64_t>(std::floor(static_cast<double>(len) * (1.0 - ratio)));
  const auto hi = static_cast<std::int64_t>(std::ceil(static_cast<double>(len) * (1.0 + ratio)));
  std::uniform_int_distribution<std::int64_t> dist(std::max<std::int64_t>(1, lo),
                                                   std::max<std::int64_t>(1, hi));
  return dist(rng);
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
  PromptSynth synth(options.seed, tokenizer);
  std::mt19937_64& rng = synth.rng();
  std::vector<core::RequestSpec> specs;
  specs.reserve(count);
  const std::int64_t prefix_len = std::max<std::int64_t>(0, options.prefix_len);
  // The shared prefix is drawn first, then each prompt's lengths and tokens, from one stream.
  const std::vector<std::int32_t> prefix_ids =
      synth.exact() ? synth.random_ids(prefix_len) : std::vector<std::int32_t>{};
  const std::string prefix_words = synth.exact() ? "" : synth.random_words(prefix_len);
  for (std::size_t i = 0; i < count; ++i) {
    core::RequestSpec spec;
    spec.id = first_id + i;
    const std::int64_t in = draw_length(rng, options.input_len, options.range_ratio);
    spec.max_tokens = draw_length(rng, options.output_len, options.range_ratio);
    SynthPrompt p = synth.make_after(prefix_ids, prefix_words, in);
    spec.prompt = std::move(p.text);
    spec.input_tokens = p.tokens;
    spec.input_source = p.source;
    specs.push_back(std::move(spec));
  }
  return specs;
}

std::vector<core::RequestSpec> make_shared_prefix_dataset(const SharedPrefixOptions& o,
                                                          const tokenizer::Tokenizer* tokenizer) {
  PromptSynth synth(o.seed, tokenizer);
  const auto groups = static_cast<std::size_t>(std::max<std::int64_t>(1, o.groups));
  const auto per = static_cast<std::size_t>(std::max<std::int64_t>(1, o.prompts_per_group));
  // Each group's prefix first, then every prompt's own part, from the synth's one stream.
  std::vector<std::vector<std::int32_t>> prefix_ids(groups);
  std::vector<std::string> prefix_words(groups);
  for (std::size_t g = 0; g < groups; ++g) {
    if (synth.exact()) {
      prefix_ids[g] = synth.random_ids(o.prefix_len);
    } else {
      prefix_words[g] = synth.random_words(o.prefix_len);
    }
  }
  std::vector<core::RequestSpec> specs(groups * per);
  for (std::size_t g = 0; g < groups; ++g) {
    for (std::size_t p = 0; p < per; ++p) {
      const std::size_t at = o.grouped ? g * per + p : p * groups + g;
      core::RequestSpec& spec = specs[at];
      spec.id = at;
      SynthPrompt made = synth.make_after(prefix_ids[g], prefix_words[g], o.question_len);
      spec.prompt = std::move(made.text);
      spec.input_tokens = made.tokens;
      spec.input_source = made.source;
      spec.max_tokens = o.output_len;
    }
  }
  return specs;
}

}  // namespace tokenbench::workload
