#include "tokenbench/report/replicas.h"

#include <fmt/format.h>

#include <utility>

#include "tokenbench/metrics/buckets.h"
#include "tokenbench/metrics/request_metrics.h"
#include "tokenbench/report/console.h"
#include "tokenbench/report/summary_json.h"

namespace tokenbench::report {
using nlohmann::json;

ReplicasBuilder::ReplicasBuilder(std::vector<std::string> urls,
                                 const metrics::SummaryOptions& options)
    : urls_(std::move(urls)), in_flight_s_(urls_.size(), 0.0) {
  parts_.reserve(urls_.size());
  for (std::size_t i = 0; i < urls_.size(); ++i) {
    parts_.emplace_back(options, metrics::kPartExactLimit, metrics::kPartGapExactLimit);
  }
}

void ReplicasBuilder::add(const core::RequestRecord& r) {
  if (r.endpoint >= urls_.size()) return;
  parts_[r.endpoint].add(r);
  if (r.phase == core::Phase::kMeasure && r.ok() && r.sent != core::kNever &&
      r.done != core::kNever) {
    in_flight_s_[r.endpoint] += core::to_seconds(r.done - r.sent);
  }
}

std::vector<ReplicaFigures> ReplicasBuilder::finish(double duration_s) const {
  std::vector<ReplicaFigures> out;
  for (std::size_t i = 0; i < urls_.size(); ++i) {
    ReplicaFigures f;
    f.url = urls_[i];
    f.summary = parts_[i].finish();
    if (duration_s > 0) {
      f.mean_batch = in_flight_s_[i] / duration_s;
      const double tpot_s = f.summary.tpot_ms.mean / 1e3;
      if (tpot_s > 0) f.batch_tps = f.mean_batch / tpot_s;
    }
    out.push_back(std::move(f));
  }
  return out;
}

std::vector<ReplicaFigures> per_replica(const std::vector<core::RequestRecord>& records,
                                        const std::vector<std::string>& urls,
                                        const metrics::SummaryOptions& options, double duration_s) {
  ReplicasBuilder builder(urls, options);
  for (const auto& r : records) builder.add(r);
  return builder.finish(duration_s);
}

json replicas_to_json(const std::vector<ReplicaFigures>& replicas) {
  json out = json::array();
  for (const auto& r : replicas) {
    const metrics::Summary& s = r.summary;
    out.push_back({{"base_url", r.url},
                   {"completed", s.completed},
                   {"failed", s.failed},
                   {"request_throughput", defined_or_null(s.request_throughput)},
                   {"output_throughput", defined_or_null(s.output_throughput)},
                   {"median_ttft_ms", defined_or_null(s.ttft_ms.median)},
                   {"p95_ttft_ms", defined_or_null(s.ttft_ms.at(95))},
                   {"mean_tpot_ms", defined_or_null(s.tpot_ms.mean)},
                   {"p95_e2el_ms", defined_or_null(s.e2el_ms.at(95))},
                   {"mean_batch", defined_or_null(r.mean_batch)},
                   {"batch_tps", defined_or_null(r.batch_tps)}});
  }
  return out;
}

std::string render_replicas(const std::vector<ReplicaFigures>& replicas,
                            const metrics::Summary& total, const std::string& balance) {
  std::vector<std::vector<std::string>> rows;
  double sum_batch_tps = 0;
  for (const auto& r : replicas) {
    const metrics::Summary& s = r.summary;
    rows.push_back(
        {r.url, std::to_string(s.completed), std::to_string(s.failed),
         defined_cell(s.output_throughput, "{:.1f}"), defined_cell(s.ttft_ms.median, "{:.1f}"),
         defined_cell(s.ttft_ms.at(95), "{:.1f}"), defined_cell(s.tpot_ms.mean, "{:.2f}"),
         defined_cell(r.mean_batch, "{:.2f}"), defined_cell(r.batch_tps, "{:.1f}")});
    if (metrics::is_defined(r.batch_tps)) sum_batch_tps += r.batch_tps;
  }
  // Per-replica output rates are over each replica's own span; the total's is over the run.
  rows.push_back(
      {"total", std::to_string(total.completed), std::to_string(total.failed),
       defined_cell(total.output_throughput, "{:.1f}"),
       defined_cell(total.ttft_ms.median, "{:.1f}"), defined_cell(total.ttft_ms.at(95), "{:.1f}"),
       defined_cell(total.tpot_ms.mean, "{:.2f}"), "", fmt::format("{:.1f}", sum_batch_tps)});
  std::string out = fmt::format("\nReplicas ({}):\n", balance);
  out += render_grid_table({"Replica", "Succeed", "Failed", "Output (tok/s)", "TTFT p50 (ms)",
                            "TTFT p95 (ms)", "TPOT mean (ms)", "Batch B", "B/TPOT (tok/s)"},
                           rows);
  out += fmt::format(
      "Check: TPS_total = {:.1f} tok/s measured against R x B / TPOT = {:.1f} tok/s (B: mean "
      "requests in flight per replica); the measured share, {:.0f}%, is the part of their time "
      "in flight that requests spent decoding, the rest waiting or in prefill.\n",
      total.output_throughput, sum_batch_tps,
      sum_batch_tps > 0 ? 100.0 * total.output_throughput / sum_batch_tps : 0.0);
  return out;
}

}  // namespace tokenbench::report
