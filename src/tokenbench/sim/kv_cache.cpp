#include "tokenbench/sim/kv_cache.h"

#include <algorithm>

namespace tokenbench::sim {

KvCache::KvCache(std::int64_t total_blocks, bool prefix_caching)
    : total_(std::max<std::int64_t>(0, total_blocks)), prefix_caching_(prefix_caching) {}

std::int64_t KvCache::count_hits(std::span<const std::uint64_t> hashes) const {
  if (!prefix_caching_) return 0;
  std::int64_t hits = 0;
  for (const std::uint64_t h : hashes) {
    if (!cached_.contains(h)) break;
    ++hits;
  }
  return hits;
}

std::int64_t KvCache::count_evictable_hits(std::span<const std::uint64_t> hashes,
                                           std::int64_t hits) const {
  std::int64_t n = 0;
  for (std::int64_t i = 0; i < hits; ++i) n += cached_.at(hashes[i]).refs == 0 ? 1 : 0;
  return n;
}

void KvCache::take_hits(std::span<const std::uint64_t> hashes, std::int64_t hits,
                        KvHolding& holding) {
  for (std::int64_t i = 0; i < hits; ++i) {
    Entry& e = cached_.at(hashes[i]);
    if (e.refs++ == 0) {
      lru_.erase(e.lru_pos);
      ++used_;
    }
    holding.shared.push_back(hashes[i]);
  }
}

void KvCache::evict_if_needed() {
  // Empty blocks are those neither used nor cached; when none is left, the least recently freed
  // cached block gives its place.
  while (total_ - used_ - static_cast<std::int64_t>(lru_.size()) <= 0 && !lru_.empty()) {
    cached_.erase(lru_.front());
    lru_.pop_front();
  }
}

void KvCache::allocate(std::int64_t n, KvHolding& holding) {
  for (std::int64_t i = 0; i < n; ++i) {
    evict_if_needed();
    ++used_;
  }
  holding.private_blocks += n;
}

void KvCache::register_blocks(std::span<const std::uint64_t> hashes, KvHolding& holding) {
  if (!prefix_caching_) return;
  for (std::size_t i = holding.shared.size(); i < hashes.size() && holding.private_blocks > 0;
       ++i) {
    if (cached_.contains(hashes[i])) return;
    cached_.emplace(hashes[i], Entry{1, {}});
    holding.shared.push_back(hashes[i]);
    --holding.private_blocks;
  }
}

void KvCache::release(KvHolding& holding) {
  // Tail blocks first, so that eviction takes a prefix's tail before its head (as vLLM does).
  for (auto it = holding.shared.rbegin(); it != holding.shared.rend(); ++it) {
    Entry& e = cached_.at(*it);
    if (--e.refs == 0) {
      e.lru_pos = lru_.insert(lru_.end(), *it);
      --used_;
    }
  }
  used_ -= holding.private_blocks;
  holding.shared.clear();
  holding.private_blocks = 0;
}

std::int64_t KvCache::reset_prefix_cache() {
  const auto forgotten = static_cast<std::int64_t>(lru_.size());
  for (const std::uint64_t h : lru_) cached_.erase(h);
  lru_.clear();
  return forgotten;
}

}  // namespace tokenbench::sim
