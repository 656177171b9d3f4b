#include "tokenbench/metrics/stream_check.h"

#include <fmt/format.h>

#include <array>
#include <cmath>

#include "tokenbench/metrics/request_metrics.h"

namespace tokenbench::metrics {
namespace {

using nlohmann::json;

constexpr std::array<double, 2> kPercentiles{50, 95};

StreamSide side_of(const StreamingDistribution& e2el, const StreamingDistribution& per_token) {
  StreamSide s;
  s.count = static_cast<std::int64_t>(e2el.count());
  const Distribution e = make_distribution(e2el, kPercentiles);
  const Distribution p = make_distribution(per_token, kPercentiles);
  s.e2el_mean_ms = e.mean;
  s.e2el_p50_ms = e.at(50);
  s.e2el_p95_ms = e.at(95);
  s.per_token_mean_ms = p.mean;
  s.per_token_p50_ms = p.at(50);
  s.per_token_p95_ms = p.at(95);
  return s;
}

double ratio(double a, double b) {
  return is_defined(a) && is_defined(b) && b > 0 ? a / b : kUndefined;
}

json number(double v) { return is_defined(v) ? json(v) : json(nullptr); }

json side_json(const StreamSide& s) {
  return json{{"count", s.count},
              {"e2el_mean_ms", number(s.e2el_mean_ms)},
              {"e2el_p50_ms", number(s.e2el_p50_ms)},
              {"e2el_p95_ms", number(s.e2el_p95_ms)},
              {"per_token_mean_ms", number(s.per_token_mean_ms)},
              {"per_token_p50_ms", number(s.per_token_p50_ms)},
              {"per_token_p95_ms", number(s.per_token_p95_ms)}};
}

std::string ms(double v) { return is_defined(v) ? fmt::format("{:.2f}", v) : "-"; }

}  // namespace

StreamCheckBuilder::StreamCheckBuilder(std::size_t exact_limit)
    : e2el_{StreamingDistribution(exact_limit), StreamingDistribution(exact_limit)},
      per_token_{StreamingDistribution(exact_limit), StreamingDistribution(exact_limit)} {}

void StreamCheckBuilder::add(const core::RequestRecord& r) {
  if (r.phase != core::Phase::kMeasure || r.retried) return;
  sampled_ = sampled_ || r.nonstream_sample;
  if (!r.ok()) return;
  const auto latency = e2el_ms(r);
  if (!latency) return;
  const int side = r.nonstream_sample ? 1 : 0;
  e2el_[side].add(*latency);
  if (r.output_tokens > 0) per_token_[side].add(*latency / static_cast<double>(r.output_tokens));
}

std::optional<StreamCheck> stream_check(const std::vector<core::RequestRecord>& records) {
  StreamCheckBuilder builder;
  for (const auto& r : records) builder.add(r);
  return builder.finish();
}

std::optional<StreamCheck> StreamCheckBuilder::finish() const {
  if (!sampled_) return std::nullopt;
  StreamCheck c;
  c.streamed = side_of(e2el_[0], per_token_[0]);
  c.non_streamed = side_of(e2el_[1], per_token_[1]);
  c.e2el_p50_ratio = ratio(c.non_streamed.e2el_p50_ms, c.streamed.e2el_p50_ms);
  c.per_token_p50_ratio = ratio(c.non_streamed.per_token_p50_ms, c.streamed.per_token_p50_ms);
  if (c.streamed.count < kStreamCheckMinCount || c.non_streamed.count < kStreamCheckMinCount ||
      !is_defined(c.per_token_p50_ratio)) {
    c.reading =
        fmt::format("too few requests to compare ({} streamed, {} non-streamed; {} each needed)",
                    c.streamed.count, c.non_streamed.count, kStreamCheckMinCount);
    return c;
  }
  const double e2el_gap = std::abs(c.non_streamed.e2el_p50_ms - c.streamed.e2el_p50_ms);
  c.flagged =
      std::abs(c.per_token_p50_ratio - 1) > kStreamCheckShare && e2el_gap > kStreamCheckMinMs;
  if (!c.flagged) {
    c.reading = "agree: streaming adds no cost of its own";
  } else if (c.per_token_p50_ratio < 1) {
    c.reading =
        "streamed requests are slower per token than whole replies: the stream's handling costs "
        "time (the server's per-chunk work, a proxy merging or holding chunks, or the client's "
        "parsing)";
  } else {
    c.reading =
        "whole replies are slower per token than streamed ones: the server or a proxy handles "
        "non-streamed replies differently (buffering, another route); the streamed figures may "
        "not describe them";
  }
  return c;
}

json stream_check_to_json(const StreamCheck& c) {
  return json{{"streamed", side_json(c.streamed)},
              {"non_streamed", side_json(c.non_streamed)},
              {"e2el_p50_ratio", number(c.e2el_p50_ratio)},
              {"per_token_p50_ratio", number(c.per_token_p50_ratio)},
              {"threshold", {{"share", kStreamCheckShare}, {"min_ms", kStreamCheckMinMs}}},
              {"flagged", c.flagged},
              {"reading", c.reading}};
}

std::string render_stream_check(const StreamCheck& c) {
  return fmt::format(
      "  stream vs non-stream: E2EL p50 {} ms streamed ({}), {} ms non-streamed ({}); per token "
      "{} vs {} ms ({}x): {}\n",
      ms(c.streamed.e2el_p50_ms), c.streamed.count, ms(c.non_streamed.e2el_p50_ms),
      c.non_streamed.count, ms(c.streamed.per_token_p50_ms), ms(c.non_streamed.per_token_p50_ms),
      is_defined(c.per_token_p50_ratio) ? fmt::format("{:.2f}", c.per_token_p50_ratio) : "-",
      c.reading);
}

}  // namespace tokenbench::metrics
