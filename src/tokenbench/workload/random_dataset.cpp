#include <algorithm>
#include <cmath>
#include <optional>
#include <random>

#include "tokenbench/workload/dataset.h"
#include "tokenbench/workload/length_dist.h"
#include "tokenbench/workload/prompt_synth.h"

namespace tokenbench::workload {

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

namespace {

// --prefix-hit-rate: prompt i starts with the first k_i blocks of one shared text (block b is
// PromptSynth::block_words(kSharedKey + b): the same whatever was drawn before), then words of
// its own. An ideal cache holds min(k_i, max k_j over j < i) blocks of it, so k_i is chosen to
// keep the hits so far at the asked share of the tokens so far (what is owed carries over: the
// first prompt's miss is made up by the next ones).
class HitRatePrompts {
 public:
  HitRatePrompts(double rate, std::int64_t block)
      : rate_(rate), block_(std::max<std::int64_t>(1, block)) {}

  // The prompt of `tokens` tokens, its own words drawn from `synth`.
  SynthPrompt make(PromptSynth& synth, std::int64_t tokens) {
    const double target = rate_ * static_cast<double>(tokens) + owed_;
    const std::int64_t most = tokens / block_;
    // Blocks beyond those sent before hit nothing now, but later prompts find them.
    std::int64_t k =
        std::clamp<std::int64_t>(std::llround(target / static_cast<double>(block_)), 0, most);
    const std::int64_t hit = std::min(k, sent_blocks_) * block_;
    owed_ = target - static_cast<double>(hit);
    sent_blocks_ = std::max(sent_blocks_, k);
    std::string prefix;
    for (std::int64_t b = 0; b < k; ++b) {
      if (!prefix.empty()) prefix += ' ';
      prefix += synth.block_words(kSharedKey + static_cast<std::uint64_t>(b), block_);
    }
    return synth.make_after({}, prefix, tokens - k * block_);
  }

 private:
  static constexpr std::uint64_t kSharedKey = 0x5eed0000ULL;
  double rate_;
  std::int64_t block_;
  double owed_ = 0;
  std::int64_t sent_blocks_ = 0;
};

}  // namespace

PromptGenerator random_generator(const RandomDatasetOptions& options,
                                 const tokenizer::Tokenizer* tokenizer, std::uint64_t first_id) {
  PromptSynth synth(options.seed, tokenizer);
  const std::int64_t prefix_len = std::max<std::int64_t>(0, options.prefix_len);
  // The shared prefix is drawn first, then each prompt's lengths and tokens, from one stream.
  struct Prefix {
    std::vector<std::int32_t> ids;
    std::string words;
  };
  auto prefix = std::make_shared<const Prefix>(
      Prefix{synth.exact() ? synth.random_ids(prefix_len) : std::vector<std::int32_t>{},
             synth.exact() ? "" : synth.random_words(prefix_len)});
  // --range-ratio spreads a fixed length; a distribution replaces it.
  const auto dist = [&](const LengthDist& d, std::int64_t len) {
    return d.kind == LengthDist::Kind::kFixed ? fixed_length(len, options.range_ratio) : d;
  };
  std::optional<HitRatePrompts> hits;
  if (options.hit_rate >= 0) hits.emplace(options.hit_rate, options.hit_block);
  return [synth = std::move(synth), prefix = std::move(prefix),
          in_dist = dist(options.input_dist, options.input_len),
          out_dist = dist(options.output_dist, options.output_len), id = first_id, hits]() mutable {
    core::RequestSpec spec;
    spec.id = id++;
    const std::int64_t in = draw_length(in_dist, synth.rng());
    spec.max_tokens = draw_length(out_dist, synth.rng());
    SynthPrompt p = hits ? hits->make(synth, in) : synth.make_after(prefix->ids, prefix->words, in);
    spec.prompt = std::move(p.text);
    spec.input_tokens = p.tokens;
    spec.input_source = p.source;
    return spec;
  };
}

std::vector<core::RequestSpec> make_random_dataset(const RandomDatasetOptions& options,
                                                   std::size_t count, std::uint64_t first_id,
                                                   const tokenizer::Tokenizer* tokenizer) {
  PromptGenerator generate = random_generator(options, tokenizer, first_id);
  return take(generate, count);
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
      // A fixed length draws nothing, so that a seed's prompts stay what they were.
      const std::int64_t own = o.question_dist.kind == LengthDist::Kind::kFixed
                                   ? o.question_len
                                   : draw_length(o.question_dist, synth.rng());
      SynthPrompt made = synth.make_after(prefix_ids[g], prefix_words[g], own);
      spec.prompt = std::move(made.text);
      spec.input_tokens = made.tokens;
      spec.input_source = made.source;
      spec.max_tokens = o.output_dist.kind == LengthDist::Kind::kFixed
                            ? o.output_len
                            : draw_length(o.output_dist, synth.rng());
    }
  }
  return specs;
}

}  // namespace tokenbench::workload
