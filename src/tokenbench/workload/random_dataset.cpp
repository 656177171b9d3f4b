#include <algorithm>
#include <cmath>
#include <random>

#include "tokenbench/core/approx_tokens.h"
#include "tokenbench/workload/dataset.h"

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
      "the",    "of",     "and",    "to",     "in",     "is",     "that",   "for",    "it",
      "as",     "was",    "with",   "be",     "by",     "on",     "not",    "he",     "this",
      "are",    "or",     "his",    "from",   "at",     "which",  "but",    "have",   "an",
      "they",   "you",    "were",   "her",    "she",    "there",  "one",    "all",    "we",
      "their",  "has",    "been",   "if",     "more",   "when",   "will",   "would",  "who",
      "so",     "no",     "time",   "out",    "up",     "about",  "into",   "than",   "them",
      "can",    "only",   "other",  "new",    "some",   "could",  "these",  "two",    "may",
      "first",  "then",   "do",     "any",    "like",   "my",     "now",    "over",   "such",
      "our",    "man",    "me",     "even",   "most",   "made",   "after",  "also",   "did",
      "many",   "before", "must",   "through","years",  "where",  "much",   "your",   "way",
      "well",   "down",   "should", "because","each",   "just",   "those",  "people", "how",
      "too",    "little", "state",  "good",   "very",   "make",   "world",  "still",  "own",
      "see",    "men",    "work",   "long",   "get",    "here",   "between","both",   "life",
      "being",  "under",  "never",  "day",    "same",   "another","know",   "while",  "last",
      "might",  "us",     "great",  "old",    "year",   "off",    "come",   "since",  "against",
      "go",     "came",   "right",  "used",   "take",   "three",  "water",  "house",  "light",
      "model",  "data",   "system", "number", "point",  "small",  "large",  "part",   "place",
      "case",   "week",   "group",  "problem","fact",   "hand",   "high",   "early",  "young",
      "important","public","good",  "same",   "able",   "city",   "story",  "line",   "game"};
  return kWords;
}

std::vector<core::RequestSpec> make_random_dataset(const RandomDatasetOptions& options,
                                                   std::size_t count, std::uint64_t first_id) {
  const auto& vocab = random_prompt_vocabulary();
  std::mt19937_64 rng(options.seed);
  std::uniform_int_distribution<std::size_t> pick(0, vocab.size() - 1);
  std::vector<core::RequestSpec> specs;
  specs.reserve(count);
  for (std::size_t i = 0; i < count; ++i) {
    core::RequestSpec spec;
    spec.id = first_id + i;
    const std::int64_t in = draw_length(rng, options.input_len, options.range_ratio);
    spec.max_tokens = draw_length(rng, options.output_len, options.range_ratio);
    spec.prompt.reserve(static_cast<std::size_t>(in) * 6);
    for (std::int64_t w = 0; w < in; ++w) {
      if (w > 0) spec.prompt.push_back(' ');
      spec.prompt.append(vocab[pick(rng)]);
    }
    spec.input_tokens = core::approx_token_count(spec.prompt);
    spec.input_source = core::TokenSource::kApproximate;
    specs.push_back(std::move(spec));
  }
  return specs;
}

}  // namespace tokenbench::workload
