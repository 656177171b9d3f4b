// QuantileSketch's merge, collapse and binary form.

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "sketch_samples.h"
#include "tokenbench/metrics/percentile.h"
#include "tokenbench/metrics/quantile_sketch.h"

namespace tokenbench::metrics {
namespace {

using testing::make_sample;
using testing::Sample;
using testing::SampleSource;

// Where encode() puts the floating sum, Welford mean and squared deviations (see the format in
// quantile_sketch_codec.cpp): 4 magic, 1 version, 1 flags, 8 alpha, 4 bound, 3 * 8 counts.
constexpr std::size_t kMomentsAt = 42;
constexpr std::size_t kMomentsSize = 24;

// The encoding without the three floating moments, which depend on the order of addition.
std::string without_moments(const QuantileSketch& s) {
  std::string bytes = s.encode();
  return bytes.erase(kMomentsAt, kMomentsSize);
}

void expect_same(const QuantileSketch& a, const QuantileSketch& b) {
  EXPECT_EQ(without_moments(a), without_moments(b));
  EXPECT_EQ(a.count(), b.count());
  EXPECT_EQ(a.min(), b.min());
  EXPECT_EQ(a.max(), b.max());
  for (double p = 0; p <= 100; p += 0.5) EXPECT_EQ(a.quantile(p), b.quantile(p)) << p;
  EXPECT_NEAR(a.sum(), b.sum(), 1e-12 * std::abs(a.sum()));
  EXPECT_NEAR(a.stddev(), b.stddev(), 1e-12 * a.stddev());
}

// Values spread log-uniformly over 40 decades: 46,000 keys at alpha 0.001, past the bound.
std::vector<double> forty_decades(std::size_t n, std::uint64_t seed) {
  SampleSource src(seed);
  std::vector<double> v(n);
  for (double& x : v) x = std::pow(10.0, -20.0 + 40.0 * src.uniform());
  return v;
}

TEST(QuantileSketchMerge, ShardsEqualTheWhole) {
  for (Sample kind : {Sample::kLognormal, Sample::kMixedSigns, Sample::kDuplicatesAndZeros}) {
    const std::vector<double> values = make_sample(kind, 200'000, 5);
    QuantileSketch whole;
    std::vector<QuantileSketch> shards(4);
    SampleSource pick(9);
    for (double v : values) {
      whole.add(v);
      shards[static_cast<std::size_t>(pick.uniform() * 4)].add(v);
    }
    QuantileSketch merged;
    for (const auto& shard : shards) merged.merge(shard);
    expect_same(merged, whole);
  }
}

TEST(QuantileSketchMerge, EmptyAndSelf) {
  QuantileSketch a;
  a.add(3.0);
  a.add(-1.0);
  QuantileSketch b = a;
  b.merge(QuantileSketch());
  expect_same(a, b);
  QuantileSketch empty;
  empty.merge(a);
  expect_same(empty, a);
  a.merge(a);
  EXPECT_EQ(a.count(), 4U);
  EXPECT_EQ(a.sum(), 4.0);
}

TEST(QuantileSketchMerge, RefusesAnotherRelativeError) {
  QuantileSketch a(0.001);
  EXPECT_THROW(a.merge(QuantileSketch(0.01)), std::invalid_argument);
  EXPECT_THROW(a.merge(QuantileSketch(0.001, 1024)), std::invalid_argument);
}

TEST(QuantileSketchCollapse, BoundsMemoryAndKeepsTheTop) {
  const std::vector<double> values = forty_decades(400'000, 11);
  QuantileSketch s;
  for (double v : values) s.add(v);
  EXPECT_TRUE(s.collapsed());
  EXPECT_LE(s.memory_bytes(), sizeof(QuantileSketch) + 2 * kDefaultMaxBuckets * 8);
  std::vector<double> sorted = values;
  std::sort(sorted.begin(), sorted.end());
  // The keys kept span 32768 * log10(gamma) = 28.5 decades down from 1e20: everything above
  // 1e-8.5 (the top 71 %) keeps the bound; below, values are reported too large.
  for (double p : {35.0, 50.0, 90.0, 99.0, 99.9}) {
    const double exact = percentile_sorted(sorted, p);
    EXPECT_LE(std::abs(s.quantile(p) - exact), (1e-3 + 1e-12) * exact) << p;
  }
  for (double p : {0.1, 1.0, 10.0, 25.0}) {
    EXPECT_GT(s.quantile(p), percentile_sorted(sorted, p) * 1.01) << p;
  }
  EXPECT_EQ(s.quantile(0), sorted.front());
  EXPECT_EQ(s.min(), sorted.front());
}

TEST(QuantileSketchCollapse, IndependentOfOrderAndMergeable) {
  std::vector<double> values = forty_decades(100'000, 12);
  QuantileSketch forward;
  QuantileSketch backward;
  QuantileSketch low_half;
  QuantileSketch high_half;
  std::sort(values.begin(), values.end());
  for (std::size_t i = 0; i < values.size(); ++i) {
    forward.add(values[i]);
    backward.add(values[values.size() - 1 - i]);
    (i < values.size() / 2 ? low_half : high_half).add(values[i]);
  }
  expect_same(forward, backward);
  low_half.merge(high_half);
  expect_same(low_half, forward);
  high_half.merge(QuantileSketch(low_half));
  EXPECT_TRUE(high_half.collapsed());
}

TEST(QuantileSketchCodec, RoundTrips) {
  for (Sample kind : {Sample::kPareto, Sample::kMixedSigns, Sample::kDuplicatesAndZeros}) {
    QuantileSketch s;
    for (double v : make_sample(kind, 100'000, 3)) s.add(v);
    s.add(std::nan(""));
    const QuantileSketch back = QuantileSketch::decode(s.encode());
    EXPECT_EQ(back.encode(), s.encode());
    EXPECT_EQ(back.refused(), 1U);
    EXPECT_EQ(back.sum(), s.sum());
    EXPECT_EQ(back.stddev(), s.stddev());
    expect_same(back, s);
  }
  const QuantileSketch empty;
  EXPECT_EQ(QuantileSketch::decode(empty.encode()).encode(), empty.encode());
  QuantileSketch collapsed;
  for (double v : forty_decades(50'000, 4)) collapsed.add(v);
  EXPECT_TRUE(QuantileSketch::decode(collapsed.encode()).collapsed());
}

TEST(QuantileSketchCodec, IsCompact) {
  QuantileSketch s;
  for (double v : make_sample(Sample::kLognormal, 1'000'000, 8)) s.add(v);
  // About 7,000 keys over 7 decades, mostly 1 to 3 varint bytes each.
  EXPECT_LT(s.encode().size(), 24'000U);
}

// Offsets in the encoding of a sketch whose positive store begins at byte 82 (see the format).
constexpr std::size_t kFlagsAt = 5;
constexpr std::size_t kAlphaAt = 6;
constexpr std::size_t kBoundAt = 14;
constexpr std::size_t kCountAt = 18;
constexpr std::size_t kMinAt = 66;
constexpr std::size_t kStoreAt = 82;

std::string small_encoding() {
  QuantileSketch s;
  for (double v : {1.0, 2.0, 300.0, -1.0, 0.0}) s.add(v);
  return s.encode();
}

void put(std::string& bytes, std::size_t at, std::uint64_t v, int size) {
  for (int i = 0; i < size; ++i) bytes[at + i] = static_cast<char>((v >> (8 * i)) & 0xff);
}

void expect_refused(const std::string& bytes, const std::string& why) {
  try {
    (void)QuantileSketch::decode(bytes);
    ADD_FAILURE() << "decoded; expected: " << why;
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find(why), std::string::npos)
        << e.what() << "; expected: " << why;
  }
}

TEST(QuantileSketchCodec, RefusesEveryTruncation) {
  const std::string good = small_encoding();
  ASSERT_NO_THROW((void)QuantileSketch::decode(good));
  for (std::size_t n = 0; n < good.size(); ++n) {
    EXPECT_THROW((void)QuantileSketch::decode(good.substr(0, n)), std::invalid_argument) << n;
  }
  expect_refused("", "truncated header");
  expect_refused(good.substr(0, 30), "truncated at the refused count");
  expect_refused(good + "x", "1 trailing bytes");
}

TEST(QuantileSketchCodec, RefusesHostileHeaders) {
  const std::string good = small_encoding();
  std::string b = good;
  b[0] = 'X';
  expect_refused(b, "bad magic");
  b = good;
  b[4] = 2;
  expect_refused(b, "unsupported version 2");
  b = good;
  b[kFlagsAt] = static_cast<char>(0x80);
  expect_refused(b, "unknown flags");
  b = good;
  put(b, kAlphaAt, 0x7ff8000000000000ULL, 8);  // NaN
  expect_refused(b, "relative error");
  b = good;
  put(b, kBoundAt, 0xffffffffULL, 4);
  expect_refused(b, "bucket bound");
  b = good;
  put(b, kCountAt, 6, 8);
  expect_refused(b, "do not add up");
  b = good;
  put(b, kMinAt, std::bit_cast<std::uint64_t>(1e9), 8);  // min above max
  expect_refused(b, "minimum and maximum");
}

// small_encoding()'s header with a positive store of `n` keys from `min_key` written as
// `counts`, and an empty negative store.
std::string with_store(std::uint32_t min_key, std::uint32_t n, const std::string& counts) {
  std::string b = small_encoding().substr(0, kStoreAt) + std::string(8, '\0');
  put(b, kStoreAt, min_key, 4);
  put(b, kStoreAt + 4, n, 4);
  return b + counts + std::string(8, '\0');
}

TEST(QuantileSketchCodec, RefusesHostileBuckets) {
  expect_refused(with_store(0, 0xffffffffU, "\x01"), "exceeds the bound");
  // Within the bound, but no bytes for it.
  expect_refused(with_store(0, kDefaultMaxBuckets, "").substr(0, kStoreAt + 8),
                 "truncated in a bucket count");
  expect_refused(with_store(1U << 30, 1, "\x05"), "outside the keys a double reaches");
  expect_refused(with_store(0, 1, std::string(11, static_cast<char>(0xff))), "overflows 64 bits");
  expect_refused(with_store(0, 3, std::string("\x01\x00\x05\x01", 4)), "out of range");
  expect_refused(with_store(0, 3, std::string("\x01\x00\x00\x01", 4)), "out of range");
  expect_refused(with_store(0, 3, std::string("\x00\x02\x05", 3)), "not trimmed");
  expect_refused(with_store(0, 2, std::string("\x05\x00\x01", 3)), "not trimmed");
  // Well formed: 1 + 3 values in buckets and small_encoding()'s one zero make its count of 5.
  EXPECT_NO_THROW(
      (void)QuantileSketch::decode(with_store(0, 3, std::string("\x01\x00\x01\x03", 4))));
  // Sparse keys cost bytes for their runs, not per key.
  QuantileSketch sparse;
  sparse.add(1e-9);
  sparse.add(1e9);
  EXPECT_LT(sparse.encode().size(), 110U);
}

TEST(QuantileSketchCodec, SurvivesRandomCorruption) {
  const std::string good = small_encoding();
  SampleSource src(77);
  for (int i = 0; i < 20'000; ++i) {
    std::string b = good;
    const int edits = 1 + static_cast<int>(src.uniform() * 3);
    for (int e = 0; e < edits; ++e) {
      b[static_cast<std::size_t>(src.uniform() * static_cast<double>(b.size()))] =
          static_cast<char>(src.uniform() * 256);
    }
    try {
      const QuantileSketch s = QuantileSketch::decode(b);
      for (double p : {0.0, 50.0, 100.0}) (void)s.quantile(p);
      EXPECT_EQ(QuantileSketch::decode(s.encode()).encode(), s.encode());
    } catch (const std::invalid_argument&) {
    }
  }
}

}  // namespace
}  // namespace tokenbench::metrics
