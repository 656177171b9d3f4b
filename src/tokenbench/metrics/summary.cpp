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

namespace tokenbench::metrics {
namespace {

using core::kNever;
using core::Nanos;
using core::Phase;
using core::RequestRecord;

constexpr std::size_t kMaxErrorExampleChars = 200;

[[noreturn]] void bad_slo(std::string_view item, std::string_view why) {
  throw std::invalid_argument(fmt::format(
      "bad SLO item '{}': {}; expected KEY:MS with KEY in ttft,tpot,itl,e2el (e.g. ttft:200)", item,
      why));
}

std::optional<double>* slo_slot(SloSpec& slo, std::string_view key) {
  if (key == "ttft") return &slo.ttft_ms;
  if (key == "tpot") return &slo.tpot_ms;
  if (key == "itl") return &slo.itl_ms;
  if (key == "e2el") return &slo.e2el_ms;
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

std::vector<double> report_percentiles(const std::vector<double>& requested) {
  std::vector<double> ps = requested;
  ps.insert(ps.end(), kVllmPercentiles.begin(), kVllmPercentiles.end());
  for (double p : ps) {
    if (!(p >= 0.0 && p <= 100.0)) {
      throw std::invalid_argument(fmt::format("percentile {} is outside [0, 100]", p));
    }
  }
  std::sort(ps.begin(), ps.end());
  ps.erase(std::unique(ps.begin(), ps.end()), ps.end());
  return ps;
}

// Every sample that summarize pools, one vector per distribution.
struct Samples {
  std::vector<double> ttft, ttfr, ttfa, tpot, itl, itl_per_token, e2el, decode_tps, output_tps,
      total_tps, queue, ttft_from_intended, e2el_from_intended;
  std::vector<double> input_tokens, output_tokens;
};

void add_successful(const RequestRecord& r, Samples& s) {
  const RequestMetrics m = derive_request_metrics(r);
  if (m.ttft_ms) s.ttft.push_back(*m.ttft_ms);
  if (const auto v = ttfr_ms(r)) s.ttfr.push_back(*v);
  if (const auto v = ttfa_ms(r)) s.ttfa.push_back(*v);
  if (m.tpot_ms) s.tpot.push_back(*m.tpot_ms);
  if (m.e2el_ms) s.e2el.push_back(*m.e2el_ms);
  if (m.decode_tps) s.decode_tps.push_back(*m.decode_tps);
  if (m.output_tps) s.output_tps.push_back(*m.output_tps);
  if (m.total_tps) s.total_tps.push_back(*m.total_tps);
  if (m.ttft_from_intended_ms) s.ttft_from_intended.push_back(*m.ttft_from_intended_ms);
  if (m.e2el_from_intended_ms) s.e2el_from_intended.push_back(*m.e2el_from_intended_ms);
  s.itl.insert(s.itl.end(), m.itl_ms.begin(), m.itl_ms.end());
  s.itl_per_token.insert(s.itl_per_token.end(), m.itl_per_token_ms.begin(),
                         m.itl_per_token_ms.end());
  s.input_tokens.push_back(static_cast<double>(r.prompt_tokens));
  s.output_tokens.push_back(static_cast<double>(r.output_tokens));
}

// Measure phase: from the earliest scheduled (or, lacking it, sent) stamp to the latest transfer
// end (or, lacking it, last content chunk).
double measure_duration_s(const std::vector<RequestRecord>& records) {
  Nanos start = kNever;
  Nanos end = kNever;
  for (const RequestRecord& r : records) {
    if (r.phase != Phase::kMeasure) continue;
    const Nanos s = r.scheduled != kNever ? r.scheduled : r.sent;
    const Nanos e = r.done != kNever ? r.done : r.last_token;
    if (s != kNever && (start == kNever || s < start)) start = s;
    if (e != kNever && (end == kNever || e > end)) end = e;
  }
  if (start == kNever || end == kNever || end <= start) return kUndefined;
  return core::to_seconds(end - start);
}

double per_second(double amount, double duration_s) {
  return is_defined(duration_s) ? amount / duration_s : kUndefined;
}

void add_warnings(const Summary& s, std::int64_t chunk_counted, std::vector<std::string>& out) {
  if (s.canceled > 0) {
    out.push_back(fmt::format(
        "{} requests were in flight when the run was stopped: recorded as canceled, outside the "
        "error rate and every figure",
        s.canceled));
  }
  if (s.measured == 0) {
    out.emplace_back("no measured requests");
    return;
  }
  if (s.completed == 0) out.emplace_back("no successful requests");
  if (s.failed > 0) {
    out.push_back(fmt::format("{} of {} measured requests failed", s.failed, s.measured));
  }
  if (s.completed > 0 && s.streamed == 0) {
    out.emplace_back(
        "TTFT undefined: non-streaming run (TTFT, TPOT, ITL and per-request output "
        "tok/s need --stream)");
  } else if (s.non_streamed > 0) {
    out.push_back(fmt::format(
        "TTFT undefined for {} non-streamed requests; they are left out of TTFT, TPOT and ITL",
        s.non_streamed));
  }
  if (s.nonstream_sample > 0) {
    out.push_back(fmt::format(
        "{} requests of --nonstream-sample were sent non-streamed: they count in completed and "
        "throughputs, not in any latency distribution (Checks compares their E2EL)",
        s.nonstream_sample));
  }
  // Not from a run of failures alone: a request refused at once says nothing of the client.
  const double p99_queue = s.queue_time_ms.at(99);
  if (s.completed > 0 && is_defined(p99_queue) && p99_queue > kClientLagWarnMs) {
    out.push_back(fmt::format(
        "client lag: p99 queue time {:.2f} ms exceeds {:.0f} ms; the client machine may be "
        "saturated and figures may be inflated",
        p99_queue, kClientLagWarnMs));
  }
  // Bursts: a median gap far below the median time per token means chunks arrive several at a
  // time (a buffering proxy, or a server that batches its sends); ITL then measures bursts.
  const double itl50 = s.itl_ms.at(50);
  const double tpot50 = s.tpot_ms.at(50);
  if (is_defined(itl50) && is_defined(tpot50) && tpot50 > 0 && itl50 < kBurstItlShare * tpot50) {
    out.push_back(fmt::format(
        "ITL p50 {:.4f} ms is far below TPOT p50 {:.4f} ms: tokens arrive in bursts, several "
        "chunks per read, so ITL measures the gaps between bursts; TPOT is the per-token pace",
        itl50, tpot50));
  }
  if (chunk_counted > 0) {
    out.push_back(fmt::format(
        "output tokens of {} requests were counted from chunks (no usage, no tokenizer); a chunk "
        "may carry several tokens, so counts and token rates may be low",
        chunk_counted));
  }
  if (!is_defined(s.duration_s)) {
    out.emplace_back("measure-phase duration undefined (missing stamps); throughputs undefined");
  }
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
  // +1 at send, -1 at transfer end; ends sort before starts at the same instant.
  std::vector<std::pair<Nanos, int>> events;
  for (const RequestRecord& r : records) {
    if (r.phase != Phase::kMeasure || r.sent == kNever || r.done == kNever) continue;
    events.emplace_back(r.sent, +1);
    events.emplace_back(r.done, -1);
  }
  std::sort(events.begin(), events.end());
  std::int64_t in_flight = 0;
  std::int64_t peak = 0;
  for (const auto& [t, delta] : events) {
    in_flight += delta;
    peak = std::max(peak, in_flight);
  }
  return peak;
}

// The figures by turn index of the successful measured requests of sessions.
void add_turn_figures(const std::vector<RequestRecord>& records, const std::vector<double>& ps,
                      Summary& s) {
  struct Pool {
    std::vector<double> ttft, e2el;
    double input = 0;
    std::int64_t completed = 0;
  };
  std::map<std::int32_t, Pool> pools;
  std::vector<std::int64_t> sessions;
  for (const RequestRecord& r : records) {
    if (r.phase != Phase::kMeasure || r.retried || r.session < 0) continue;
    sessions.push_back(r.session);
    if (!r.ok() || r.nonstream_sample) continue;
    Pool& pool = pools[r.turn];
    ++pool.completed;
    pool.input += static_cast<double>(r.prompt_tokens);
    if (const auto v = ttft_ms(r)) pool.ttft.push_back(*v);
    if (const auto v = e2el_ms(r)) pool.e2el.push_back(*v);
  }
  std::sort(sessions.begin(), sessions.end());
  s.sessions = std::unique(sessions.begin(), sessions.end()) - sessions.begin();
  for (auto& [turn, pool] : pools) {
    TurnFigures f;
    f.turn = turn;
    f.completed = pool.completed;
    f.ttft_ms = make_distribution(std::move(pool.ttft), ps);
    f.e2el_ms = make_distribution(std::move(pool.e2el), ps);
    f.mean_input_tokens = pool.input / static_cast<double>(pool.completed);
    s.by_turn.push_back(std::move(f));
  }
}

Summary summarize(const std::vector<RequestRecord>& records, const SummaryOptions& options) {
  Summary s;
  s.slo = options.slo;
  s.percentiles = report_percentiles(options.percentiles);

  Samples samples;
  // ITL has a sample per chunk gap: room for all of them at once, not a copy per doubling.
  std::size_t chunk_total = 0;
  for (const RequestRecord& r : records) chunk_total += r.chunks.size();
  samples.itl.reserve(chunk_total);
  samples.itl_per_token.reserve(chunk_total);
  std::int64_t chunk_counted = 0;
  for (const RequestRecord& r : records) {
    if (r.phase == Phase::kWarmup) {
      ++s.warmup;
      continue;
    }
    if (r.phase == Phase::kCooldown) {
      ++s.cooldown;
      continue;
    }
    if (r.phase == Phase::kDropped) {
      ++s.dropped;
      continue;
    }
    if (r.retried) {
      // An attempt replaced by a retry: the request is counted once, by its last attempt.
      ++s.retried_attempts;
      ++s.retried_by_class[std::string(core::to_string(r.error))];
      continue;
    }
    if (r.error == core::ErrorClass::kCanceled) {
      ++s.canceled;  // the client stopped it: says nothing of the server
      continue;
    }
    ++s.measured;
    if (const auto q = queue_time_ms(r)) samples.queue.push_back(*q);
    if (!r.ok()) {
      ++s.failed;
      const std::string cls(core::to_string(r.error));
      ++s.errors[cls];
      if (r.http_status != 0) ++s.http_status[r.http_status];
      if (!r.error_message.empty() && !s.error_examples.contains(cls)) {
        s.error_examples[cls] =
            std::string(core::utf8_prefix(r.error_message, kMaxErrorExampleChars));
      }
      continue;
    }
    ++s.completed;
    if (r.attempt > 0) ++s.completed_after_retry;
    s.total_input_tokens += r.prompt_tokens;
    s.total_output_tokens += r.output_tokens;
    s.total_inputs += r.embeddings;
    if (r.first_reasoning != kNever) ++s.reasoning_requests;
    if (r.reasoning_tokens >= 0) {
      s.total_reasoning_tokens += r.reasoning_tokens;
      ++s.reasoning_tokens_reported;
    }
    ++s.prompt_sources[std::string(core::to_string(r.prompt_source))];
    ++s.output_sources[std::string(core::to_string(r.output_source))];
    if (r.output_source == core::TokenSource::kChunks) ++chunk_counted;
    if (r.nonstream_sample) {
      // Served under the same load, so counted in throughput; but a whole reply has no TTFT and
      // its E2EL is another measurement: the stream check compares them, no distribution mixes.
      ++s.nonstream_sample;
      continue;
    }
    ++(r.streamed ? s.streamed : s.non_streamed);
    if (!s.slo.empty() && meets_slo(r, s.slo)) ++s.good_completed;
    add_successful(r, samples);
  }

  s.duration_s = measure_duration_s(records);
  s.request_throughput = per_second(static_cast<double>(s.completed), s.duration_s);
  s.output_throughput = per_second(static_cast<double>(s.total_output_tokens), s.duration_s);
  s.total_token_throughput =
      per_second(static_cast<double>(s.total_input_tokens + s.total_output_tokens), s.duration_s);
  if (s.total_inputs > 0) {
    s.input_throughput = per_second(static_cast<double>(s.total_inputs), s.duration_s);
    s.input_token_throughput = per_second(static_cast<double>(s.total_input_tokens), s.duration_s);
  }
  if (!s.slo.empty()) {
    s.request_goodput = per_second(static_cast<double>(s.good_completed), s.duration_s);
  }

  std::vector<double> ps = s.percentiles;
  ps.insert(ps.end(), kConsolePercentiles.begin(), kConsolePercentiles.end());
  s.ttft_ms = make_distribution(std::move(samples.ttft), ps);
  if (s.reasoning_requests > 0) {  // else TTFA is TTFT, and TTFR undefined
    s.ttfr_ms = make_distribution(std::move(samples.ttfr), ps);
    s.ttfa_ms = make_distribution(std::move(samples.ttfa), ps);
  }
  s.tpot_ms = make_distribution(std::move(samples.tpot), ps);
  s.itl_ms = make_distribution(std::move(samples.itl), ps);
  s.itl_per_token_ms = make_distribution(std::move(samples.itl_per_token), ps);
  s.e2el_ms = make_distribution(std::move(samples.e2el), ps);
  s.decode_tps = make_distribution(std::move(samples.decode_tps), ps);
  s.output_tps = make_distribution(std::move(samples.output_tps), ps);
  s.total_tps = make_distribution(std::move(samples.total_tps), ps);
  s.queue_time_ms = make_distribution(std::move(samples.queue), ps);
  s.ttft_from_intended_ms = make_distribution(std::move(samples.ttft_from_intended), ps);
  s.e2el_from_intended_ms = make_distribution(std::move(samples.e2el_from_intended), ps);
  s.input_tokens = make_distribution(std::move(samples.input_tokens), ps);
  s.output_tokens = make_distribution(std::move(samples.output_tokens), ps);

  add_turn_figures(records, ps, s);
  s.max_concurrency_observed = max_concurrency_observed(records);
  add_warnings(s, chunk_counted, s.warnings);
  return s;
}

}  // namespace tokenbench::metrics
