#pragma once

#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tokenbench/core/request.h"
#include "tokenbench/metrics/summary.h"
#include "tokenbench/metrics/summary_builder.h"

namespace tokenbench::metrics {

/// Which length a bucketing splits requests by.
enum class BucketDimension { kInput, kOutput };

/// One --buckets item: "input:0,256,1024,4096" splits the requests at those token counts into
/// [0, 256), [256, 1024), [1024, 4096) and [4096, inf).
struct BucketSpec {
  BucketDimension dimension = BucketDimension::kInput;
  std::vector<std::int64_t> edges;  ///< ascending, at least one
};

/// Parses "input:E1,E2,..." or "output:E1,...". Throws std::invalid_argument with one line
/// naming the item on a bad dimension, an edge that is not a whole number >= 0, or edges not
/// strictly ascending.
BucketSpec parse_bucket_spec(const std::string& item);

/// The summary figures of the measured requests whose length falls in [lo, hi).
struct Bucket {
  std::int64_t lo = 0;
  std::int64_t hi = std::numeric_limits<std::int64_t>::max();  ///< max: no upper bound
  Summary summary;
};

/// The measured requests split by `spec` (input: prompt tokens; output: output tokens; a failed
/// request falls by what it had), each part summarised as `options` asks. Every bucket is
/// present, empty ones too.
std::vector<Bucket> bucketed(const std::vector<core::RequestRecord>& records,
                             const BucketSpec& spec, const SummaryOptions& options);

/// The most values a bucket's (or a replica's) figure keeps exactly, and its per-gap figures (ITL):
/// lower than the run's own, as a run may have many buckets; beyond, a sketch (summary_builder.h).
inline constexpr std::size_t kPartExactLimit = std::size_t{1} << 14;
inline constexpr std::size_t kPartGapExactLimit = std::size_t{1} << 18;

/// bucketed fed one record at a time, in any order, without keeping them: a SummaryBuilder per
/// bucket. Not thread-safe.
class BucketsBuilder {
 public:
  /// Throws std::invalid_argument for a percentile of `options` outside [0, 100].
  BucketsBuilder(BucketSpec spec, const SummaryOptions& options,
                 std::size_t exact_limit = kPartExactLimit,
                 std::size_t gap_exact_limit = kPartGapExactLimit);
  void add(const core::RequestRecord& record);
  std::vector<Bucket> finish() const;
  const BucketSpec& spec() const { return spec_; }

 private:
  BucketSpec spec_;
  std::vector<std::int64_t> lows_;  // each bucket's low edge, ascending
  std::vector<SummaryBuilder> parts_;
};

/// summary.json's `tokenbench.buckets` entry of one spec: its dimension and, per bucket, its
/// bounds, counts and the TTFT, TPOT, ITL and E2EL mean, p50, p95 and p99.
nlohmann::json buckets_to_json(const BucketSpec& spec, const std::vector<Bucket>& buckets);

/// A console table, "By input length (tokens):" and one row per bucket.
std::string render_buckets(const BucketSpec& spec, const std::vector<Bucket>& buckets);

}  // namespace tokenbench::metrics
