// QuantileSketch's binary form. Version 1, little-endian:
//   "TBQS" u8 version u8 flags (bit 0: positive store collapsed, bit 1: negative)
//   f64 alpha u32 max_buckets u64 count u64 refused u64 zeros
//   f64 sum f64 welford_mean f64 welford_m2 f64 min f64 max
//   then the positive store and the negative store, each:
//   i32 min_key u32 n, then the counts of keys min_key .. min_key + n - 1 as LEB128 varints (the
//   first and the last non-zero; n = 0 for an empty store), where a run of zero counts is written
//   as a 0 followed by the run's length.

#include <bit>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "tokenbench/metrics/quantile_sketch.h"

namespace tokenbench::metrics {
namespace {

constexpr std::string_view kMagic = "TBQS";
constexpr std::uint8_t kVersion = 1;

[[noreturn]] void refuse(const std::string& what) {
  throw std::invalid_argument("quantile sketch: " + what);
}

void put_u64(std::string& out, std::uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

void put_f64(std::string& out, double v) { put_u64(out, std::bit_cast<std::uint64_t>(v), 8); }

void put_varint(std::string& out, std::uint64_t v) {
  while (v >= 0x80) {
    out.push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
}

// Reads from the front of `in`, refusing to read past its end.
std::uint64_t take_u64(std::string_view& in, int bytes, const char* field) {
  if (in.size() < static_cast<std::size_t>(bytes)) refuse(std::string("truncated at ") + field);
  std::uint64_t v = 0;
  for (int i = 0; i < bytes; ++i) {
    v |= std::uint64_t{static_cast<unsigned char>(in[static_cast<std::size_t>(i)])} << (8 * i);
  }
  in.remove_prefix(static_cast<std::size_t>(bytes));
  return v;
}

double take_f64(std::string_view& in, const char* field) {
  return std::bit_cast<double>(take_u64(in, 8, field));
}

std::uint64_t take_varint(std::string_view& in) {
  std::uint64_t v = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (in.empty()) refuse("truncated in a bucket count");
    const auto byte = static_cast<unsigned char>(in.front());
    in.remove_prefix(1);
    if (shift == 63 && byte > 1) refuse("bucket count overflows 64 bits");
    v |= std::uint64_t{byte & 0x7fU} << shift;
    if ((byte & 0x80U) == 0) return v;
  }
  refuse("bucket count overflows 64 bits");
}

}  // namespace

void QuantileSketch::Store::encode(std::string& out) const {
  if (total_ == 0) {
    put_u64(out, 0, 4);
    put_u64(out, 0, 4);
    return;
  }
  put_u64(out, static_cast<std::uint32_t>(min_key_), 4);
  put_u64(out, static_cast<std::uint64_t>(std::int64_t{max_key_} - min_key_ + 1), 4);
  for (std::int64_t k = min_key_; k <= max_key_; ++k) {
    const std::uint64_t c = counts_[static_cast<std::size_t>(k - offset_)];
    put_varint(out, c);
    if (c != 0) continue;
    std::uint64_t run = 1;
    while (counts_[static_cast<std::size_t>(k + 1 - offset_)] == 0) {  // the last is non-zero
      ++run;
      ++k;
    }
    put_varint(out, run);
  }
}

void QuantileSketch::Store::decode(std::string_view& in, std::int32_t key_lo, std::int32_t key_hi,
                                   bool collapsed) {
  collapsed_ = collapsed;
  const auto min_key = static_cast<std::int32_t>(
      static_cast<std::uint32_t>(take_u64(in, 4, "a store's lowest key")));
  const std::uint64_t n = take_u64(in, 4, "a store's bucket count");
  if (n == 0) return;
  if (n > static_cast<std::uint64_t>(max_buckets_)) {
    refuse("a store of " + std::to_string(n) + " buckets exceeds the bound of " +
           std::to_string(max_buckets_));
  }
  const std::int64_t max_key = std::int64_t{min_key} + static_cast<std::int64_t>(n) - 1;
  if (min_key < key_lo || max_key > key_hi) {
    refuse("bucket keys " + std::to_string(min_key) + ".." + std::to_string(max_key) +
           " are outside the keys a double reaches (" + std::to_string(key_lo) + ".." +
           std::to_string(key_hi) + ")");
  }
  // At most the bound's array (checked above), however few bytes describe it.
  std::vector<std::uint64_t> counts(static_cast<std::size_t>(n), 0);
  std::uint64_t total = 0;
  for (std::size_t i = 0; i < counts.size(); ++i) {
    const std::uint64_t c = take_varint(in);
    if (c == 0) {
      const std::uint64_t run = take_varint(in);
      if (run == 0 || run > counts.size() - i) refuse("a run of empty buckets is out of range");
      i += static_cast<std::size_t>(run - 1);
      continue;
    }
    if (c > std::numeric_limits<std::uint64_t>::max() - total) refuse("bucket counts overflow");
    counts[i] = c;
    total += c;
  }
  if (counts.front() == 0 || counts.back() == 0) refuse("bucket range is not trimmed");
  counts_.swap(counts);
  offset_ = min_key;
  min_key_ = min_key;
  max_key_ = static_cast<std::int32_t>(max_key);
  total_ = total;
}

std::string QuantileSketch::encode() const {
  std::string out;
  out.reserve(128);
  out.append(kMagic);
  out.push_back(static_cast<char>(kVersion));
  out.push_back(
      static_cast<char>((positive_.collapsed() ? 1 : 0) | (negative_.collapsed() ? 2 : 0)));
  put_f64(out, alpha_);
  put_u64(out, max_buckets_, 4);
  put_u64(out, count_, 8);
  put_u64(out, refused_, 8);
  put_u64(out, zeros_, 8);
  for (double v : {sum_, mean_, m2_, min_, max_}) put_f64(out, v);
  positive_.encode(out);
  negative_.encode(out);
  return out;
}

QuantileSketch QuantileSketch::decode(std::string_view in) {
  if (in.size() < kMagic.size() + 2) refuse("truncated header");
  if (in.substr(0, kMagic.size()) != kMagic) refuse("bad magic (not a quantile sketch)");
  in.remove_prefix(kMagic.size());
  const auto version = static_cast<unsigned char>(in[0]);
  if (version != kVersion) {
    refuse("unsupported version " + std::to_string(version) + " (this build reads " +
           std::to_string(kVersion) + ")");
  }
  const auto flags = static_cast<unsigned char>(in[1]);
  if (flags > 3) refuse("unknown flags " + std::to_string(flags));
  in.remove_prefix(2);
  const double alpha = take_f64(in, "the relative error");
  const std::uint64_t max_buckets = take_u64(in, 4, "the bucket bound");
  QuantileSketch s(alpha, static_cast<std::size_t>(max_buckets));  // checks both ranges
  s.count_ = take_u64(in, 8, "the count");
  s.refused_ = take_u64(in, 8, "the refused count");
  s.zeros_ = take_u64(in, 8, "the zero count");
  s.sum_ = take_f64(in, "the sum");
  s.mean_ = take_f64(in, "the mean");
  s.m2_ = take_f64(in, "the squared deviations");
  s.min_ = take_f64(in, "the minimum");
  s.max_ = take_f64(in, "the maximum");
  const std::int32_t key_lo = s.key(s.min_indexable_);
  const std::int32_t key_hi = s.key(std::numeric_limits<double>::max());
  s.positive_.decode(in, key_lo, key_hi, (flags & 1U) != 0);
  s.negative_.decode(in, key_lo, key_hi, (flags & 2U) != 0);
  if (!in.empty()) refuse(std::to_string(in.size()) + " trailing bytes");
  const std::uint64_t stored = s.positive_.total() + s.negative_.total();
  if (stored < s.positive_.total() || stored + s.zeros_ < stored || stored + s.zeros_ != s.count_) {
    refuse("bucket counts and zeros do not add up to the count " + std::to_string(s.count_));
  }
  if (s.count_ != 0 && !(std::isfinite(s.min_) && std::isfinite(s.max_) && s.min_ <= s.max_)) {
    refuse("minimum and maximum are not finite and ordered");
  }
  if (s.m2_ < 0) refuse("negative sum of squared deviations");
  return s;
}

}  // namespace tokenbench::metrics
