#include "tokenbench/metrics/checks.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <tuple>
#include <utility>

#include "tokenbench/metrics/model_time.h"

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

// The arrival wait's figures from the waits counted (ms, already in the figures' time) and the
// summary's latencies; nullopt when no measured request had an intended arrival.
std::optional<ArrivalWait> arrival_wait(const StreamingDistribution& waits, std::int64_t waited,
                                        const Summary& summary) {
  if (waits.count() == 0) return std::nullopt;
  ArrivalWait w;
  w.requests = static_cast<std::int64_t>(waits.count());
  w.waited = waited;
  static constexpr std::array<double, 2> kWaitPercentiles{50, 99};
  const Distribution d = make_distribution(waits, kWaitPercentiles);
  w.wait_p50_ms = d.at(50);
  w.wait_p99_ms = d.at(99);
  w.ttft_p99_ms = summary.ttft_ms.at(99);
  w.ttft_from_intended_p99_ms = summary.ttft_from_intended_ms.at(99);
  w.e2el_p99_ms = summary.e2el_ms.at(99);
  w.e2el_from_intended_p99_ms = summary.e2el_from_intended_ms.at(99);
  return w;
}

std::string ms_or_dash(double v) { return is_defined(v) ? fmt::format("{:.1f}", v) : "-"; }

// The share of wall time a cumulative clock `of` grew over the samples `s`, its mean and its
// peak over windows of at least `window` (by two pointers), in %.
template <typename Of>
std::pair<double, double> share_pct(const std::vector<core::CpuSample>& s, core::Nanos window,
                                    Of of) {
  const auto pct = [&](std::size_t i, std::size_t j) {
    return 100.0 * static_cast<double>(of(s[j]) - of(s[i])) / static_cast<double>(s[j].t - s[i].t);
  };
  const double mean = pct(0, s.size() - 1);
  if (s.back().t - s.front().t <= window) return {mean, mean};
  double peak = 0;
  std::size_t j = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    j = std::max(j, i);
    while (j < s.size() && s[j].t - s[i].t < window) ++j;
    if (j == s.size()) break;
    peak = std::max(peak, pct(i, j));
  }
  return {mean, peak};
}

}  // namespace

ClientHealth client_health(const std::vector<std::vector<core::CpuSample>>& samples) {
  ClientHealth h;
  const auto window = core::saturated_nanos(kCpuWindowS);
  for (const auto& s : samples) {
    if (s.size() < 2 || s.back().t <= s.front().t) continue;
    WorkerCpu w;
    w.cpu_s = core::to_seconds(s.back().cpu - s.front().cpu);
    std::tie(w.busy_mean_pct, w.busy_peak_pct) =
        share_pct(s, window, [](const core::CpuSample& x) { return x.cpu; });
    const bool waits_known =
        std::all_of(s.begin(), s.end(), [](const core::CpuSample& x) { return x.run_delay >= 0; });
    if (waits_known) {
      std::tie(w.wait_mean_pct, w.wait_peak_pct) =
          share_pct(s, window, [](const core::CpuSample& x) { return x.run_delay; });
      h.starved = h.starved || w.wait_peak_pct >= kCpuWaitPct;
    }
    h.saturated = h.saturated || w.busy_peak_pct >= kSaturatedBusyPct;
    h.workers.push_back(w);
  }
  return h;
}

ChecksBuilder::ChecksBuilder(double factor, std::size_t exact_limit)
    : factor_(factor), waits_(exact_limit) {}

