#include "tokenbench/metrics/summary_builder.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>
#include <string>

#include "tokenbench/core/text.h"
#include "tokenbench/metrics/request_metrics.h"

namespace tokenbench::metrics {
namespace {

using core::kNever;
using core::Nanos;
using core::Phase;
using core::RequestRecord;

constexpr std::size_t kMaxErrorExampleChars = 200;

// The requested percentiles with kVllmPercentiles, checked, ascending and unique.
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

std::vector<double> with_console(std::vector<double> ps) {
  ps.insert(ps.end(), kConsolePercentiles.begin(), kConsolePercentiles.end());
  return ps;
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
// Says which figures passed the exact limit: their percentiles are a sketch's.
void add_sketch_warning(Summary& s) {
  std::string names;
  double bound = 0;
  for (const auto& [name, d] : {std::pair{"TTFT", &s.ttft_ms},
                                {"TPOT", &s.tpot_ms},
                                {"ITL", &s.itl_ms},
                                {"E2EL", &s.e2el_ms},
                                {"queue time", &s.queue_time_ms},
                                {"decode rate", &s.decode_tps},
                                {"output tok/s", &s.output_tps}}) {
    if (d->relative_error <= 0) continue;
    bound = d->relative_error;
    names += names.empty() ? name : std::string(", ") + name;
  }
  if (names.empty()) return;
  s.warnings.push_back(fmt::format(
      "percentiles of {} are from a quantile sketch, each within {:g} % of the exact value (past "
      "{} values a figure, {} for ITL; counts, means, min and max stay exact)",
      names, bound * 100, kDefaultExactLimit, kDefaultGapExactLimit));
}

}  // namespace

std::int64_t peak_in_flight(std::vector<Nanos> starts, std::vector<Nanos> ends) {
  std::sort(starts.begin(), starts.end());
  std::sort(ends.begin(), ends.end());
  std::int64_t peak = 0;
  sweep_in_flight(starts, ends,
                  [&peak](Nanos, std::int64_t level) { peak = std::max(peak, level); });
  return peak;
}

SummaryBuilder::Figures::Figures(std::size_t limit, std::size_t gap_limit)
    : ttft(limit),
      ttfr(limit),
      ttfa(limit),
      tpot(limit),
      itl(gap_limit),
      itl_per_token(gap_limit),
      tokens_per_chunk(gap_limit),
      e2el(limit),
      decode_tps(limit),
      output_tps(limit),
      total_tps(limit),
      queue(limit),
      ttft_from_intended(limit),
      e2el_from_intended(limit),
      input_tokens(limit),
      output_tokens(limit) {}

SummaryBuilder::SummaryBuilder(const SummaryOptions& options, std::size_t exact_limit,
                               std::size_t gap_exact_limit)
    : exact_limit_(exact_limit),
      percentiles_(with_console(report_percentiles(options.percentiles))),
      figures_(exact_limit, gap_exact_limit),
      jobs_(percentiles_, exact_limit, options.slo.job_ms) {
  counts_.slo = options.slo;
  counts_.percentiles = report_percentiles(options.percentiles);
}

void SummaryBuilder::reserve(std::size_t records, std::size_t chunks) {
  for (StreamingDistribution* d :
       {&figures_.ttft, &figures_.tpot, &figures_.e2el, &figures_.output_tps, &figures_.total_tps,
        &figures_.queue, &figures_.input_tokens, &figures_.output_tokens}) {
    d->reserve(records);
  }
  figures_.itl.reserve(chunks);
  figures_.itl_per_token.reserve(chunks);
  sends_.reserve(records);
  ends_.reserve(records);
}

void SummaryBuilder::add(const RequestRecord& r) {
  jobs_.add(r);
  peaks_.add(r);
  Summary& s = counts_;
  switch (r.phase) {
    case Phase::kWarmup:
      ++s.warmup;
      return;
    case Phase::kCooldown:
      ++s.cooldown;
      return;
    case Phase::kDropped:
      ++s.dropped;
      return;
    case Phase::kMeasure:
      break;
  }
  if (r.in_flight >= 0) {
    peak_counted_ = std::max(peak_counted_, r.in_flight);  // the engine's count at its send
  } else if (r.sent != kNever && r.done != kNever) {
    sends_.push_back(r.sent);  // a record without it: the sweep over stamps
    ends_.push_back(r.done);
  }
  // Measure phase: from the earliest scheduled (or, lacking it, sent) stamp to the latest
  // transfer end (or, lacking it, last content chunk).
  const Nanos from = r.scheduled != kNever ? r.scheduled : r.sent;
  const Nanos to = r.done != kNever ? r.done : r.last_token;
  if (from != kNever && (start_ == kNever || from < start_)) start_ = from;
  if (to != kNever && (end_ == kNever || to > end_)) end_ = to;
  add_to_turn(r);
  if (r.retried) {
    // An attempt replaced by a retry: the request is counted once, by its last attempt.
    ++s.retried_attempts;
    ++s.retried_by_class[std::string(core::to_string(r.error))];
    return;
  }
  if (r.error == core::ErrorClass::kCanceled) {
    ++s.canceled;  // the client stopped it: says nothing of the server
    return;
  }
  add_measured(r);
}

void SummaryBuilder::add_measured(const RequestRecord& r) {
  Summary& s = counts_;
  ++s.measured;
  if (const auto q = queue_time_ms(r)) figures_.queue.add(*q);
  if (!r.ok()) {
    ++s.failed;
    const std::string cls(core::to_string(r.error));
    ++s.errors[cls];
    if (r.http_status != 0) ++s.http_status[r.http_status];
    if (!r.error_message.empty() && !s.error_examples.contains(cls)) {
      s.error_examples[cls] =
          std::string(core::utf8_prefix(r.error_message, kMaxErrorExampleChars));
    }
    return;
  }
  ++s.completed;
  if (r.attempt > 0) ++s.completed_after_retry;
  s.total_input_tokens += r.prompt_tokens;
  s.total_output_tokens += r.output_tokens;
  s.cache.add(r);
  s.total_inputs += r.embeddings;
  if (r.first_reasoning != kNever) ++s.reasoning_requests;
  if (r.reasoning_tokens >= 0) {
    s.total_reasoning_tokens += r.reasoning_tokens;
    ++s.reasoning_tokens_reported;
  }
  ++s.prompt_sources[std::string(core::to_string(r.prompt_source))];
  ++s.output_sources[std::string(core::to_string(r.output_source))];
  if (r.output_source == core::TokenSource::kChunks) ++chunk_counted_;
  if (r.nonstream_sample) {
    // Served under the same load, so counted in throughput; but a whole reply has no TTFT and
    // its E2EL is another measurement: the stream check compares them, no distribution mixes.
    ++s.nonstream_sample;
    return;
  }
  ++(r.streamed ? s.streamed : s.non_streamed);
  if (!s.slo.empty() && meets_slo(r, s.slo)) ++s.good_completed;
  add_successful(r);
}

void SummaryBuilder::add_successful(const RequestRecord& r) {
  Figures& f = figures_;
  // derive_request_metrics' figures, without its lists of gaps (made below, with no copy).
  if (const auto v = ttft_ms(r)) f.ttft.add(*v);
  if (const auto v = ttfr_ms(r)) f.ttfr.add(*v);
  if (const auto v = ttfa_ms(r)) f.ttfa.add(*v);
  if (const auto v = tpot_ms(r)) f.tpot.add(*v);
  if (const auto v = e2el_ms(r)) f.e2el.add(*v);
  if (const auto v = decode_tps(r)) f.decode_tps.add(*v);
  if (const auto v = output_tps(r)) f.output_tps.add(*v);
  if (const auto v = total_tps(r)) f.total_tps.add(*v);
  if (const auto v = ttft_from_intended_ms(r)) f.ttft_from_intended.add(*v);
  if (const auto v = e2el_from_intended_ms(r)) f.e2el_from_intended.add(*v);
  // Each gap once; per token, a chunk of k tokens counts its gap / k k times (as
  // itl_per_token_ms lists it), in one step.
  for_each_gap(r, [&f](double gap, int tokens) {
    f.itl.add(gap);
    f.itl_per_token.add(gap / tokens, static_cast<std::uint64_t>(tokens));
  });
  // Every content chunk's tokens, the first included (one value per chunk, pooled).
  if (r.streamed) {
    for (const core::ChunkStamp& c : r.chunks) f.tokens_per_chunk.add(c.tokens);
    if (r.chunk_usage) ++f.chunk_usage_requests;
  }
  f.input_tokens.add(static_cast<double>(r.prompt_tokens));
  f.output_tokens.add(static_cast<double>(r.output_tokens));
}

// The figures by turn index of the successful measured requests of sessions.
void SummaryBuilder::add_to_turn(const RequestRecord& r) {
  if (r.retried || r.session < 0) return;
  sessions_.insert(r.session);
  if (!r.ok() || r.nonstream_sample) return;
  Turn& turn = turns_.try_emplace(r.turn, exact_limit_).first->second;
  ++turn.completed;
  turn.input += static_cast<double>(r.prompt_tokens);
  turn.cache.add(r);
  if (const auto v = ttft_ms(r)) turn.ttft.add(*v);
  if (const auto v = e2el_ms(r)) turn.e2el.add(*v);
}

void SummaryBuilder::add_distributions(Summary& s) const {
  const Figures& f = figures_;
  const auto& ps = percentiles_;
  s.ttft_ms = make_distribution(f.ttft, ps);
  if (s.reasoning_requests > 0) {  // else TTFA is TTFT, and TTFR undefined
    s.ttfr_ms = make_distribution(f.ttfr, ps);
    s.ttfa_ms = make_distribution(f.ttfa, ps);
  }
  s.tpot_ms = make_distribution(f.tpot, ps);
  s.itl_ms = make_distribution(f.itl, ps);
  s.itl_per_token_ms = make_distribution(f.itl_per_token, ps);
  s.tokens_per_chunk = make_distribution(f.tokens_per_chunk, ps);
  s.chunk_usage_requests = f.chunk_usage_requests;
  s.e2el_ms = make_distribution(f.e2el, ps);
  s.decode_tps = make_distribution(f.decode_tps, ps);
  s.output_tps = make_distribution(f.output_tps, ps);
  s.total_tps = make_distribution(f.total_tps, ps);
  s.queue_time_ms = make_distribution(f.queue, ps);
  s.ttft_from_intended_ms = make_distribution(f.ttft_from_intended, ps);
  s.e2el_from_intended_ms = make_distribution(f.e2el_from_intended, ps);
  s.input_tokens = make_distribution(f.input_tokens, ps);
  s.output_tokens = make_distribution(f.output_tokens, ps);
  s.sessions = static_cast<std::int64_t>(sessions_.size());
  for (const auto& [index, turn] : turns_) {
    TurnFigures t;
    t.turn = index;
    t.completed = turn.completed;
    t.ttft_ms = make_distribution(turn.ttft, ps);
    t.e2el_ms = make_distribution(turn.e2el, ps);
    t.mean_input_tokens = turn.input / static_cast<double>(turn.completed);
    t.cache = turn.cache;
    s.by_turn.push_back(std::move(t));
  }
}

Summary SummaryBuilder::finish() const {
  Summary s = counts_;
  s.duration_s = start_ == kNever || end_ == kNever || end_ <= start_
                     ? kUndefined
                     : core::to_seconds(end_ - start_);
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
  add_distributions(s);
  s.jobs = jobs_.finish(s.duration_s);
  s.max_concurrency_observed = std::max(peak_counted_, peak_in_flight(sends_, ends_));
  s.vllm_peaks = peaks_.finish();
  add_warnings(s, chunk_counted_, s.warnings);
  add_sketch_warning(s);
  return s;
}

}  // namespace tokenbench::metrics
