#include "tokenbench/report/ranks.h"

#include <fmt/format.h>

namespace tokenbench::report {

namespace {

std::string number(const nlohmann::json& v, const char* format) {
  if (!v.is_number()) return "-";
  return fmt::format(fmt::runtime(format), v.get<double>());
}

}  // namespace

std::string render_ranks(const nlohmann::json& d) {
  if (!d.is_object()) return "";
  std::string out = fmt::format(
      "\nDistributed: {} ranks, {} measuring; the schedule's prompt i is sent by the member at "
      "position i mod {}\n",
      d.value("ranks", 0), d.value("members", 0), d.value("members", 0));
  out += fmt::format("  {:>4}  {:<16} {:<9} {:>8} {:>9} {:>6} {:>14} {:>9}  {}\n", "rank", "host",
                     "status", "requests", "completed", "failed", "send lag p99", "CPU peak",
                     "clock offset ms");
  for (const auto& r : d.value("per_rank", nlohmann::json::array())) {
    std::string offset = "-";
    if (r.value("rank", -1) == 0) {
      offset = "0 (reference)";
    } else if (r.contains("offset_ms")) {
      offset = fmt::format("{:+.4f} ± {:.4f}", r["offset_ms"].get<double>(),
                           r.value("uncertainty_ms", 0.0));
    }
    out += fmt::format("  {:>4}  {:<16} {:<9} {:>8} {:>9} {:>6} {:>14} {:>9}  {}\n",
                       r.value("rank", -1), r.value("host", std::string("?")).substr(0, 16),
                       r.value("status", std::string("?")), r.value("requests", 0),
                       r.value("completed", 0), r.value("failed", 0),
                       number(r.value("send_lag_p99_ms", nlohmann::json()), "{:.2f} ms"),
                       number(r.value("cpu_busy_peak_pct", nlohmann::json()), "{:.0f}%"), offset);
  }
  out += fmt::format(
      "  Clock offsets between ranks (at most ±{:.4f} ms) bound how well the ranks' arrivals line "
      "up and the measure window (duration, throughputs); TTFT, TPOT, ITL and E2EL are each "
      "measured on one rank's clock and do not depend on them.\n",
      d.value("clock_uncertainty_ms", 0.0));
  for (const auto& line : d.value("missing", nlohmann::json::array())) {
    out += "  MISSING: " + line.get<std::string>() + "\n";
  }
  return out;
}

}  // namespace tokenbench::report
