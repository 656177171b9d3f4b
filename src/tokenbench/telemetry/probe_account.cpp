#include "tokenbench/telemetry/probe_account.h"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>
#include <stdexcept>

#include "tokenbench/core/text.h"
#include "tokenbench/metrics/percentile.h"

namespace tokenbench::telemetry {
namespace {

using nlohmann::json;

json stamp(core::Nanos t) { return t == core::kNever ? json(nullptr) : json(t); }

core::Nanos stamp_of(const json& j, const char* key) {
  const auto it = j.find(key);
  if (it == j.end() || it->is_null()) return core::kNever;
  if (!it->is_number_integer())
    throw std::runtime_error(std::string("probe: ") + key + " must be an integer");
  return it->get<core::Nanos>();
}

json stats(const std::vector<double>& sorted) {
  if (sorted.empty()) return nullptr;
  const double mean =
      std::accumulate(sorted.begin(), sorted.end(), 0.0) / static_cast<double>(sorted.size());
  return {{"mean", mean},
          {"p50", metrics::percentile_sorted(sorted, 50)},
          {"p90", metrics::percentile_sorted(sorted, 90)},
          {"p99", metrics::percentile_sorted(sorted, 99)},
          {"max", sorted.back()}};
}

}  // namespace

json probe_sample_to_json(const ProbeSample& s) {
  json out = {{"type", "probe"},          {"scheduled_ns", stamp(s.scheduled)},
              {"sent_ns", stamp(s.sent)}, {"first_token_ns", stamp(s.first_token)},
              {"done_ns", stamp(s.done)}, {"status", s.status}};
  if (!s.error.empty()) out["error"] = s.error;
  return out;
}

ProbeSample probe_sample_from_json(const json& j) {
  if (!j.is_object()) throw std::runtime_error("probe: not an object");
  ProbeSample s;
  s.scheduled = stamp_of(j, "scheduled_ns");
  s.sent = stamp_of(j, "sent_ns");
  s.first_token = stamp_of(j, "first_token_ns");
  s.done = stamp_of(j, "done_ns");
  s.status = j.value("status", 0L);
  s.error = j.value("error", std::string());
  return s;
}

ProbeAccount account_probes(const std::vector<ProbeSample>& samples, double rate, double factor) {
  ProbeAccount a;
  a.rate = rate;
  for (const ProbeSample& s : samples) {
    ++a.sent;
    if (!s.error.empty() || s.first_token == core::kNever || s.done == core::kNever) {
      ++a.failed;
      if (a.first_error.empty()) a.first_error = s.error.empty() ? "no token came" : s.error;
      continue;
    }
    ++a.completed;
    // From the probe's due time: a new user arriving then waits this long.
    a.ttft_ms.push_back(core::to_seconds(s.first_token - s.scheduled) * 1e3 * factor);
    a.e2el_ms.push_back(core::to_seconds(s.done - s.scheduled) * 1e3 * factor);
  }
  std::sort(a.ttft_ms.begin(), a.ttft_ms.end());
  std::sort(a.e2el_ms.begin(), a.e2el_ms.end());
  return a;
}

json probe_account_to_json(const ProbeAccount& a) {
  return {{"rate", a.rate},
          {"sent", a.sent},
          {"completed", a.completed},
          {"failed", a.failed},
          {"first_error", a.first_error.empty() ? json(nullptr) : json(a.first_error)},
          {"ttft_ms", stats(a.ttft_ms)},
          {"e2el_ms", stats(a.e2el_ms)},
          {"definition",
           "1-token requests (max_tokens 1) sent at --probe-rate beside the load, outside its "
           "concurrency; latencies from each probe's due time"}};
}

std::string render_probe_account(const ProbeAccount& a) {
  std::string out = fmt::format(
      "Probes ({:g}/s beside the load, outside its concurrency: a new user's view): {} sent, {} "
      "answered",
      a.rate, a.sent, a.completed);
  if (a.failed > 0) out += fmt::format(", {} failed ({})", a.failed, core::one_line(a.first_error));
  if (!a.ttft_ms.empty()) {
    out += fmt::format("; TTFT p50 {:.1f} ms, p99 {:.1f} ms; E2E p50 {:.1f} ms",
                       metrics::percentile_sorted(a.ttft_ms, 50),
                       metrics::percentile_sorted(a.ttft_ms, 99),
                       metrics::percentile_sorted(a.e2el_ms, 50));
  }
  return out + ".\n";
}

}  // namespace tokenbench::telemetry
