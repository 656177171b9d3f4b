#include "tokenbench/report/steady_figures.h"

#include <fmt/format.h>

#include "tokenbench/metrics/model_time.h"
#include "tokenbench/metrics/summary_builder.h"
#include "tokenbench/records/records_io.h"
#include "tokenbench/records/results_dir.h"
#include "tokenbench/report/summary_json.h"

namespace tokenbench::report {
namespace {

using nlohmann::json;

constexpr const char* kRule =
    "from the first moment the requests in flight reach 90% of the target (the concurrency "
    "limit, or the run's median in flight) and the output rate is within 10% of its median, to "
    "the last moment they are at 90% of the target (then the queue drains)";

double number(const json& j, const char* key) {
  const auto it = j.find(key);
  return it != j.end() && it->is_number() ? it->get<double>() : std::nan("");
}

std::string ms(double v) { return std::isnan(v) ? "-" : fmt::format("{:.1f} ms", v); }

}  // namespace

SteadyFigures steady_state_figures(const std::string& dir, const RunFigures& figures,
                                   const json& whole, const core::RunConfig& config) {
  SteadyFigures out;
  const auto window = figures.steady() ? figures.steady()->finish() : std::nullopt;
  const std::string file = records::find_requests_file(dir);
  if (!window || file.empty()) {
    const std::string why = !window && figures.steady() ? figures.steady()->why_none()
                                                        : "no requests file to read it from";
    out.json = {{"found", false}, {"why", why}, {"rule", kRule}};
    out.console = "Steady state (--steady-state auto): none found: " + why + ".\n";
    return out;
  }
  metrics::SummaryBuilder builder(summary_options(config));
  const double factor = figures.factor();
  records::RecordsCursor cursor(file);
  while (auto r = cursor.next()) {
    if (r->phase != core::Phase::kMeasure || r->sent < window->start || r->sent >= window->end) {
      continue;
    }
    if (factor != 1.0) metrics::rescale_to_model_time(*r, factor);
    builder.add(*r);
  }
  const metrics::Summary s = builder.finish();
  json in_window = json::object();
  const json all = summary_to_json(s, config);
  for (const auto& [key, v] : all.items()) {
    if (v.is_number()) in_window[key] = v;
  }
  const double start = core::to_seconds(window->start);
  const double end = core::to_seconds(window->end);
  out.json = {{"found", true},          {"rule", kRule},
              {"start_s", start},       {"end_s", end},
              {"seconds", end - start}, {"target_in_flight", window->target_in_flight},
              {"requests", s.measured}, {"figures", std::move(in_window)}};
  const json& f = out.json["figures"];
  out.console = fmt::format(
      "Steady state (--steady-state auto): {:.1f} s to {:.1f} s on the run's clock ({:.1f} s, "
      "{:g} in flight), {} requests: {:.2f} req/s, TTFT p95 {}, TPOT p95 {}, E2EL p95 {} (whole "
      "run: {:.2f} req/s, {}, {}, {}).\n",
      start, end, end - start, window->target_in_flight, s.measured,
      number(f, "request_throughput"), ms(number(f, "p95_ttft_ms")), ms(number(f, "p95_tpot_ms")),
      ms(number(f, "p95_e2el_ms")), number(whole, "request_throughput"),
      ms(number(whole, "p95_ttft_ms")), ms(number(whole, "p95_tpot_ms")),
      ms(number(whole, "p95_e2el_ms")));
  return out;
}

}  // namespace tokenbench::report
