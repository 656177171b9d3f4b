#include "tokenbench/metrics/buckets.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>
#include <utility>

namespace tokenbench::metrics {
namespace {

constexpr std::int64_t kOpen = std::numeric_limits<std::int64_t>::max();

const char* name_of(BucketDimension d) { return d == BucketDimension::kInput ? "input" : "output"; }

nlohmann::json number(double v) { return is_defined(v) ? nlohmann::json(v) : nlohmann::json(); }

nlohmann::json figures(const Distribution& d) {
  return {{"mean", number(d.mean)},
          {"p50", number(d.at(50))},
          {"p95", number(d.at(95))},
          {"p99", number(d.at(99))}};
}

std::string range_text(const Bucket& b) {
  return b.hi == kOpen ? fmt::format("{}+", b.lo) : fmt::format("{}-{}", b.lo, b.hi - 1);
}

std::string cell(double v) { return is_defined(v) ? fmt::format("{:.2f}", v) : "-"; }

}  // namespace

BucketSpec parse_bucket_spec(const std::string& item) {
  const auto fail = [&item](const std::string& why) {
    throw std::invalid_argument("--buckets '" + item + "': " + why +
                                " (e.g. --buckets input:0,256,1024,4096)");
  };
  const auto colon = item.find(':');
  if (colon == std::string::npos) fail("give input: or output: and the edges");
  BucketSpec spec;
  const std::string dim = item.substr(0, colon);
  if (dim == "input") {
    spec.dimension = BucketDimension::kInput;
  } else if (dim == "output") {
    spec.dimension = BucketDimension::kOutput;
  } else {
    fail("'" + dim + "' is not input or output");
  }
  std::size_t pos = colon + 1;
  while (pos <= item.size()) {
    const auto comma = item.find(',', pos);
    const std::string edge = item.substr(pos, comma == std::string::npos ? comma : comma - pos);
    std::size_t used = 0;
    long long v = -1;
    try {
      v = std::stoll(edge, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (edge.empty() || used != edge.size() || v < 0) {
      fail("edge '" + edge + "' is not a whole number >= 0");
    }
    if (!spec.edges.empty() && v <= spec.edges.back()) fail("edges must ascend");
    spec.edges.push_back(v);
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  return spec;
}

BucketsBuilder::BucketsBuilder(BucketSpec spec, const SummaryOptions& options,
                               std::size_t exact_limit, std::size_t gap_exact_limit)
    : spec_(std::move(spec)) {
  // Below the first edge is a bucket of its own only when the first edge is above 0.
  if (spec_.edges.front() > 0) lows_.push_back(0);
  lows_.insert(lows_.end(), spec_.edges.begin(), spec_.edges.end());
  parts_.reserve(lows_.size());
  for (std::size_t i = 0; i < lows_.size(); ++i) {
    parts_.emplace_back(options, exact_limit, gap_exact_limit);
  }
}

void BucketsBuilder::add(const core::RequestRecord& r) {
  if (r.phase != core::Phase::kMeasure) return;
  const std::int64_t len =
      spec_.dimension == BucketDimension::kInput ? r.prompt_tokens : r.output_tokens;
  // The last bucket whose low edge is at most len; below every edge, none.
  const auto above = std::upper_bound(lows_.begin(), lows_.end(), len);
  if (above == lows_.begin()) return;
  parts_[static_cast<std::size_t>(above - lows_.begin()) - 1].add(r);
}

std::vector<Bucket> BucketsBuilder::finish() const {
  std::vector<Bucket> out;
  for (std::size_t i = 0; i < lows_.size(); ++i) {
    Bucket b;
    b.lo = lows_[i];
    b.hi = i + 1 < lows_.size() ? lows_[i + 1] : kOpen;
    b.summary = parts_[i].finish();
    out.push_back(std::move(b));
  }
  return out;
}

std::vector<Bucket> bucketed(const std::vector<core::RequestRecord>& records,
                             const BucketSpec& spec, const SummaryOptions& options) {
  BucketsBuilder builder(spec, options);
  for (const auto& r : records) builder.add(r);
  return builder.finish();
}

nlohmann::json buckets_to_json(const BucketSpec& spec, const std::vector<Bucket>& buckets) {
  nlohmann::json list = nlohmann::json::array();
  for (const auto& b : buckets) {
    const Summary& s = b.summary;
    list.push_back({{"lo", b.lo},
                    {"hi", b.hi == kOpen ? nlohmann::json() : nlohmann::json(b.hi)},
                    {"measured", s.measured},
                    {"completed", s.completed},
                    {"failed", s.failed},
                    {"mean_input_tokens", number(s.input_tokens.mean)},
                    {"mean_output_tokens", number(s.output_tokens.mean)},
                    {"ttft_ms", figures(s.ttft_ms)},
                    {"tpot_ms", figures(s.tpot_ms)},
                    {"itl_ms", figures(s.itl_ms)},
                    {"e2el_ms", figures(s.e2el_ms)}});
  }
  return {{"dimension", name_of(spec.dimension)}, {"buckets", std::move(list)}};
}

std::string render_buckets(const BucketSpec& spec, const std::vector<Bucket>& buckets) {
  std::string out = fmt::format("\nBy {} length (tokens):\n", name_of(spec.dimension));
  out +=
      fmt::format("  {:>12} {:>6} {:>6} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9}\n", "tokens", "done",
                  "failed", "TTFT p50", "TTFT p95", "TPOT p50", "TPOT p95", "E2EL p50", "E2EL p95");
  for (const auto& b : buckets) {
    const Summary& s = b.summary;
    out += fmt::format("  {:>12} {:>6} {:>6} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9}\n", range_text(b),
                       s.completed, s.failed, cell(s.ttft_ms.at(50)), cell(s.ttft_ms.at(95)),
                       cell(s.tpot_ms.at(50)), cell(s.tpot_ms.at(95)), cell(s.e2el_ms.at(50)),
                       cell(s.e2el_ms.at(95)));
  }
  return out;
}

}  // namespace tokenbench::metrics
