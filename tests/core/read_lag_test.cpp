// The read-lag histogram's arithmetic on hand-made lags (core/read_lag.h).

#include "tokenbench/core/read_lag.h"

#include <gtest/gtest.h>

namespace tokenbench::core {
namespace {

TEST(ReadLagHistogram, BucketsAreExactBelowSixteenThenSixteenPerPowerOfTwo) {
  for (Nanos v = 0; v < 16; ++v) {
    EXPECT_EQ(ReadLagHistogram::index_of(v), static_cast<std::size_t>(v));
    EXPECT_EQ(ReadLagHistogram::lower_edge(ReadLagHistogram::index_of(v)), v);
    EXPECT_EQ(ReadLagHistogram::upper_edge(ReadLagHistogram::index_of(v)), v);
  }
  // 16..31: width 1; 32..63: width 2; 1,000,000 (2^19 <= v < 2^20): width 2^15.
  EXPECT_EQ(ReadLagHistogram::index_of(16), 16U);
  EXPECT_EQ(ReadLagHistogram::index_of(31), 31U);
  EXPECT_EQ(ReadLagHistogram::index_of(32), 32U);
  EXPECT_EQ(ReadLagHistogram::index_of(33), 32U);
  EXPECT_EQ(ReadLagHistogram::lower_edge(32), 32);
  EXPECT_EQ(ReadLagHistogram::upper_edge(32), 33);
  const std::size_t ms = ReadLagHistogram::index_of(1'000'000);
  EXPECT_LE(ReadLagHistogram::lower_edge(ms), 1'000'000);
  EXPECT_GE(ReadLagHistogram::upper_edge(ms), 1'000'000);
  EXPECT_EQ(ReadLagHistogram::upper_edge(ms) - ReadLagHistogram::lower_edge(ms) + 1, 1 << 15);
  // Every value lies within its bucket, and the bucket is at most 1/16 of its lower edge wide.
  for (Nanos v = 1; v < (Nanos{1} << 40); v = v * 3 + 7) {
    const std::size_t i = ReadLagHistogram::index_of(v);
    ASSERT_LE(ReadLagHistogram::lower_edge(i), v) << v;
    ASSERT_GE(ReadLagHistogram::upper_edge(i), v) << v;
    if (v >= 16) {
      ASSERT_LE(ReadLagHistogram::upper_edge(i) - ReadLagHistogram::lower_edge(i) + 1,
                ReadLagHistogram::lower_edge(i) / 16)
          << v;
    }
  }
  // Past 2^41 ns everything counts in the last bucket.
  EXPECT_EQ(ReadLagHistogram::index_of(Nanos{1} << 50), ReadLagHistogram::kBuckets - 1);
}

TEST(ReadLagHistogram, QuantilesOfHandMadeLags) {
  // 98 reads 10 us late, one 2 ms and one 50 ms late.
  ReadLagHistogram h;
  for (int i = 0; i < 98; ++i) h.add(10'000);
  h.add(2'000'000);
  h.add(50'000'000);
  EXPECT_EQ(h.count(), 100U);
  EXPECT_EQ(h.max(), 50'000'000);
  // p50 and p98: 10 us, to within the bucket's width above it; p99 the 2 ms read; p100 the max.
  EXPECT_GE(h.quantile(0.50), 10'000);
  EXPECT_LE(h.quantile(0.50), 10'000 + 10'000 / 16);
  EXPECT_GE(h.quantile(0.99), 2'000'000);
  EXPECT_LE(h.quantile(0.99), 2'000'000 + 2'000'000 / 16);
  EXPECT_EQ(h.quantile(1.0), 50'000'000);
  // Above 1 ms: the two late reads.
  EXPECT_EQ(h.count_above(1'000'000), 2U);
  EXPECT_EQ(h.count_above(100'000'000), 0U);
  // A clock step (a negative lag) counts as 0.
  h.add(-5);
  EXPECT_EQ(h.buckets()[0], 1U);
  EXPECT_EQ(ReadLagHistogram{}.quantile(0.99), 0);
}

TEST(ReadLagHistogram, MergeAndRebuildFromBuckets) {
  ReadLagHistogram a, b;
  for (int i = 1; i <= 50; ++i) a.add(i * 1'000);
  for (int i = 51; i <= 100; ++i) b.add(i * 1'000);
  a.merge(b);
  EXPECT_EQ(a.count(), 100U);
  EXPECT_EQ(a.max(), 100'000);
  EXPECT_GE(a.quantile(0.5), 50'000);
  EXPECT_LE(a.quantile(0.5), 50'000 + 50'000 / 16);
  ReadLagHistogram copy;
  for (std::size_t i = 0; i < ReadLagHistogram::kBuckets; ++i) {
    if (a.buckets()[i] > 0) copy.set_bucket(i, a.buckets()[i]);
  }
  copy.set_max(a.max());
  EXPECT_EQ(copy.count(), a.count());
  EXPECT_EQ(copy.quantile(0.99), a.quantile(0.99));
  const ReadLagWindow w = window_of(a, 7);
  EXPECT_EQ(w.end, 7);
  EXPECT_EQ(w.reads, 100U);
  EXPECT_EQ(w.p99, a.quantile(0.99));
  EXPECT_EQ(w.max, 100'000);
}

}  // namespace
}  // namespace tokenbench::core
