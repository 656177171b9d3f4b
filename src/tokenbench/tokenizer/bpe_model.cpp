#include "tokenbench/tokenizer/bpe_model.h"

#include <algorithm>
#include <array>
#include <climits>
#include <cstdio>
#include <mutex>
#include <stdexcept>
#include <unordered_map>

#include "tokenbench/tokenizer/scratch.h"
#include "tokenbench/tokenizer/utf8.h"

namespace tokenbench::tokenizer {

// (left id, right id) -> (rank, merged id), open addressing on 64-bit keys.
class BpeModel::PairMap {
 public:
  explicit PairMap(std::size_t count) {
    std::size_t capacity = 16;
    while (capacity < count * 2) capacity <<= 1;
    keys_.assign(capacity, kEmpty);
    values_.resize(capacity);
    mask_ = capacity - 1;
  }
  // Keeps the first (best-ranked) entry of a pair, as HF does for duplicate merges.
  void insert(std::int32_t left, std::int32_t right, Merge merge) {
    const std::uint64_t key = make_key(left, right);
    std::size_t i = slot(key);
    for (; keys_[i] != kEmpty; i = (i + 1) & mask_) {
      if (keys_[i] == key) return;
    }
    keys_[i] = key;
    values_[i] = merge;
  }
  Merge find(std::int32_t left, std::int32_t right) const {
    const std::uint64_t key = make_key(left, right);
    for (std::size_t i = slot(key);; i = (i + 1) & mask_) {
      if (keys_[i] == key) return values_[i];
      if (keys_[i] == kEmpty) return Merge{INT_MAX, TokenTable::kNone};
    }
  }

 private:
  static constexpr std::uint64_t kEmpty = ~0ULL;
  static std::uint64_t make_key(std::int32_t l, std::int32_t r) {
    return (static_cast<std::uint64_t>(static_cast<std::uint32_t>(l)) << 32) |
           static_cast<std::uint32_t>(r);
  }
  std::size_t slot(std::uint64_t key) const {
    return ((key * 0x9E3779B97F4A7C15ULL) >> 20) & mask_;
  }
  std::vector<std::uint64_t> keys_;
  std::vector<Merge> values_;
  std::size_t mask_;
};

// word -> ids, sharded so that threads rarely wait on each other. Stops growing when full.
class BpeModel::WordCache {
 public:
  explicit WordCache(std::size_t capacity) : per_shard_(capacity / kShards + 1) {}

  bool lookup(std::string_view word, std::uint64_t hash, std::vector<std::int32_t>& out) const {
    Shard& shard = shards_[hash % kShards];
    std::lock_guard lock(shard.mutex);
    const auto it = shard.map.find(word);
    if (it == shard.map.end()) return false;
    out.insert(out.end(), it->second.begin(), it->second.end());
    return true;
  }
  void insert(std::string_view word, std::uint64_t hash, const std::int32_t* ids,
              std::size_t count) const {
    Shard& shard = shards_[hash % kShards];
    std::lock_guard lock(shard.mutex);
    if (shard.map.size() >= per_shard_) return;
    shard.map.try_emplace(std::string(word), ids, ids + count);
  }

 private:
  static constexpr std::size_t kShards = 16;
  struct Hash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const { return hash_bytes(s); }
  };
  struct Shard {
    std::mutex mutex;
    std::unordered_map<std::string, std::vector<std::int32_t>, Hash, std::equal_to<>> map;
  };
  std::size_t per_shard_;
  mutable std::array<Shard, kShards> shards_;
};

