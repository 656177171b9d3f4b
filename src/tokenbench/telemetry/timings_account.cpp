#include "tokenbench/telemetry/timings_account.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>

#include "tokenbench/metrics/request_metrics.h"

namespace tokenbench::telemetry {
namespace {

using nlohmann::json;

constexpr std::array<double, 2> kPercentiles{50, 95};

TimingStat stat_of(const metrics::StreamingDistribution& values) {
  const metrics::Distribution d = metrics::make_distribution(values, kPercentiles);
  return TimingStat{d.count, d.mean, d.at(50), d.at(95)};
}

json number(double v) { return metrics::is_defined(v) ? json(v) : json(nullptr); }

json stat_json(const TimingStat& s) {
  return json{{"count", s.count},
              {"mean_ms", number(s.mean_ms)},
              {"p50_ms", number(s.p50_ms)},
              {"p95_ms", number(s.p95_ms)}};
}

std::string ms(double v) { return metrics::is_defined(v) ? fmt::format("{:.2f}", v) : "-"; }

}  // namespace

std::string_view ttft_share_reading(double share) {
  if (share < 0.1) return "TTFT is the engine's own";
  if (share < 0.3) return "a visible share of TTFT is outside the engine";
  return "most of TTFT is spent outside the engine (HTTP server, tokenization, network or client)";
}

TimingsBuilder::TimingsBuilder(std::size_t exact_limit)
    : prefill_(exact_limit), decode_(exact_limit), remainder_(exact_limit) {}

void TimingsBuilder::add(const core::RequestRecord& r) {
  if (r.phase != core::Phase::kMeasure || r.retried || !r.ok() || r.nonstream_sample ||
      !r.server_timings) {
    return;
  }
  const core::ServerTimings& t = *r.server_timings;
  ++requests_;
  prompt_tokens_ += t.prompt_n;
  cached_tokens_ += t.cache_n;
  prefill_.add(t.prompt_ms);
  // Per token after the first, as TPOT: the first token ends the prompt's processing.
  decode_.add(t.predicted_ms / static_cast<double>(std::max<std::int64_t>(t.predicted_n - 1, 1)));
  if (const auto ttft = metrics::ttft_ms(r)) {
    client_ttft_sum_ += *ttft;
    ++client_ttft_count_;
    remainder_.add(*ttft - t.prompt_ms);
  }
}

std::optional<TimingsAccount> TimingsBuilder::finish() const {
  if (requests_ == 0) return std::nullopt;
  TimingsAccount a;
  a.requests = requests_;
  a.prompt_tokens = prompt_tokens_;
  a.cached_tokens = cached_tokens_;
  a.prefill = stat_of(prefill_);
  a.decode_per_token = stat_of(decode_);
  a.ttft_remainder = stat_of(remainder_);
  a.client_ttft_mean_ms = client_ttft_count_ > 0
                              ? client_ttft_sum_ / static_cast<double>(client_ttft_count_)
                              : metrics::kUndefined;
  if (metrics::is_defined(a.ttft_remainder.mean_ms) && a.client_ttft_mean_ms > 0) {
    a.remainder_share = a.ttft_remainder.mean_ms / a.client_ttft_mean_ms;
    a.reading = ttft_share_reading(a.remainder_share);
  }
  return a;
}

std::optional<TimingsAccount> timings_account(const std::vector<core::RequestRecord>& records) {
  TimingsBuilder builder;
  for (const auto& r : records) builder.add(r);
  return builder.finish();
}

json timings_account_to_json(const TimingsAccount& a) {
  return json{{"source", "timings"},
              {"requests", a.requests},
              {"prompt_tokens", a.prompt_tokens},
              {"cached_prompt_tokens", a.cached_tokens},
              {"prefill", stat_json(a.prefill)},
              {"decode_per_token", stat_json(a.decode_per_token)},
              {"ttft_remainder", stat_json(a.ttft_remainder)},
              {"client_ttft_mean_ms", number(a.client_ttft_mean_ms)},
              {"remainder_share", number(a.remainder_share)},
              {"reading", a.reading.empty() ? json(nullptr) : json(a.reading)}};
}

std::string render_timings_account(const TimingsAccount& a) {
  std::string out = fmt::format(
      "\nServer timings (source: timings, the server's own per-request account; {} requests, {} "
      "of {} prompt tokens from its cache):\n",
      a.requests, a.cached_tokens, a.cached_tokens + a.prompt_tokens);
  out += fmt::format("  {:<26}{:>10}{:>10}{:>10}{:>10}\n", "per request (ms)", "count", "mean",
                     "p50", "p95");
  const std::pair<const char*, const TimingStat*> rows[] = {
      {"prefill (prompt_ms)", &a.prefill},
      {"decode per token", &a.decode_per_token},
      {"TTFT - prefill", &a.ttft_remainder}};
  for (const auto& [name, s] : rows) {
    out += fmt::format("  {:<26}{:>10}{:>10}{:>10}{:>10}\n", name, s->count, ms(s->mean_ms),
                       ms(s->p50_ms), ms(s->p95_ms));
  }
  if (!a.reading.empty()) {
    out += fmt::format(
        "  TTFT {:.2f} ms = server prefill {:.2f} + queue, network, framework and client {:.2f} "
        "ms ({:.0f}%): {}\n",
        a.client_ttft_mean_ms, a.client_ttft_mean_ms - a.ttft_remainder.mean_ms,
        a.ttft_remainder.mean_ms, a.remainder_share * 100, a.reading);
  }
  return out;
}

}  // namespace tokenbench::telemetry
