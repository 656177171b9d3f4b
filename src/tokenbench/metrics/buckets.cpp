#include "tokenbench/metrics/buckets.h"

#include <fmt/format.h>

#include <stdexcept>

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

std::vector<Bucket> bucketed(const std::vector<core::RequestRecord>& records,
                             const BucketSpec& spec, const SummaryOptions& options) {
  std::vector<Bucket> out;
  std::vector<std::vector<core::RequestRecord>> parts;
  // Below the first edge is a bucket of its own only when the first edge is above 0.
  std::vector<std::int64_t> lows;
  if (spec.edges.front() > 0) lows.push_back(0);
  lows.insert(lows.end(), spec.edges.begin(), spec.edges.end());
  for (std::size_t i = 0; i < lows.size(); ++i) {
    Bucket b;
    b.lo = lows[i];
    b.hi = i + 1 < lows.size() ? lows[i + 1] : kOpen;
    out.push_back(b);
  }
  parts.resize(out.size());
  for (const auto& r : records) {
    if (r.phase != core::Phase::kMeasure) continue;
    const std::int64_t len =
        spec.dimension == BucketDimension::kInput ? r.prompt_tokens : r.output_tokens;
    for (std::size_t i = 0; i < out.size(); ++i) {
      if (len >= out[i].lo && len < out[i].hi) {
        parts[i].push_back(r);
        break;
      }
    }
  }
  for (std::size_t i = 0; i < out.size(); ++i) out[i].summary = summarize(parts[i], options);
  return out;
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