void ChecksBuilder::add(const core::RequestRecord& r) {
  consistency_.add(r);
  if (r.phase != core::Phase::kMeasure || r.retried) return;
  if (r.sent != core::kNever) {
    ++stamp_sources_[std::string(core::to_string(r.stamps))];
    ++sent_;
    first_sent_ = first_sent_ == core::kNever ? r.sent : std::min(first_sent_, r.sent);
    last_sent_ = last_sent_ == core::kNever ? r.sent : std::max(last_sent_, r.sent);
  }
  if (r.read_late_share >= 0) {
    late_share_sum_ += r.read_late_share;
    ++late_share_n_;
  }
  if (r.intended != core::kNever && r.scheduled != core::kNever) {
    // A wait for a slot is the server's doing: in model time (factor_) like the latencies.
    const core::Nanos wait = std::max<core::Nanos>(0, r.scheduled - r.intended);
    if (wait > 0) ++waited_;
    waits_.add(core::to_ms(wait) * factor_);
  }
}

Checks ChecksBuilder::finish(const Summary& summary, const core::RunConfig& config,
                             const std::vector<std::vector<core::CpuSample>>& client_cpu,
                             const std::vector<core::ReadLagLog>& read_lag) const {
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
  c.stamp_sources = stamp_sources_;
  add_offered(summary, config, c);
  add_consistency(c);
  add_arrival_wait(summary, c);
  add_client_health(client_cpu, c);
  c.read_lag = read_lag_check(read_lag, c.stamp_sources, late_share_sum_, late_share_n_);
  return c;
}