namespace {

constexpr std::string_view kMetaspace = "\xE2\x96\x81";  // U+2581

// True when some token has "▁" after a character other than "▁".
bool metaspace_inside_tokens(const TokenTable& vocab) {
  for (std::size_t id = 0; id < vocab.id_limit(); ++id) {
    const std::string_view token = vocab.bytes(static_cast<std::int32_t>(id));
    for (std::size_t pos = token.find(kMetaspace, 1); pos != std::string_view::npos;
         pos = token.find(kMetaspace, pos + 1)) {
      if (pos < kMetaspace.size() || token.substr(pos - kMetaspace.size(), 3) != kMetaspace) {
        return true;
      }
    }
  }
  return false;
}

// Per-thread working storage so that merging allocates nothing once warm.
struct MergeScratch {
  std::vector<std::int32_t> ranks;
  std::vector<std::int32_t> merged;
  std::vector<std::int32_t> prev;
  std::vector<std::int32_t> next;
  struct HeapEntry {
    std::int32_t rank;
    std::int32_t pos;
    std::int32_t id;
  };
  std::vector<HeapEntry> heap;
  std::vector<std::int32_t> ids;
};

MergeScratch& merge_scratch() {
  thread_local MergeScratch scratch;
  return scratch;
}

// Frees what one very long word grew (see kScratchKeepBytes).
void release_large_merge_scratch() {
  MergeScratch& s = merge_scratch();
  release_if_large(s.ranks);
  release_if_large(s.merged);
  release_if_large(s.prev);
  release_if_large(s.next);
  release_if_large(s.heap);
  release_if_large(s.ids);
}

constexpr std::size_t kShortWord = 48;

}  // namespace

BpeModel::BpeModel(TokenTable vocab,
                   const std::vector<std::pair<std::int32_t, std::int32_t>>& merges,
                   BpeOptions options)
    : vocab_(std::move(vocab)), options_(std::move(options)) {
  for (int b = 0; b < 256; ++b) {
    const char c = static_cast<char>(b);
    byte_ids_[b] = vocab_.find(std::string_view(&c, 1));
    char name[8];
    std::snprintf(name, sizeof(name), "<0x%02X>", b);
    byte_fallback_ids_[b] = vocab_.find(name);
  }
  for (int b = 0; b < 128; ++b) ascii_ids_[b] = byte_ids_[b];
  if (!options_.rank_by_concatenation) {
    pairs_ = std::make_unique<PairMap>(merges.size());
    const std::size_t prefix = options_.continuing_subword_prefix.size();
    std::string joined;
    for (std::size_t r = 0; r < merges.size(); ++r) {
      const auto [left, right] = merges[r];
      const std::string_view right_bytes = vocab_.bytes(right);
      joined.assign(vocab_.bytes(left));
      joined.append(right_bytes.substr(
          prefix > 0 && right_bytes.starts_with(options_.continuing_subword_prefix) ? prefix : 0));
      const std::int32_t id = vocab_.find(joined);
      if (id == TokenTable::kNone) {
        throw std::invalid_argument("merge " + std::to_string(r) + " gives a token (" + joined +
                                    ") that is not in the vocabulary");
      }
      pairs_->insert(left, right, Merge{static_cast<std::int32_t>(r), id});
    }
  }
  if (options_.cache_capacity > 0) cache_ = std::make_unique<WordCache>(options_.cache_capacity);
  split_at_metaspace_ =
      !options_.byte_level && !options_.rank_by_concatenation &&
      options_.continuing_subword_prefix.empty() && options_.end_of_word_suffix.empty() &&
      vocab_.find(kMetaspace) != TokenTable::kNone && !metaspace_inside_tokens(vocab_);
}

BpeModel::~BpeModel() = default;

BpeModel::Merge BpeModel::rank(std::string_view word, const Symbol& left,
                               const Symbol& right) const {
  if (options_.rank_by_concatenation) {
    const std::int32_t id = vocab_.find(word.substr(left.start, left.length + right.length));
    return id == TokenTable::kNone ? Merge{INT_MAX, id} : Merge{id, id};
  }
  return pairs_->find(left.id, right.id);
}

