#pragma once

#include <cstdint>

namespace tokenbench::sim {

/// SplitMix64's finaliser: a cheap, well-mixed 64-bit hash. Pure; safe from any thread.
constexpr std::uint64_t mix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

/// Combines a seed with up to two further keys (e.g. an arrival index and a purpose tag) into one
/// well-mixed value, so that independent streams of randomness never share a state.
constexpr std::uint64_t mix_keys(std::uint64_t seed, std::uint64_t a, std::uint64_t b = 0) {
  return mix64(mix64(mix64(seed) ^ a) ^ b);
}

/// A tiny deterministic generator (SplitMix64). Small enough to build per request; not thread-safe,
/// each owner keeps its own.
class SimRng {
 public:
  explicit SimRng(std::uint64_t state) : state_(state) {}

  std::uint64_t next() {
    state_ += 0x9e3779b97f4a7c15ULL;
    std::uint64_t z = state_;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }

  /// Uniform in [0, 1).
  double unit() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

  /// Uniform integer in [lo, hi]; requires lo <= hi.
  std::int64_t between(std::int64_t lo, std::int64_t hi) {
    const auto span = static_cast<std::uint64_t>(hi - lo) + 1;
    return lo + static_cast<std::int64_t>(span == 0 ? next() : next() % span);
  }

 private:
  std::uint64_t state_;
};

/// Maps a 64-bit value to a double uniform in [0, 1).
constexpr double to_unit(std::uint64_t x) { return static_cast<double>(x >> 11) * 0x1.0p-53; }

}  // namespace tokenbench::sim
