#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tokenbench::metrics {

/// The default relative error of a QuantileSketch: 0.1 %.
inline constexpr double kDefaultRelativeError = 0.001;

/// The default bound on the buckets of each of a sketch's two stores (positive and negative
/// values): 2^15 buckets of 8 bytes, which at the default relative error span 28 decades of
/// magnitude (gamma^32768 is about 3e28) before any bucket is collapsed.
inline constexpr std::size_t kDefaultMaxBuckets = std::size_t{1} << 15;

/// The largest bucket bound a sketch accepts (constructor and decode): 2^20 per store.
inline constexpr std::size_t kMaxMaxBuckets = std::size_t{1} << 20;

/// A mergeable quantile sketch with a relative-error guarantee, after DDSketch (Masson, Rim and
/// Lee, VLDB 2019). A value x > 0 is counted in the logarithmic bucket of key
/// k = ceil(log_gamma(x)), gamma = (1 + alpha) / (1 - alpha), which holds (gamma^(k-1), gamma^k];
/// the bucket's representative (1 + alpha) * gamma^(k-1) is within relative error alpha of every
/// value in it. Negative values go to a mirrored store of |x|; exact zeros, and values with
/// |x| < min_indexable() (subnormal doubles), are counted apart and reported as 0. NaN and
/// infinities are refused: add() ignores them and counts them in refused().
///
/// count, sum, min, max, mean and the variance are kept exactly (the sum as a double in the order
/// of add and merge; the variance by Welford's update, merged by Chan's formula). quantile(p)
/// approximates numpy's `np.percentile(values, p)` (method "linear"): see there for the bound.
///
/// Memory: each store is a dense array of 64-bit counts over the range of keys seen, grown when
/// a value falls outside it (the only allocation of add) and never larger than max_buckets().
/// When a value would make a store span more than max_buckets() keys, the store's lowest buckets
/// (the values of smallest magnitude: nearest zero) are collapsed into the lowest bucket kept;
/// those values are then reported as that bucket's representative, an overestimate of their
/// magnitude, so for positive data the lowest percentiles lose the relative-error bound (only
/// those whose order statistics fall among collapsed values; min() stays exact). The result of
/// collapsing depends only on the values added, not their order, so merging stays exact.
///
/// Not thread-safe: one thread at a time, const members included only with no writer. Copyable
/// and movable.
class QuantileSketch {
 public:
  /// An empty sketch of relative error `relative_error` (alpha, in [1e-6, 0.5]) with at most
  /// `max_buckets` (in [16, kMaxMaxBuckets]) buckets per store. Throws std::invalid_argument
  /// outside those ranges.
  explicit QuantileSketch(double relative_error = kDefaultRelativeError,
                          std::size_t max_buckets = kDefaultMaxBuckets);

  /// Counts `value`. NaN and +-inf are not counted: refused() goes up by one. O(1): one log;
  /// allocates only when the value's bucket lies outside the keys seen so far.
  void add(double value);
  /// Counts `value` `n` times, as n calls of add(value) would (sum, mean and variance equal up to
  /// floating rounding): one log, whatever n.
  void add(double value, std::uint64_t n);

  /// Adds every value `other` counted, as if each had been passed to add(): the buckets, count,
  /// min, max and refused() are exactly those of adding the union in any order; sum, mean and
  /// variance are equal up to floating rounding (addition is not associative). Throws
  /// std::invalid_argument when `other` has a different relative error or bucket bound.
  void merge(const QuantileSketch& other);

  /// The approximate p-th percentile (p in [0, 100]) of the values counted, numpy "linear": the
  /// order statistics at ranks floor(r) and floor(r) + 1 (0-based, r = (count - 1) * p / 100)
  /// are replaced by their buckets' representatives (each clamped to [min, max]; the first and
  /// last are min and max themselves) and interpolated. When both order statistics have the same
  /// sign, the result is within relative error alpha of np.percentile's; across zero the error is
  /// at most alpha times the interpolation of their magnitudes. p = 0 and p = 100 are exact.
  /// kUndefined when empty. O(buckets). Throws std::invalid_argument when p is outside [0, 100]
  /// or NaN.
  double quantile(double p) const;