void BpeModel::initial_symbols(std::string_view word, std::vector<Symbol>& symbols) const {
  symbols.clear();
  const auto n = static_cast<std::uint32_t>(word.size());
  if (options_.byte_level) {
    for (std::uint32_t i = 0; i < n; ++i) {
      const std::int32_t id = byte_ids_[static_cast<unsigned char>(word[i])];
      if (id != TokenTable::kNone) {
        symbols.push_back(Symbol{i, 1, id});
      } else if (options_.unk_id != TokenTable::kNone) {
        if (options_.fuse_unk && !symbols.empty() && symbols.back().id == options_.unk_id) {
          symbols.back().length += 1;
        } else {
          symbols.push_back(Symbol{i, 1, options_.unk_id});
        }
      }
    }
    return;
  }
  const bool affixes =
      !options_.continuing_subword_prefix.empty() || !options_.end_of_word_suffix.empty();
  std::string piece;
  for (std::uint32_t i = 0; i < n;) {
    const auto lead = static_cast<unsigned char>(word[i]);
    const auto len = static_cast<std::uint32_t>(std::min<std::size_t>(utf8_length(lead), n - i));
    std::int32_t id;
    if (affixes) {
      piece.assign(i > 0 ? options_.continuing_subword_prefix : std::string());
      piece.append(word.substr(i, len));
      if (i + len == n) piece.append(options_.end_of_word_suffix);
      id = vocab_.find(piece);
    } else {
      id = lead < 0x80 ? ascii_ids_[lead] : vocab_.find(word.substr(i, len));
    }
    if (id != TokenTable::kNone) {
      symbols.push_back(Symbol{i, len, id});
      i += len;
      continue;
    }
    if (options_.byte_fallback) {
      bool all = true;
      for (std::uint32_t k = 0; k < len; ++k) {
        all =
            all && byte_fallback_ids_[static_cast<unsigned char>(word[i + k])] != TokenTable::kNone;
      }
      if (all) {
        for (std::uint32_t k = 0; k < len; ++k) {
          symbols.push_back(
              Symbol{i + k, 1, byte_fallback_ids_[static_cast<unsigned char>(word[i + k])]});
        }
        i += len;
        continue;
      }
    }
    if (options_.unk_id != TokenTable::kNone) {
      if (options_.fuse_unk && !symbols.empty() && symbols.back().id == options_.unk_id) {
        symbols.back().length += len;
      } else {
        symbols.push_back(Symbol{i, len, options_.unk_id});
      }
    }
    i += len;
  }
}

void BpeModel::merge_short(std::string_view word, std::vector<Symbol>& symbols) const {
  MergeScratch& s = merge_scratch();
  std::size_t n = symbols.size();
  s.ranks.resize(n);
  s.merged.resize(n);
  for (std::size_t i = 0; i + 1 < n; ++i) {
    const Merge m = rank(word, symbols[i], symbols[i + 1]);
    s.ranks[i] = m.rank;
    s.merged[i] = m.id;
  }
  while (n > 1) {
    std::size_t best = 0;
    std::int32_t best_rank = INT_MAX;
    for (std::size_t i = 0; i + 1 < n; ++i) {
      if (s.ranks[i] < best_rank) {
        best_rank = s.ranks[i];
        best = i;
      }
    }
    if (best_rank == INT_MAX) break;
    symbols[best].length += symbols[best + 1].length;
    symbols[best].id = s.merged[best];
    for (std::size_t i = best + 1; i + 1 < n; ++i) {
      symbols[i] = symbols[i + 1];
      s.ranks[i] = s.ranks[i + 1];
      s.merged[i] = s.merged[i + 1];
    }
    --n;
    const auto rerank = [&](std::size_t i) {
      const Merge m = rank(word, symbols[i], symbols[i + 1]);
      s.ranks[i] = m.rank;
      s.merged[i] = m.id;
    };
    if (best > 0) rerank(best - 1);
    if (best + 1 < n) rerank(best);
  }
  symbols.resize(n);
}

