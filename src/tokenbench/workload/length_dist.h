#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace tokenbench::workload {

/// How a synthetic dataset draws a request's length in tokens (--input-dist, --output-dist).
/// `fixed` is the dataset's length (--input-len, --output-len), spread by --range-ratio as vLLM's
/// random dataset does; the others replace it. Parameters are those of the length itself: the
/// lognormal's MEAN and SD are the mean and standard deviation of the lengths drawn, not of their
/// logarithm.
struct LengthDist {
  enum class Kind { kFixed, kUniform, kNormal, kLognormal, kEmpirical };
  Kind kind = Kind::kFixed;
  double a = 0;                      ///< fixed: the length; uniform: LO; normal, lognormal: MEAN
  double b = 0;                      ///< fixed: the range ratio; uniform: HI; normal, lognormal: SD
  std::int64_t min = 0;              ///< normal, lognormal: lengths drawn are clamped to at least
  std::int64_t max = 0;              ///< this and at most this (0: no bound but 1 and kMaxTokens)
  std::vector<std::int64_t> values;  ///< empirical: the lengths of the file
  std::vector<double> weights;       ///< empirical: their weights (1 where the file gives none)
  std::vector<double> cumulative;    ///< empirical: running sums of the weights, for drawing
};

/// The forms --input-dist and --output-dist accept, for help and errors.
inline constexpr const char* kLengthDistForms =
    "fixed, uniform:LO,HI, normal:MEAN,SD[,MIN,MAX], lognormal:MEAN,SD[,MIN,MAX] or "
    "empirical:FILE";

/// Parses a spec: `fixed`, `uniform:LO,HI` (whole numbers, 1 <= LO <= HI), `normal:MEAN,SD`,
/// `lognormal:MEAN,SD` (MEAN > 0, SD >= 0; each may add `,MIN,MAX`, whole numbers 1 <= MIN <=
/// MAX that the lengths drawn are clamped to, as inference-perf's distributions are), or
/// `empirical:FILE` (a file read now: one length per
/// line, or `length,weight`; blank lines and `#` comments skipped, a header line of words allowed
/// first). Lengths and means are at most core::kMaxTokens. `fixed` parses to kFixed with a = b = 0:
/// see fixed_length. Throws std::invalid_argument with one line naming `flag`, the problem and the
/// accepted forms.
LengthDist parse_length_dist(const std::string& spec, const std::string& flag);

/// The `fixed` distribution of a dataset: `len`, or uniform over [len(1-r), len(1+r)] for r > 0.
LengthDist fixed_length(std::int64_t len, double range_ratio);

/// A length drawn from `dist` with `rng`, rounded to a whole number of tokens and clamped to
/// [1, core::kMaxTokens]. A kFixed dist with r = 0 draws nothing from `rng`.
std::int64_t draw_length(const LengthDist& dist, std::mt19937_64& rng);

/// The lognormal's parameters (mu, sigma of the logarithm) for lengths of `mean` and `sd`:
/// sigma^2 = ln(1 + sd^2 / mean^2), mu = ln(mean) - sigma^2 / 2.
std::pair<double, double> lognormal_params(double mean, double sd);

}  // namespace tokenbench::workload