  /// The number of values counted (refused ones excluded).
  std::uint64_t count() const { return count_; }
  /// The number of values add() refused (NaN, +-inf).
  std::uint64_t refused() const { return refused_; }
  /// The sum of the values counted; 0 when empty.
  double sum() const { return sum_; }
  /// sum() / count(); kUndefined when empty.
  double mean() const;
  /// The smallest value counted (exact); kUndefined when empty.
  double min() const;
  /// The largest value counted (exact); kUndefined when empty.
  double max() const;
  /// The population variance (divided by count, ddof = 0, as np.var); kUndefined when empty.
  double variance() const;
  /// The sample variance (divided by count - 1, ddof = 1); kUndefined below two values.
  double sample_variance() const;
  /// sqrt(variance()): the population standard deviation, as percentile.h's population_std.
  double stddev() const;
  /// sqrt(sample_variance()).
  double sample_stddev() const;

  /// alpha, the relative error of quantile().
  double relative_error() const { return alpha_; }
  /// The bound on the buckets of each store.
  std::size_t max_buckets() const { return max_buckets_; }
  /// The smallest magnitude counted in a bucket; anything smaller counts as zero.
  double min_indexable() const { return min_indexable_; }
  /// True once a store has collapsed buckets (its lowest percentiles lost the bound).
  bool collapsed() const { return positive_.collapsed() || negative_.collapsed(); }
  /// The bytes the sketch holds: the object and its two bucket arrays' capacity.
  std::size_t memory_bytes() const;

  /// A compact, versioned, little-endian binary form of the whole sketch (settings, exact
  /// figures, and each store's non-empty key range as varint counts, a run of empty buckets as
  /// its length; the layout is in quantile_sketch_codec.cpp), the same on every platform. Equal
  /// sketches give equal bytes. About 9 kB for 10^6 lognormal values of sigma 1.5.
  std::string encode() const;

  /// The sketch `encode` wrote. Throws std::invalid_argument naming the problem for input that
  /// is truncated, of another version or magic, or inconsistent (settings out of range, a bucket
  /// range larger than the bound or outside the keys a double can reach, counts that do not add
  /// up, trailing bytes). Never allocates more than the bound's bucket arrays.
  static QuantileSketch decode(std::string_view bytes);

 private:
  // One sign's buckets: a dense array of counts for keys offset_ .. offset_ + size - 1, of which
  // min_key_ .. max_key_ are in use. Keys below max_key_ - max_buckets + 1 are counted there.
  class Store {
   public:
    explicit Store(std::size_t max_buckets)
        : max_buckets_(static_cast<std::int64_t>(max_buckets)) {}
    void add(std::int32_t key, std::uint64_t n);
    void merge(const Store& other);
    std::uint64_t total() const { return total_; }
    bool empty() const { return total_ == 0; }
    bool collapsed() const { return collapsed_; }
    std::int32_t min_key() const { return min_key_; }
    std::int32_t max_key() const { return max_key_; }
    std::uint64_t at(std::int32_t key) const;
    std::size_t capacity_bytes() const { return counts_.capacity() * sizeof(std::uint64_t); }
    // The key of the 0-based rank-th value counted from the lowest key (rank < total()).
    std::int32_t key_at_rank(std::uint64_t rank) const;
    void encode(std::string& out) const;
    void decode(std::string_view& in, std::int32_t key_lo, std::int32_t key_hi, bool collapsed);

   private:
    void fold_below(std::int64_t floor);
    void reserve_keys(std::int64_t lo, std::int64_t hi);

    std::int64_t max_buckets_;
    std::vector<std::uint64_t> counts_;
    std::int64_t offset_ = 0;
    std::int32_t min_key_ = 0;
    std::int32_t max_key_ = 0;
    std::uint64_t total_ = 0;
    bool collapsed_ = false;
  };

  std::int32_t key(double magnitude) const;
  double representative(std::int32_t key) const;
  double value_at_rank(std::uint64_t rank) const;

  double alpha_;
  std::size_t max_buckets_;
  double log_gamma_;
  double inv_log_gamma_;
  double min_indexable_;
  std::uint64_t count_ = 0;
  std::uint64_t refused_ = 0;
  std::uint64_t zeros_ = 0;
  double sum_ = 0.0;
  double mean_ = 0.0;  // Welford's running mean
  double m2_ = 0.0;    // Welford's sum of squared deviations from mean_
  double min_ = 0.0;
  double max_ = 0.0;
  Store positive_;
  Store negative_;
};

}  // namespace tokenbench::metrics
