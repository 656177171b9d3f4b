#include "tokenbench/load/arrival_schedule.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <stdexcept>
#include <string>

namespace tokenbench::load {
namespace {

// The cumulative intensity Λ(t) = ∫₀ᵗ λ of a ramp from r0 to R over D seconds followed by R, and
// its inverse. Λ(t) is the expected number of arrivals by t.
class RampIntensity {
 public:
  RampIntensity(const Ramp& ramp, double rate)
      : linear_(ramp.kind == core::RampKind::kLinear),
        r0_(ramp.start_rps),
        rate_(rate),
        d_(ramp.duration_s) {
    if (linear_) {
      a_ = (rate_ - r0_) / (2.0 * d_);
      at_d_ = 0.5 * (r0_ + rate_) * d_;
    } else {
      k_ = std::log(rate_ / r0_) / d_;  // >= 0 because r0 <= R
      at_d_ = k_ > 0 ? r0_ * std::expm1(k_ * d_) / k_ : r0_ * d_;
    }
  }

  // The t >= 0 with Λ(t) = u, for u >= 0.
  double inverse(double u) const {
    if (u >= at_d_) return d_ + (u - at_d_) / rate_;
    if (linear_) {
      // The root of a·t² + r0·t − u = 0 as 2u / (r0 + √(r0² + 4au)): unlike the textbook
      // (√(...) − r0) / 2a it neither cancels for small a·u nor divides by a = 0 (R == r0).
      return 2.0 * u / (r0_ + std::sqrt(r0_ * r0_ + 4.0 * a_ * u));
    }
    return k_ > 0 ? std::log1p(k_ * u / r0_) / k_ : u / r0_;
  }

 private:
  bool linear_;
  double r0_;
  double rate_;
  double d_;
  double a_ = 0.0;     // linear: Λ(t) = r0·t + a·t² inside the ramp
  double k_ = 0.0;     // exponential: λ(t) = r0·e^{kt} inside the ramp
  double at_d_ = 0.0;  // Λ(D)
};

void validate_ramp(const Ramp& ramp, double rate) {
  if (ramp.kind == core::RampKind::kNone) return;
  if (!(ramp.start_rps > 0) || !std::isfinite(ramp.start_rps)) {
    throw std::invalid_argument("--ramp-up-start-rps must be > 0");
  }
  if (ramp.start_rps > rate) {
    throw std::invalid_argument("--ramp-up-start-rps must not exceed --request-rate");
  }
  if (!(ramp.duration_s > 0) || !std::isfinite(ramp.duration_s)) {
    throw std::invalid_argument("--ramp-up needs --ramp-up-duration S > 0");
  }
}

// The offsets of the arrivals at the times (seconds, non-decreasing) that successive calls of
// `next` return: `count` of them (kUnbounded: no bound), and with a `duration_s` > 0 only those
// before it (a run stops sending at its duration, so 10^7 prompts for 2 s are 2 s of arrivals).
template <typename Next>
std::vector<core::Nanos> generate(std::size_t count, double duration_s, Next next) {
  const double limit_ns = duration_s * 1e9;
  std::vector<core::Nanos> offsets;
  for (std::size_t i = 0; count == ArrivalSchedule::kUnbounded || i < count; ++i) {
    const double seconds = next();
    if (duration_s > 0 && seconds * 1e9 >= limit_ns) break;
    // A tiny rate puts later arrivals past any horizon: they saturate rather than wrap negative.
    offsets.push_back(core::saturated_nanos(seconds));
  }
  return offsets;
}

}  // namespace

ArrivalSchedule ArrivalSchedule::immediate(std::size_t count) {
  ArrivalSchedule s;
  s.size_ = count;
  return s;
}

ArrivalSchedule ArrivalSchedule::replay(const std::vector<double>& times_s, std::size_t count,
                                        double duration_s, double speed) {
  if (!std::isfinite(speed) || speed <= 0) {
    throw std::invalid_argument("--replay-speed must be a number > 0");
  }
  ArrivalSchedule s;
  const std::size_t n = std::min(count, times_s.size());
  for (std::size_t i = 0; i < n; ++i) {
    if (i > 0 && times_s[i] < times_s[i - 1]) {
      throw std::invalid_argument("the trace's times go back at request " + std::to_string(i));
    }
    const double t = (times_s[i] - times_s.front()) / speed;
    if (duration_s > 0 && t >= duration_s) break;
    s.offsets_.push_back(core::saturated_nanos(t));
  }
  s.size_ = s.offsets_.size();
  return s;
}

ArrivalSchedule ArrivalSchedule::open_loop(std::size_t count, double duration_s, double rate,
                                           core::ArrivalKind kind, double burstiness,
                                           std::uint64_t seed, const Ramp& ramp) {
  if (!(rate > 0) || std::isinf(rate)) {
    throw std::invalid_argument("open-loop schedule needs a finite request rate > 0");
  }
  if (!(burstiness > 0)) throw std::invalid_argument("--burstiness must be > 0");
  if (count == kUnbounded && !(duration_s > 0)) {
    throw std::invalid_argument("an unbounded schedule needs a duration");
  }
  validate_ramp(ramp, rate);
  std::mt19937_64 rng(seed);
  const bool constant = kind == core::ArrivalKind::kConstant;
  ArrivalSchedule s;
  if (ramp.kind == core::RampKind::kNone) {
    // Gamma(shape k, scale theta) has mean k*theta; theta = 1/(rate*k) gives mean 1/rate.
    std::gamma_distribution<double> gamma(burstiness, 1.0 / (rate * burstiness));
    double t = 0.0;  // seconds
    s.offsets_ = generate(count, duration_s, [&] {
      const double now = t;
      t += constant ? 1.0 / rate : gamma(rng);
      return now;
    });
  } else {
    // The same gaps at rate 1 in operational time u, mapped to real time by Λ⁻¹.
    std::gamma_distribution<double> gamma(burstiness, 1.0 / burstiness);
    const RampIntensity intensity(ramp, rate);
    double u = 0.0;
    double t = 0.0;  // seconds
    s.offsets_ = generate(count, duration_s, [&] {
      // Λ⁻¹ is increasing; max() keeps rounding in its closed forms from reordering two arrivals.
      t = std::max(t, intensity.inverse(u));
      u += constant ? 1.0 : gamma(rng);
      return t;
    });
  }
  s.size_ = s.offsets_.size();
  return s;
}

}  // namespace tokenbench::load
