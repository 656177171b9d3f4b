#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace tokenbench::metrics {

/// An even sample of a stream of unknown length in bounded memory: every item while there are at
/// most `max_kept`, then every 2nd, 4th, ... item by order of arrival (a systematic sample, the
/// same on every pass, so no seed is needed). Each kept item stands for stride() items.
/// Not thread-safe.
template <typename T>
class StrideSample {
 public:
  explicit StrideSample(std::size_t max_kept) : max_kept_(max_kept) {}

  /// Offers the next item, which `make()` returns only when it is kept (its place a multiple of
  /// the stride): an item passed over costs nothing.
  template <typename Make>
  void add(Make&& make) {
    const std::uint64_t place = seen_++;
    if (place % stride_ != 0) return;
    kept_.emplace_back(place, make());
    if (kept_.size() <= max_kept_) return;
    stride_ *= 2;
    std::erase_if(kept_, [this](const auto& k) { return k.first % stride_ != 0; });
  }

  /// Items offered, and how many each kept one stands for.
  std::uint64_t seen() const { return seen_; }
  std::uint64_t stride() const { return stride_; }
  /// The kept items with their place among those offered, in order of arrival.
  const std::vector<std::pair<std::uint64_t, T>>& kept() const { return kept_; }
  std::vector<std::pair<std::uint64_t, T>>& kept() { return kept_; }

 private:
  std::size_t max_kept_;
  std::uint64_t seen_ = 0;
  std::uint64_t stride_ = 1;
  std::vector<std::pair<std::uint64_t, T>> kept_;
};

}  // namespace tokenbench::metrics
