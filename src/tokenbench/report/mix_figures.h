#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tokenbench/core/request.h"
#include "tokenbench/core/request_mix.h"
#include "tokenbench/metrics/summary.h"
#include "tokenbench/metrics/summary_builder.h"

namespace tokenbench::report {

/// The figures of one member of a run's mix (a LoRA adapter of --lora-modules, a model of
/// --model-mix): the requests that named it, summarised as a run's are.
struct MixMemberFigures {
  std::string name;
  double share = 0;  ///< its intended share of the requests (--lora-weights, --model-mix)
  metrics::Summary summary;
};

/// Splits records by RequestRecord::mix and summarises each member, fed one record at a time
/// without keeping them: a SummaryBuilder per member (metrics::kPartExactLimit). Not
/// thread-safe.
class MixBuilder {
 public:
  MixBuilder(core::RequestMix mix, const metrics::SummaryOptions& options);
  void add(const core::RequestRecord& record);
  std::vector<MixMemberFigures> finish() const;
  bool lora() const { return mix_.lora; }

 private:
  core::RequestMix mix_;
  std::vector<metrics::SummaryBuilder> parts_;
};

/// summary.json's `tokenbench.mix`: {"kind": "lora" | "model", "members": [...]}, each member's
/// name, share, measured share and the figures per target.
nlohmann::json mix_to_json(const std::vector<MixMemberFigures>& members, bool lora);

/// The console table: one row per member.
std::string render_mix(const std::vector<MixMemberFigures>& members, bool lora);

}  // namespace tokenbench::report
