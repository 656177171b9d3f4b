#include "tokenbench/report/mix_figures.h"

#include <fmt/format.h>

#include <utility>

#include "tokenbench/metrics/buckets.h"
#include "tokenbench/report/console.h"
#include "tokenbench/report/summary_json.h"

namespace tokenbench::report {
using nlohmann::json;

MixBuilder::MixBuilder(core::RequestMix mix, const metrics::SummaryOptions& options)
    : mix_(std::move(mix)) {
  parts_.reserve(mix_.names.size());
  for (std::size_t i = 0; i < mix_.names.size(); ++i) {
    parts_.emplace_back(options, metrics::kPartExactLimit, metrics::kPartGapExactLimit);
  }
}

void MixBuilder::add(const core::RequestRecord& r) {
  if (r.mix < 0 || static_cast<std::size_t>(r.mix) >= parts_.size()) return;
  parts_[static_cast<std::size_t>(r.mix)].add(r);
}

std::vector<MixMemberFigures> MixBuilder::finish() const {
  std::vector<MixMemberFigures> out;
  out.reserve(parts_.size());
  for (std::size_t i = 0; i < parts_.size(); ++i) {
    out.push_back({mix_.names[i], mix_.shares[i], parts_[i].finish()});
  }
  return out;
}

json mix_to_json(const std::vector<MixMemberFigures>& members, bool lora) {
  std::int64_t measured = 0;
  for (const auto& m : members) measured += m.summary.measured;
  json list = json::array();
  for (const auto& m : members) {
    const metrics::Summary& s = m.summary;
    list.push_back(
        {{"name", m.name},
         {"share", m.share},
         {"measured_share",
          measured > 0 ? json(static_cast<double>(s.measured) / measured) : json(nullptr)},
         {"measured", s.measured},
         {"completed", s.completed},
         {"failed", s.failed},
         {"request_throughput", defined_or_null(s.request_throughput)},
         {"output_throughput", defined_or_null(s.output_throughput)},
         {"mean_ttft_ms", defined_or_null(s.ttft_ms.mean)},
         {"median_ttft_ms", defined_or_null(s.ttft_ms.median)},
         {"p95_ttft_ms", defined_or_null(s.ttft_ms.at(95))},
         {"p99_ttft_ms", defined_or_null(s.ttft_ms.at(99))},
         {"mean_tpot_ms", defined_or_null(s.tpot_ms.mean)},
         {"median_tpot_ms", defined_or_null(s.tpot_ms.median)},
         {"p95_tpot_ms", defined_or_null(s.tpot_ms.at(95))},
         {"mean_e2el_ms", defined_or_null(s.e2el_ms.mean)},
         {"median_e2el_ms", defined_or_null(s.e2el_ms.median)},
         {"p95_e2el_ms", defined_or_null(s.e2el_ms.at(95))},
         {"p99_e2el_ms", defined_or_null(s.e2el_ms.at(99))}});
  }
  return {{"kind", lora ? "lora" : "model"}, {"members", std::move(list)}};
}

std::string render_mix(const std::vector<MixMemberFigures>& members, bool lora) {
  std::vector<std::vector<std::string>> rows;
  rows.reserve(members.size());
  for (const auto& m : members) {
    const metrics::Summary& s = m.summary;
    rows.push_back(
        {m.name, fmt::format("{:.0f}%", 100 * m.share), std::to_string(s.completed),
         std::to_string(s.failed), defined_cell(s.request_throughput, "{:.2f}"),
         defined_cell(s.output_throughput, "{:.1f}"), defined_cell(s.ttft_ms.median, "{:.1f}"),
         defined_cell(s.ttft_ms.at(95), "{:.1f}"), defined_cell(s.tpot_ms.mean, "{:.2f}"),
         defined_cell(s.tpot_ms.at(95), "{:.2f}"), defined_cell(s.e2el_ms.median, "{:.1f}"),
         defined_cell(s.e2el_ms.at(95), "{:.1f}")});
  }
  std::string out = lora ? "\nBy LoRA adapter (--lora-modules):\n" : "\nBy model (--model-mix):\n";
  out += render_grid_table({lora ? "Adapter" : "Model", "Share", "Succeed", "Failed", "Req/s",
                            "Output (tok/s)", "TTFT p50 (ms)", "TTFT p95 (ms)", "TPOT mean (ms)",
                            "TPOT p95 (ms)", "E2EL p50 (ms)", "E2EL p95 (ms)"},
                           rows);
  return out;
}

}  // namespace tokenbench::report
