#include "tokenbench/metrics/checks.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace tokenbench::metrics {
namespace {

constexpr double kHealthyTail = 2.0;
constexpr double kLongTail = 3.0;
constexpr double kRateShortfall = 0.9;  // achieved below 90% of the requested rate
constexpr std::int64_t kMinRequestsForRate = 20;

std::optional<TailCheck> tail_of(const Distribution& d) {
  const double p50 = d.at(50);
  const double p95 = d.at(95);
  const double p99 = d.at(99);
  if (!is_defined(p50) || !is_defined(p95) || !is_defined(p99) || !(p50 > 0)) return std::nullopt;
  TailCheck t;
  t.p95_over_p50 = p95 / p50;
  t.p99_over_p50 = p99 / p50;
  t.reading = t.p99_over_p50 > kLongTail       ? "long tail"
              : t.p95_over_p50 >= kHealthyTail ? "moderate tail"
                                               : "healthy";
  return t;
}

nlohmann::json number(double v) { return is_defined(v) ? nlohmann::json(v) : nlohmann::json(); }

nlohmann::json tail_json(const std::optional<TailCheck>& t) {
  if (!t) return nullptr;
  return {{"p95_over_p50", t->p95_over_p50},
          {"p99_over_p50", t->p99_over_p50},
          {"reading", t->reading}};
}

}  // namespace

Checks run_checks(const std::vector<core::RequestRecord>& records, const Summary& summary,
                  const core::RunConfig& config) {
  Checks c;
  c.ttft = tail_of(summary.ttft_ms);
  c.e2el = tail_of(summary.e2el_ms);
  for (const auto& [name, tail] :
       {std::pair<const char*, const std::optional<TailCheck>*>{"TTFT", &c.ttft},
        {"E2EL", &c.e2el}}) {
    if (*tail && (*tail)->reading != "healthy") {
      c.findings.push_back(fmt::format("{} p95/p50 {:.1f}x, p99/p50 {:.1f}x: {}", name,
                                       (*tail)->p95_over_p50, (*tail)->p99_over_p50,
                                       (*tail)->reading));
    }
  }

  OfferedLoad& o = c.offered;
  o.requested_rate = std::isinf(config.request_rate) ? kUndefined : config.request_rate;
  o.concurrency_limit = config.max_concurrency;
  o.concurrency_observed = summary.max_concurrency_observed;
  o.send_lag_p50_ms = summary.queue_time_ms.at(50);
  o.send_lag_p99_ms = summary.queue_time_ms.at(99);
  core::Nanos first = core::kNever;
  core::Nanos last = core::kNever;
  std::int64_t sent = 0;
  for (const auto& r : records) {
    if (r.phase != core::Phase::kMeasure || r.retried || r.sent == core::kNever) continue;
    ++sent;
    first = first == core::kNever ? r.sent : std::min(first, r.sent);
    last = last == core::kNever ? r.sent : std::max(last, r.sent);
  }
  if (sent >= 2 && last > first) {
    o.achieved_rate = static_cast<double>(sent - 1) / core::to_seconds(last - first);
  }
  if (is_defined(o.requested_rate) && is_defined(o.achieved_rate) && sent >= kMinRequestsForRate &&
      config.ramp_up == core::RampKind::kNone &&
      o.achieved_rate < kRateShortfall * o.requested_rate) {
    const bool slot_bound =
        o.concurrency_limit > 0 && o.concurrency_observed >= o.concurrency_limit;
    c.findings.push_back(
        slot_bound
            ? fmt::format("the client sent {:.2f} req/s of the {:g} requested: requests waited "
                          "for one of the {} --max-concurrency slots (the server was slower "
                          "than the rate asks)",
                          o.achieved_rate, o.requested_rate, o.concurrency_limit)
            : fmt::format("the client sent only {:.2f} req/s of the {:g} requested: the client, "
                          "not the server, limited the test",
                          o.achieved_rate, o.requested_rate));
  }
  return c;
}

nlohmann::json checks_to_json(const Checks& c) {
  const OfferedLoad& o = c.offered;
  return {{"tail", {{"ttft", tail_json(c.ttft)}, {"e2el", tail_json(c.e2el)}}},
          {"offered_load",
           {{"requested_rate", number(o.requested_rate)},
            {"achieved_rate", number(o.achieved_rate)},
            {"concurrency_limit", o.concurrency_limit},
            {"concurrency_observed", o.concurrency_observed},
            {"send_lag_p50_ms", number(o.send_lag_p50_ms)},
            {"send_lag_p99_ms", number(o.send_lag_p99_ms)}}},
          {"findings", c.findings}};
}

std::string render_checks(const Checks& c) {
  const OfferedLoad& o = c.offered;
  std::string out = "\nChecks:\n";
  const auto tail = [](const char* name, const std::optional<TailCheck>& t) {
    return t ? fmt::format("{} p99/p50 {:.1f}x ({})", name, t->p99_over_p50, t->reading)
             : fmt::format("{} -", name);
  };
  out += fmt::format("  tail: {}; {}\n", tail("TTFT", c.ttft), tail("E2EL", c.e2el));
  out += fmt::format(
      "  offered load: {} req/s sent{}; concurrency {} observed{}; send lag p50 {} ms, p99 {} ms\n",
      is_defined(o.achieved_rate) ? fmt::format("{:.2f}", o.achieved_rate) : "-",
      is_defined(o.requested_rate) ? fmt::format(" of {:g} requested", o.requested_rate) : "",
      o.concurrency_observed,
      o.concurrency_limit > 0 ? fmt::format(" of {} allowed", o.concurrency_limit) : "",
      is_defined(o.send_lag_p50_ms) ? fmt::format("{:.3f}", o.send_lag_p50_ms) : "-",
      is_defined(o.send_lag_p99_ms) ? fmt::format("{:.3f}", o.send_lag_p99_ms) : "-");
  for (const auto& f : c.findings) out += "  " + f + "\n";
  return out;
}

}  // namespace tokenbench::metrics
