#include "tokenbench/metrics/model_time.h"

#include <cmath>

namespace tokenbench::metrics {
namespace {

core::Nanos times(double factor, core::Nanos t) {
  return static_cast<core::Nanos>(std::llround(static_cast<double>(t) * factor));
}

}  // namespace

void rescale_to_model_time(core::RequestRecord& r, double factor) {
  const core::Nanos sent = r.sent;
  core::Nanos new_sent = core::kNever;
  if (sent != core::kNever) {
    // The client's queue time (scheduled to sent) is its own: never scaled.
    new_sent = r.scheduled != core::kNever ? times(factor, r.scheduled) + (sent - r.scheduled)
                                           : times(factor, sent);
  }
  const auto later = [&](core::Nanos& t) {
    if (t == core::kNever) return;
    t = sent != core::kNever ? new_sent + times(factor, t - sent) : times(factor, t);
  };
  for (core::Nanos* t : {&r.intended, &r.scheduled}) {
    if (*t != core::kNever) *t = times(factor, *t);
  }
  for (core::Nanos* t : {&r.headers, &r.first_token, &r.last_token, &r.done, &r.first_reasoning,
                         &r.first_answer, &r.connected}) {
    later(*t);
  }
  for (auto& c : r.chunks) later(c.t);
  r.sent = new_sent;
  if (r.server_timings) {  // the simulator's own times, in real time like the stamps
    r.server_timings->prompt_ms *= factor;
    r.server_timings->predicted_ms *= factor;
  }
}

double model_time_factor(const core::RunConfig& config) {
  return config.sim_time && config.sim_time_scale > 0 ? config.sim_time_scale : 1.0;
}

std::vector<core::RequestRecord> in_model_time(std::vector<core::RequestRecord> records,
                                               double factor) {
  if (factor == 1.0) return records;
  for (auto& r : records) rescale_to_model_time(r, factor);
  return records;
}

}  // namespace tokenbench::metrics