void ChecksBuilder::add_offered(const Summary& summary, const core::RunConfig& config,
                                Checks& c) const {
  OfferedLoad& o = c.offered;
  o.requested_rate = std::isinf(config.request_rate) ? kUndefined : config.request_rate;
  o.concurrency_limit = config.max_concurrency;
  if (config.concurrency_unit == core::ConcurrencyUnit::kSession) {
    if (config.dataset == core::Dataset::kJobs) o.limit_unit = "jobs";
    if (config.multi_turn) o.limit_unit = "sessions";
  }
  o.concurrency_observed = summary.max_concurrency_observed;
  o.send_lag_p50_ms = summary.queue_time_ms.at(50);
  o.send_lag_p99_ms = summary.queue_time_ms.at(99);
  if (sent_ >= 2 && last_sent_ > first_sent_) {
    o.achieved_rate = static_cast<double>(sent_ - 1) / core::to_seconds(last_sent_ - first_sent_);
  }
  if (is_defined(o.requested_rate) && is_defined(o.achieved_rate) && sent_ >= kMinRequestsForRate &&
      config.ramp_up == core::RampKind::kNone &&
      o.achieved_rate < kRateShortfall * o.requested_rate) {
    const bool slot_bound = o.concurrency_limit > 0 && o.limit_unit.empty() &&
                            o.concurrency_observed >= o.concurrency_limit;
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
}

void ChecksBuilder::add_consistency(Checks& c) const {
  c.consistency = consistency_.finish();
  for (const auto& k : c.consistency) {
    if (k.outside == 0) continue;
    std::string ids;
    for (const auto id : k.first_ids) ids += (ids.empty() ? "" : ", ") + std::to_string(id);
    c.findings.push_back(fmt::format(
        "{} of {} requests fail the {} check ({}; ids {}{}): {}", k.outside, k.checked, k.name,
        k.rule, ids, k.outside > static_cast<std::int64_t>(k.first_ids.size()) ? ", ..." : "",
        k.reading));
  }
}

void ChecksBuilder::add_arrival_wait(const Summary& summary, Checks& c) const {
  c.arrival_wait = arrival_wait(waits_, waited_, summary);
  if (c.arrival_wait && is_defined(c.arrival_wait->wait_p99_ms) &&
      c.arrival_wait->wait_p99_ms > kClientLagWarnMs) {
    const ArrivalWait& w = *c.arrival_wait;
    c.findings.push_back(fmt::format(
        "{} of {} requests waited for a --max-concurrency slot past their intended arrival (p99 "
        "{} ms): latencies from the send hide that wait (coordinated omission); from the "
        "intended arrival TTFT p99 is {} ms (not {}), E2EL p99 {} ms (not {})",
        w.waited, w.requests, ms_or_dash(w.wait_p99_ms), ms_or_dash(w.ttft_from_intended_p99_ms),
        ms_or_dash(w.ttft_p99_ms), ms_or_dash(w.e2el_from_intended_p99_ms),
        ms_or_dash(w.e2el_p99_ms)));
  }
}

void ChecksBuilder::add_client_health(const std::vector<std::vector<core::CpuSample>>& client_cpu,
                                      Checks& c) {
  if (!client_cpu.empty()) {
    c.client = client_health(client_cpu);
    for (std::size_t i = 0; i < c.client->workers.size(); ++i) {
      const WorkerCpu& w = c.client->workers[i];
      if (w.busy_peak_pct < kSaturatedBusyPct) continue;
      c.findings.push_back(fmt::format(
          "client worker {} was on the CPU {:.0f}% of its busiest second (mean {:.0f}%): the "
          "client may have bounded these figures; give it more --workers or a less loaded "
          "machine",
          i, w.busy_peak_pct, w.busy_mean_pct));
    }
    for (std::size_t i = 0; i < c.client->workers.size(); ++i) {
      const WorkerCpu& w = c.client->workers[i];
      if (!is_defined(w.wait_peak_pct) || w.wait_peak_pct < kCpuWaitPct) continue;
      c.findings.push_back(fmt::format(
          "client worker {} waited for a CPU {:.0f}% of its worst second (mean {:.0f}%): other "
          "processes held its core, so it read and sent late; give it a core of its own",
          i, w.wait_peak_pct, w.wait_mean_pct));
    }
  }
}

Checks run_checks(const std::vector<core::RequestRecord>& records, const Summary& summary,
                  const core::RunConfig& config,
                  const std::vector<std::vector<core::CpuSample>>& client_cpu,
                  const std::vector<core::ReadLagLog>& read_lag) {
  ChecksBuilder builder(model_time_factor(config));
  for (const auto& r : records) builder.add(r);
  return builder.finish(summary, config, client_cpu, read_lag);
}

nlohmann::json checks_to_json(const Checks& c) {
  const OfferedLoad& o = c.offered;
  nlohmann::json consistency = nlohmann::json::object();
  for (const auto& k : c.consistency) {
    consistency[k.name] = {{"rule", k.rule},
                           {"checked", k.checked},
                           {"outside", k.outside},
                           {"first_ids", k.first_ids}};
  }
  nlohmann::json wait;
  if (c.arrival_wait) {
    const ArrivalWait& w = *c.arrival_wait;
    wait = {{"requests", w.requests},
            {"waited", w.waited},
            {"wait_p50_ms", number(w.wait_p50_ms)},
            {"wait_p99_ms", number(w.wait_p99_ms)},
            {"p99_ttft_ms", number(w.ttft_p99_ms)},
            {"p99_ttft_from_intended_ms", number(w.ttft_from_intended_p99_ms)},
            {"p99_e2el_ms", number(w.e2el_p99_ms)},
            {"p99_e2el_from_intended_ms", number(w.e2el_from_intended_p99_ms)}};
  }
  nlohmann::json client;
  if (c.client) {
    client = {{"saturated", c.client->saturated}, {"workers", nlohmann::json::array()}};
    for (const auto& w : c.client->workers) {
      client["workers"].push_back({{"cpu_s", w.cpu_s},
                                   {"busy_mean_pct", w.busy_mean_pct},
                                   {"busy_peak_pct", w.busy_peak_pct},
                                   {"wait_mean_pct", number(w.wait_mean_pct)},
                                   {"wait_peak_pct", number(w.wait_peak_pct)}});
    }
    client["starved"] = c.client->starved;
    add_read_lag_json(c.read_lag, client);
  }
  return {{"tail", {{"ttft", tail_json(c.ttft)}, {"e2el", tail_json(c.e2el)}}},
          {"offered_load",
           {{"requested_rate", number(o.requested_rate)},
            {"achieved_rate", number(o.achieved_rate)},
            {"concurrency_limit", o.concurrency_limit},
            {"concurrency_limit_unit", o.limit_unit.empty() ? "requests" : o.limit_unit},
            {"concurrency_observed", o.concurrency_observed},
            {"send_lag_p50_ms", number(o.send_lag_p50_ms)},
            {"send_lag_p99_ms", number(o.send_lag_p99_ms)}}},
          {"consistency", std::move(consistency)},
          {"arrival_wait", std::move(wait)},
          {"client", std::move(client)},
          {"stamps", c.stamp_sources},
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
      "  offered load: {} req/s sent{}; concurrency {}{}; send lag p50 {} ms, p99 {} ms\n",
      is_defined(o.achieved_rate) ? fmt::format("{:.2f}", o.achieved_rate) : "-",
      is_defined(o.requested_rate) ? fmt::format(" of {:g} requested", o.requested_rate) : "",
      o.limit_unit.empty() ? fmt::format("{} observed", o.concurrency_observed)
                           : fmt::format("{} requests observed", o.concurrency_observed),
      o.concurrency_limit <= 0 ? ""
      : o.limit_unit.empty()   ? fmt::format(" of {} allowed", o.concurrency_limit)
                               : fmt::format(" ({} {} allowed)", o.concurrency_limit, o.limit_unit),
      is_defined(o.send_lag_p50_ms) ? fmt::format("{:.3f}", o.send_lag_p50_ms) : "-",
      is_defined(o.send_lag_p99_ms) ? fmt::format("{:.3f}", o.send_lag_p99_ms) : "-");
  if (!c.consistency.empty()) {
    std::string parts;
    for (const auto& k : c.consistency) {
      parts += fmt::format(
          "{}{} {}", parts.empty() ? "" : ", ", k.name,
          k.checked > 0 ? fmt::format("{}/{} outside", k.outside, k.checked) : std::string("-"));
    }
    out += "  consistency: " + parts + "\n";
  }
  if (c.arrival_wait) {
    const ArrivalWait& w = *c.arrival_wait;
    out += fmt::format(
        "  from intended arrival: {} of {} waited for a slot (p99 {} ms); TTFT p99 {} ms, E2EL "
        "p99 {} ms\n",
        w.waited, w.requests, ms_or_dash(w.wait_p99_ms), ms_or_dash(w.ttft_from_intended_p99_ms),
        ms_or_dash(w.e2el_from_intended_p99_ms));
  }
  if (c.client && !c.client->workers.empty()) {
    std::string parts;
    std::string waits;
    for (const auto& w : c.client->workers) {
      parts += fmt::format("{}{:.0f}% (peak {:.0f}%)", parts.empty() ? "" : ", ", w.busy_mean_pct,
                           w.busy_peak_pct);
      if (is_defined(w.wait_mean_pct)) {
        waits += fmt::format("{}{:.0f}% (peak {:.0f}%)", waits.empty() ? "" : ", ", w.wait_mean_pct,
                             w.wait_peak_pct);
      }
    }
    out += fmt::format("  client CPU per worker: {}{}\n", parts,
                       c.client->saturated ? " - saturated" : "");
    if (!waits.empty()) {
      out += fmt::format("  waiting for a CPU per worker: {}{}\n", waits,
                         c.client->starved ? " - held back by other processes" : "");
    }
    out += render_read_lag(c.read_lag);
  }
  if (!c.stamp_sources.empty()) {
    std::string parts;
    for (const auto& [source, n] : c.stamp_sources) {
      parts += fmt::format("{}{} {}", parts.empty() ? "" : ", ", source, n);
    }
    out += "  receive stamps: " + parts + "\n";
  }
  for (const auto& f : c.findings) out += "  " + f + "\n";
  return out;
}

}  // namespace tokenbench::metrics
