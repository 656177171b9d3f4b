#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tokenbench/tokenizer/token_table.h"

namespace tokenbench::tokenizer {

/// How a BpeModel starts and merges a word.
struct BpeOptions {
  /// Symbols start as single bytes (GPT-2 style byte-level BPE, tiktoken); otherwise as UTF-8
  /// characters (SentencePiece-style BPE).
  bool byte_level = false;
  /// Merge adjacent parts whose concatenation is a token, lowest token id first (tiktoken's rule);
  /// otherwise merges come from the ranked merge list.
  bool rank_by_concatenation = false;
  /// A word that is itself a token is emitted whole without merging (HF `ignore_merges`, and
  /// tiktoken's behaviour).
  bool ignore_merges = false;
  /// An unknown character becomes its UTF-8 bytes as `<0xXX>` tokens (HF `byte_fallback`).
  bool byte_fallback = false;
  /// Consecutive unknown characters become one unknown token (HF `fuse_unk`).
  bool fuse_unk = false;
  /// Id of the unknown token; unknown characters are dropped when there is none (as HF does).
  std::int32_t unk_id = TokenTable::kNone;
  /// HF's `continuing_subword_prefix` / `end_of_word_suffix` (empty for every model we know).
  std::string continuing_subword_prefix;
  std::string end_of_word_suffix;
  /// Words up to this many bytes have their ids cached, up to `cache_capacity` words.
  std::size_t cache_max_word = 256;
  std::size_t cache_capacity = 16384;
};

/// A BPE model: splits one pre-tokenized word into token ids. Works on bytes: byte-level
/// vocabularies are stored as raw bytes, not in GPT-2's printable alphabet.
///
/// Merging keeps the parts of a word in an array and repeatedly merges the lowest-ranked adjacent
/// pair, leftmost first (a linear scan for short words, a heap over a linked list for long ones),
/// which is the order both Hugging Face's BPE and tiktoken use. Where no token can span a "▁"
/// that follows another character, words are first cut there. A bounded cache of word -> ids
/// (sharded, each shard behind a mutex) skips merging for words seen before.
///
/// Immutable after construction apart from its cache; encode_word is safe from several threads.
class BpeModel {
 public:
  /// `vocab` maps token bytes to ids (finished). `merges` lists merge pairs by id, highest
  /// priority first; ignored when options.rank_by_concatenation is set. Throws
  /// std::invalid_argument when a merge's result is not in the vocabulary.
  BpeModel(TokenTable vocab, const std::vector<std::pair<std::int32_t, std::int32_t>>& merges,
           BpeOptions options);
  ~BpeModel();
  BpeModel(const BpeModel&) = delete;
  BpeModel& operator=(const BpeModel&) = delete;

  /// Appends the ids of `word` to `out`.
  void encode_word(std::string_view word, std::vector<std::int32_t>& out) const;

  /// The vocabulary (token bytes <-> ids).
  const TokenTable& vocab() const { return vocab_; }
  const BpeOptions& options() const { return options_; }

 private:
  struct Symbol {
    std::uint32_t start;
    std::uint32_t length;
    std::int32_t id;
  };
  struct Merge {
    std::int32_t rank;
    std::int32_t id;
  };
  class PairMap;
  class WordCache;

  void encode_piece(std::string_view word, std::vector<std::int32_t>& out) const;
  void initial_symbols(std::string_view word, std::vector<Symbol>& symbols) const;
  Merge rank(std::string_view word, const Symbol& left, const Symbol& right) const;
  void merge_short(std::string_view word, std::vector<Symbol>& symbols) const;
  void merge_long(std::string_view word, std::vector<Symbol>& symbols) const;

  TokenTable vocab_;
  BpeOptions options_;
  std::unique_ptr<PairMap> pairs_;
  std::unique_ptr<WordCache> cache_;
  std::int32_t byte_ids_[256];           // byte-level start symbols
  std::int32_t ascii_ids_[128];          // character start symbols for ASCII
  std::int32_t byte_fallback_ids_[256];  // <0xXX> tokens
  // No token has "▁" right after another character, so a word can be cut before each such "▁"
  // and its parts merged separately with the same result (SentencePiece-style vocabularies,
  // whose words are whole texts when there is no pre-tokenizer).
  bool split_at_metaspace_ = false;
};

}  // namespace tokenbench::tokenizer
