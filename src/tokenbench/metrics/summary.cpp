#include "tokenbench/metrics/summary.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <map>
#include <stdexcept>
#include <utility>

#include "tokenbench/core/text.h"
#include "tokenbench/metrics/request_metrics.h"
#include "tokenbench/metrics/summary_builder.h"

namespace tokenbench::metrics {
namespace {

using core::kNever;
using core::Nanos;
using core::Phase;
using core::RequestRecord;

[[noreturn]] void bad_slo(std::string_view item, std::string_view why) {
  throw std::invalid_argument(fmt::format(
      "bad SLO item '{}': {}; expected KEY:MS with KEY in ttft,tpot,itl,e2el,job (e.g. ttft:200)",
      item, why));
}

std::optional<double>* slo_slot(SloSpec& slo, std::string_view key) {
  if (key == "ttft") return &slo.ttft_ms;
  if (key == "tpot") return &slo.tpot_ms;
  if (key == "itl") return &slo.itl_ms;
  if (key == "e2el") return &slo.e2el_ms;
  if (key == "job") return &slo.job_ms;
  return nullptr;
}

void parse_slo_item(std::string_view item, SloSpec& slo) {
  const auto colon = item.find(':');
  if (colon == std::string_view::npos) bad_slo(item, "missing ':'");
  const std::string_view key = item.substr(0, colon);
  const std::string_view value = item.substr(colon + 1);
  std::optional<double>* slot = slo_slot(slo, key);
  if (slot == nullptr) bad_slo(item, fmt::format("unknown key '{}'", key));
  double ms = 0.0;
  const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), ms);
  if (value.empty() || ec != std::errc() || end != value.data() + value.size()) {
    bad_slo(item, fmt::format("'{}' is not a number of milliseconds", value));
  }
  if (!std::isfinite(ms) || ms < 0.0) bad_slo(item, "the value must be finite and >= 0");
  if (slot->has_value()) bad_slo(item, fmt::format("'{}' is given more than once", key));
  *slot = ms;
}

}  // namespace

SloSpec parse_slo(const std::vector<std::string>& items) {
  SloSpec slo;
  for (const std::string& item : items) {
    std::size_t i = 0;
    bool any = false;
    while (i < item.size()) {
      const auto is_sep = [](char c) {
        return c == ',' || std::isspace(static_cast<unsigned char>(c));
      };
      while (i < item.size() && is_sep(item[i])) ++i;
      std::size_t j = i;
      while (j < item.size() && !is_sep(item[j])) ++j;
      if (j > i) {
        parse_slo_item(std::string_view(item).substr(i, j - i), slo);
        any = true;
      }
      i = j;
    }
    if (!any) bad_slo(item, "empty item");
  }
  return slo;
}

std::string to_string(const SloSpec& slo) {
  std::string out;
  const auto add = [&out](std::string_view key, const std::optional<double>& v) {
    if (!v) return;
    if (!out.empty()) out += ' ';
    out += fmt::format("{}:{}", key, *v);
  };
  add("ttft", slo.ttft_ms);
  add("tpot", slo.tpot_ms);
  add("itl", slo.itl_ms);
  add("e2el", slo.e2el_ms);
  add("job", slo.job_ms);
  return out;
}

bool meets_slo(const RequestRecord& record, const SloSpec& slo) {
  if (!record.ok()) return false;
  if (slo.ttft_ms) {
    const auto v = ttft_ms(record);
    if (!v || *v > *slo.ttft_ms) return false;
  }
  if (slo.tpot_ms) {
    const auto v = tpot_ms(record);
    const bool no_decode = record.output_tokens <= 1;
    if (v ? *v > *slo.tpot_ms : !no_decode) return false;
  }
  if (slo.itl_ms) {
    for (double gap : itl_ms(record)) {
      if (gap > *slo.itl_ms) return false;
    }
  }
  if (slo.e2el_ms) {
    const auto v = e2el_ms(record);
    if (!v || *v > *slo.e2el_ms) return false;
  }
  return true;
}

std::int64_t max_concurrency_observed(const std::vector<RequestRecord>& records) {
  std::vector<Nanos> sends, ends;
  std::int64_t counted = 0;
  for (const RequestRecord& r : records) {
    if (r.phase != Phase::kMeasure) continue;
    if (r.in_flight >= 0) {
      counted = std::max(counted, r.in_flight);
    } else if (r.sent != kNever && r.done != kNever) {
      sends.push_back(r.sent);
      ends.push_back(r.done);
    }
  }
  return std::max(counted, peak_in_flight(std::move(sends), std::move(ends)));
}

Summary summarize(const std::vector<RequestRecord>& records, const SummaryOptions& options) {
  SummaryBuilder builder(options);
  std::size_t chunks = 0;
  for (const RequestRecord& r : records) chunks += r.chunks.size();
  builder.reserve(records.size(), chunks);
  for (const RequestRecord& r : records) builder.add(r);
  return builder.finish();
}

}  // namespace tokenbench::metrics
