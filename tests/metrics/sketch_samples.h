#pragma once

// Seeded samples for the quantile sketch's tests: std::mt19937_64 is specified bit for bit by the
// standard, the std:: distributions are not, so the transforms are written out here and the
// samples are the same with every standard library.

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <numbers>
#include <random>
#include <vector>

namespace tokenbench::metrics::testing {

/// Uniform doubles in (0, 1), 53 random bits each, and standard normals by Box-Muller.
class SampleSource {
 public:
  explicit SampleSource(std::uint64_t seed) : rng_(seed) {}

  double uniform() { return (static_cast<double>(rng_() >> 11) + 0.5) * 0x1p-53; }

  double normal() {
    const double r = std::sqrt(-2.0 * std::log(uniform()));
    return r * std::cos(2.0 * std::numbers::pi * uniform());
  }

  double lognormal(double mu, double sigma) { return std::exp(mu + sigma * normal()); }

  /// Pareto of shape `shape` and scale (minimum) `scale`, by inversion.
  double pareto(double shape, double scale) { return scale * std::pow(uniform(), -1.0 / shape); }

 private:
  std::mt19937_64 rng_;
};

/// The named distributions the tests check the sketch on, `n` values each.
enum class Sample { kLognormal, kPareto, kBimodal, kDuplicatesAndZeros, kMixedSigns };

inline std::vector<double> make_sample(Sample kind, std::size_t n, std::uint64_t seed) {
  SampleSource src(seed);
  std::vector<double> v;
  v.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    switch (kind) {
      case Sample::kLognormal:  // a latency in seconds with a heavy tail: median 50 ms
        v.push_back(src.lognormal(std::log(0.05), 1.5));
        break;
      case Sample::kPareto:  // shape 1.2: finite mean, infinite variance
        v.push_back(src.pareto(1.2, 0.001));
        break;
      case Sample::kBimodal:  // 90 % around 5 ms, 10 % around 800 ms
        v.push_back(src.uniform() < 0.9 ? src.lognormal(std::log(0.005), 0.2)
                                        : src.lognormal(std::log(0.8), 0.15));
        break;
      case Sample::kDuplicatesAndZeros:  // 30 % zeros, the rest on 50 values a millisecond apart
        v.push_back(src.uniform() < 0.3 ? 0.0 : std::floor(src.uniform() * 50.0) * 0.001);
        break;
      case Sample::kMixedSigns:  // a signed difference: either sign, magnitudes over 4 decades
        v.push_back((src.uniform() < 0.4 ? -1.0 : 1.0) * src.lognormal(0.0, 2.0));
        break;
    }
  }
  return v;
}

}  // namespace tokenbench::metrics::testing
