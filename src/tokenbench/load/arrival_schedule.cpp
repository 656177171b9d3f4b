#include "tokenbench/load/arrival_schedule.h"

#include <cmath>
#include <random>
#include <stdexcept>

namespace tokenbench::load {

ArrivalSchedule ArrivalSchedule::immediate(std::size_t count) {
  ArrivalSchedule s;
  s.size_ = count;
  return s;
}

ArrivalSchedule ArrivalSchedule::open_loop(std::size_t count, double duration_s, double rate,
                                           core::ArrivalKind kind, double burstiness,
                                           std::uint64_t seed) {
  if (!(rate > 0) || std::isinf(rate)) {
    throw std::invalid_argument("open-loop schedule needs a finite request rate > 0");
  }
  if (!(burstiness > 0)) throw std::invalid_argument("--burstiness must be > 0");
  if (count == kUnbounded && !(duration_s > 0)) {
    throw std::invalid_argument("an unbounded schedule needs a duration");
  }
  std::mt19937_64 rng(seed);
  // Gamma(shape k, scale theta) has mean k*theta; theta = 1/(rate*k) gives mean 1/rate.
  std::gamma_distribution<double> gamma(burstiness, 1.0 / (rate * burstiness));
  const double limit_ns = duration_s * 1e9;
  ArrivalSchedule s;
  double t = 0.0;  // seconds
  for (std::size_t i = 0; count == kUnbounded || i < count; ++i) {
    const double ns = t * 1e9;
    if (count == kUnbounded && ns >= limit_ns) break;
    s.offsets_.push_back(static_cast<core::Nanos>(std::llround(ns)));
    t += kind == core::ArrivalKind::kConstant ? 1.0 / rate : gamma(rng);
  }
  s.size_ = s.offsets_.size();
  return s;
}

}  // namespace tokenbench::load