void BpeModel::merge_long(std::string_view word, std::vector<Symbol>& symbols) const {
  MergeScratch& s = merge_scratch();
  const auto n = static_cast<std::int32_t>(symbols.size());
  s.prev.resize(n);
  s.next.resize(n);
  s.heap.clear();
  // Min-heap on (rank, position): the lowest rank first, the leftmost among equals.
  const auto later = [](const MergeScratch::HeapEntry& a, const MergeScratch::HeapEntry& b) {
    return a.rank != b.rank ? a.rank > b.rank : a.pos > b.pos;
  };
  for (std::int32_t i = 0; i < n; ++i) {
    s.prev[i] = i - 1;
    s.next[i] = i + 1 < n ? i + 1 : -1;
    if (i + 1 < n) {
      const Merge m = rank(word, symbols[i], symbols[i + 1]);
      if (m.rank != INT_MAX) s.heap.push_back({m.rank, i, m.id});
    }
  }
  std::make_heap(s.heap.begin(), s.heap.end(), later);
  while (!s.heap.empty()) {
    std::pop_heap(s.heap.begin(), s.heap.end(), later);
    const MergeScratch::HeapEntry top = s.heap.back();
    s.heap.pop_back();
    Symbol& left = symbols[top.pos];
    const std::int32_t right = s.next[top.pos];
    if (left.length == 0 || right < 0) continue;
    const Merge current = rank(word, left, symbols[right]);
    if (current.rank != top.rank || current.id != top.id) continue;  // stale entry
    left.length += symbols[right].length;
    left.id = top.id;
    symbols[right].length = 0;
    s.next[top.pos] = s.next[right];
    if (s.next[right] >= 0) s.prev[s.next[right]] = top.pos;
    if (s.prev[top.pos] >= 0) {
      const std::int32_t p = s.prev[top.pos];
      const Merge m = rank(word, symbols[p], left);
      if (m.rank != INT_MAX) {
        s.heap.push_back({m.rank, p, m.id});
        std::push_heap(s.heap.begin(), s.heap.end(), later);
      }
    }
    if (s.next[top.pos] >= 0) {
      const Merge m = rank(word, left, symbols[s.next[top.pos]]);
      if (m.rank != INT_MAX) {
        s.heap.push_back({m.rank, top.pos, m.id});
        std::push_heap(s.heap.begin(), s.heap.end(), later);
      }
    }
  }
  std::size_t kept = 0;
  for (std::int32_t i = 0; i < n; ++i) {
    if (symbols[i].length > 0) symbols[kept++] = symbols[i];
  }
  symbols.resize(kept);
}

void BpeModel::encode_word(std::string_view word, std::vector<std::int32_t>& out) const {
  if (!split_at_metaspace_) {
    encode_piece(word, out);
    return;
  }
  std::size_t start = 0;
  for (std::size_t pos = word.find(kMetaspace, 1); pos != std::string_view::npos;
       pos = word.find(kMetaspace, pos + 1)) {
    if (pos >= kMetaspace.size() && word.substr(pos - kMetaspace.size(), 3) == kMetaspace) continue;
    encode_piece(word.substr(start, pos - start), out);
    start = pos;
  }
  encode_piece(word.substr(start), out);
}

void BpeModel::encode_piece(std::string_view word, std::vector<std::int32_t>& out) const {
  if (word.empty()) return;
  if (options_.ignore_merges) {
    const std::int32_t id = vocab_.find(word);
    if (id != TokenTable::kNone) {
      out.push_back(id);
      return;
    }
  }
  const bool cacheable = cache_ != nullptr && word.size() <= options_.cache_max_word;
  const std::uint64_t hash = cacheable ? hash_bytes(word) : 0;
  if (cacheable && cache_->lookup(word, hash, out)) return;

  thread_local std::vector<Symbol> symbols;
  initial_symbols(word, symbols);
  if (symbols.size() <= kShortWord) {
    merge_short(word, symbols);
  } else {
    merge_long(word, symbols);
    release_large_merge_scratch();
  }
  const std::size_t first = out.size();
  for (const Symbol& s : symbols) out.push_back(s.id);
  if (cacheable) cache_->insert(word, hash, out.data() + first, out.size() - first);
  release_if_large(symbols);
}

}  // namespace tokenbench::tokenizer
