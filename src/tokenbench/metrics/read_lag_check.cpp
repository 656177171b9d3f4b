#include "tokenbench/metrics/read_lag_check.h"

#include <fmt/format.h>

#include <algorithm>

namespace tokenbench::metrics {
namespace {

nlohmann::json number(double v) { return is_defined(v) ? nlohmann::json(v) : nlohmann::json(); }

void put_figures(const ReadLagFigures& f, nlohmann::json& out) {
  out["read_lag_reads"] = f.reads;
  out["read_lag_p50_ms"] = number(f.p50_ms);
  out["read_lag_p99_ms"] = number(f.p99_ms);
  out["read_lag_max_ms"] = number(f.max_ms);
}

std::string ms(double v) { return is_defined(v) ? fmt::format("{:.3f}", v) : "-"; }

}  // namespace

ReadLagFigures read_lag_figures(const core::ReadLagHistogram& h) {
  ReadLagFigures f;
  f.reads = h.count();
  if (h.count() == 0) return f;
  f.p50_ms = core::to_ms(h.quantile(0.50));
  f.p99_ms = core::to_ms(h.quantile(0.99));
  f.max_ms = core::to_ms(h.max());
  return f;
}

ReadLagCheck read_lag_check(const std::vector<core::ReadLagLog>& logs,
                            const std::map<std::string, std::int64_t>& stamp_sources,
                            double late_share_sum, std::int64_t late_share_n) {
  ReadLagCheck c;
  core::ReadLagHistogram all;
  for (const auto& log : logs) {
    all.merge(log.total);
    c.workers.push_back(read_lag_figures(log.total));
    for (const auto& w : log.windows) {
      const double p99 = core::to_ms(w.p99);
      if (!is_defined(c.worst_window_p99_ms) || p99 > c.worst_window_p99_ms) {
        c.worst_window_p99_ms = p99;
      }
    }
  }
  c.measured = all.count() > 0;
  if (!c.measured) {
    c.workers.clear();
    const auto kernel = stamp_sources.find("kernel");
    c.not_measured =
        kernel == stamp_sources.end() || kernel->second == 0
            ? "not measured: no read carried the kernel's receive stamp (--stamps user, "
              "--transport curl or a proxy)"
            : "not measured: the results hold no read lag (a distributed run's ranks keep "
              "theirs, or a run from before tokenbench recorded it)";
    return c;
  }
  c.overall = read_lag_figures(all);
  if (late_share_n > 0) {
    c.late_chunk_share = late_share_sum / static_cast<double>(late_share_n);
    c.requests_judged = late_share_n;
  }
  return c;
}

void add_read_lag_json(const ReadLagCheck& c, nlohmann::json& client) {
  client["read_lag"] = c.measured ? nlohmann::json("measured") : nlohmann::json(c.not_measured);
  put_figures(c.overall, client);
  client["read_lag_worst_window_p99_ms"] = number(c.worst_window_p99_ms);
  client["read_late_chunk_share"] = number(c.late_chunk_share);
  client["read_late_requests_judged"] = c.requests_judged;
  if (!client.contains("workers")) return;
  auto& workers = client["workers"];
  for (std::size_t i = 0; i < workers.size(); ++i) {
    put_figures(i < c.workers.size() ? c.workers[i] : ReadLagFigures{}, workers[i]);
  }
}

std::string render_read_lag(const ReadLagCheck& c) {
  if (!c.measured) return "  client read lag: " + c.not_measured + "\n";
  std::string out = fmt::format("  client read lag: p50 {} ms, p99 {} ms, max {} ms over {} reads",
                                ms(c.overall.p50_ms), ms(c.overall.p99_ms), ms(c.overall.max_ms),
                                c.overall.reads);
  if (is_defined(c.late_chunk_share)) {
    out +=
        fmt::format("; {:.1f}% of chunks read more than one ITL late", 100.0 * c.late_chunk_share);
  }
  out += "\n";
  if (c.workers.size() > 1) {
    std::string parts;
    for (const auto& w : c.workers) {
      parts += fmt::format("{}{}/{}", parts.empty() ? "" : ", ", ms(w.p50_ms), ms(w.p99_ms));
    }
    out += "  read lag p50/p99 per worker (ms): " + parts + "\n";
  }
  return out;
}

}  // namespace tokenbench::metrics
