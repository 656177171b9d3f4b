#pragma once

#include <cstdint>
#include <list>
#include <span>
#include <unordered_map>
#include <vector>

namespace tokenbench::sim {

/// The blocks one request holds in the KV cache: a prefix of shared (hashed, reference-counted)
/// prompt blocks and a count of private ones. Plain data owned by the request; only KvCache
/// changes it.
struct KvHolding {
  std::vector<std::uint64_t> shared;  ///< hashes of the prefix blocks it references
  std::int64_t private_blocks = 0;
  std::int64_t blocks() const { return static_cast<std::int64_t>(shared.size()) + private_blocks; }
};

/// Block accounting of the simulated KV cache, with vLLM-style automatic prefix caching: a full
/// prompt block is identified by the hash of its tokens chained with its parent's hash; blocks
/// whose hash is registered can be shared by later requests, and stay cached (evictable, least
/// recently freed first) once no request references them.
///
/// Blocks are counted, never stored. Pure and single-threaded: owned by the EngineModel.
class KvCache {
 public:
  KvCache(std::int64_t total_blocks, bool prefix_caching);

  std::int64_t total_blocks() const { return total_; }
  /// Blocks referenced by running requests.
  std::int64_t used_blocks() const { return used_; }
  /// Blocks that can be given out now: empty ones plus cached ones that nobody references.
  std::int64_t free_blocks() const { return total_ - used_; }
  /// Cached blocks that nobody references (counted as free; evicted on demand).
  std::int64_t evictable_blocks() const { return static_cast<std::int64_t>(lru_.size()); }

  /// How many leading blocks of `hashes` are cached (0 without prefix caching).
  std::int64_t count_hits(std::span<const std::uint64_t> hashes) const;
  /// Of the first `hits` blocks of `hashes`, how many are cached but unreferenced: taking them
  /// removes them from the free pool.
  std::int64_t count_evictable_hits(std::span<const std::uint64_t> hashes, std::int64_t hits) const;

  /// References the first `hits` blocks of `hashes` (all cached) for `holding`.
  void take_hits(std::span<const std::uint64_t> hashes, std::int64_t hits, KvHolding& holding);
  /// Gives `holding` `n` more private blocks; the caller checks free_blocks() >= n first.
  void allocate(std::int64_t n, KvHolding& holding);
  /// Registers the hashes of `holding`'s blocks from its shared prefix on, up to `hashes.size()`
  /// blocks, turning private blocks into shared ones; stops at the first hash already cached.
  void register_blocks(std::span<const std::uint64_t> hashes, KvHolding& holding);
  /// Releases every block of `holding` (it ends up empty).
  void release(KvHolding& holding);
  /// Forgets every cached block no request holds (vLLM's reset_prefix_cache, SGLang's
  /// flush_cache); blocks in use stay until released. Returns the blocks forgotten.
  std::int64_t reset_prefix_cache();

 private:
  struct Entry {
    std::int64_t refs = 0;
    std::list<std::uint64_t>::iterator lru_pos;  ///< valid when refs == 0
  };
  void evict_if_needed();

  std::int64_t total_;
  bool prefix_caching_;
  std::int64_t used_ = 0;
  std::unordered_map<std::uint64_t, Entry> cached_;
  std::list<std::uint64_t> lru_;  ///< unreferenced cached blocks, least recently freed first
};

}  // namespace tokenbench::sim
