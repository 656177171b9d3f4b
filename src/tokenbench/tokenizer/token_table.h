#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

namespace tokenbench::tokenizer {

/// A fast 64-bit hash of a byte string (not for adversarial input).
inline std::uint64_t hash_bytes(std::string_view s) {
  std::uint64_t h = 0x9E3779B97F4A7C15ULL ^ s.size();
  const char* p = s.data();
  std::size_t n = s.size();
  while (n >= 8) {
    std::uint64_t w;
    std::memcpy(&w, p, 8);
    h = (h ^ w) * 0xBF58476D1CE4E5B9ULL;
    h ^= h >> 31;
    p += 8;
    n -= 8;
  }
  if (n > 0) {
    std::uint64_t w = 0;
    std::memcpy(&w, p, n);
    h = (h ^ w) * 0x94D049BB133111EBULL;
    h ^= h >> 29;
  }
  h *= 0xBF58476D1CE4E5B9ULL;
  return h ^ (h >> 32);
}

/// The two-way map between token byte strings and ids that a BPE model works with: one arena of
/// bytes and an open-addressing index, so a lookup by a string_view allocates nothing.
/// Build it with add() then finish(); afterwards it is immutable and safe from any thread.
class TokenTable {
 public:
  static constexpr std::int32_t kNone = -1;

  /// Adds a token. Ids need not be dense; an id added twice keeps its first bytes, and a byte
  /// string added under two ids is found under the first.
  void add(std::string_view bytes, std::int32_t id);
  /// Builds the index; call once after the last add().
  void finish();

  /// The id of `bytes`, or kNone.
  std::int32_t find(std::string_view bytes) const {
    if (slots_.empty()) return kNone;
    const std::uint64_t h = hash_bytes(bytes);
    for (std::size_t i = h & mask_;; i = (i + 1) & mask_) {
      const std::int32_t e = slots_[i];
      if (e < 0) return kNone;
      const Entry& entry = entries_[e];
      if (entry.hash == h && entry.length == bytes.size() &&
          std::memcmp(arena_.data() + entry.offset, bytes.data(), bytes.size()) == 0) {
        return entry.id;
      }
    }
  }

  /// The bytes of token `id`; empty when no token has that id.
  std::string_view bytes(std::int32_t id) const {
    if (id < 0 || static_cast<std::size_t>(id) >= by_id_.size() || by_id_[id] < 0) return {};
    const Entry& e = entries_[by_id_[id]];
    return std::string_view(arena_).substr(e.offset, e.length);
  }

  /// True when some token has id `id`.
  bool contains_id(std::int32_t id) const {
    return id >= 0 && static_cast<std::size_t>(id) < by_id_.size() && by_id_[id] >= 0;
  }

  /// Number of tokens.
  std::size_t size() const { return entries_.size(); }
  /// One past the largest id (0 when empty).
  std::size_t id_limit() const { return by_id_.size(); }

 private:
  struct Entry {
    std::uint64_t hash;
    std::uint32_t offset;
    std::uint32_t length;
    std::int32_t id;
  };
  std::string arena_;
  std::vector<Entry> entries_;
  std::vector<std::int32_t> slots_;
  std::vector<std::int32_t> by_id_;
  std::size_t mask_ = 0;
};

}  // namespace tokenbench::tokenizer
