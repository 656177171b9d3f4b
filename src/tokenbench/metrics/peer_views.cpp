#include "tokenbench/metrics/peer_views.h"

#include <fmt/core.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <stdexcept>

#include "tokenbench/metrics/percentile.h"
#include "tokenbench/metrics/summary.h"
#include "tokenbench/metrics/vllm_peaks.h"

namespace tokenbench::metrics {
namespace {

using core::kNever;
using core::Nanos;
using core::RequestRecord;

double span_ms(Nanos from, Nanos to) {
  if (from == kNever || to == kNever) return kUndefined;
  return core::to_ms(to - from);
}

enum class Method { kLinear, kFloorIndex };

double stat(std::vector<double> values, const std::string& which, Method method) {
  values.erase(
      std::remove_if(values.begin(), values.end(), [](double v) { return !is_defined(v); }),
      values.end());
  if (values.empty()) return kUndefined;
  if (which == "mean") return mean(values);
  std::sort(values.begin(), values.end());
  const double p = std::stod(which.substr(1));
  return method == Method::kLinear ? percentile_sorted(values, p)
                                   : floor_index_percentile(values, p);
}

double tokenbench_stat(const Distribution& d, const std::string& which) {
  return which == "mean" ? d.mean : d.at(std::stod(which.substr(1)));
}

// Per-request sample builders over the counted records.
template <typename F>
std::vector<double> per_request(const std::vector<RequestRecord>& records, F f) {
  std::vector<double> out;
  for (const RequestRecord& r : records) {
    if (!counted_by_peers(r)) continue;
    const double v = f(r);
    if (is_defined(v)) out.push_back(v);
  }
  return out;
}

std::vector<double> pooled_chunk_gaps(const std::vector<RequestRecord>& records) {
  std::vector<double> out;
  for (const RequestRecord& r : records) {
    if (!counted_by_peers(r)) continue;
    for (std::size_t i = 1; i < r.chunks.size(); ++i) {
      out.push_back(core::to_ms(r.chunks[i].t - r.chunks[i - 1].t));
    }
  }
  return out;
}

double ttft(const RequestRecord& r) { return span_ms(r.sent, r.first_token); }
double e2e_last_chunk(const RequestRecord& r) { return span_ms(r.sent, r.last_token); }
double e2e_done(const RequestRecord& r) { return span_ms(r.sent, r.done); }
double tpot_excl_first(const RequestRecord& r, Nanos end) {
  if (r.output_tokens <= 1 || r.first_token == kNever || end == kNever) return kUndefined;
  return core::to_ms(end - r.first_token) / static_cast<double>(r.output_tokens - 1);
}

constexpr const char* kTtftAnyChunk =
    "the first chunk with a non-empty `choices` minus request start. Role-only and empty "
    "chunks are not recorded by tokenbench, so its first content chunk is used: an upper "
    "bound, exact when the server sends the role with the first token (as vLLM's server "
    "does); the `headers` stamp is a lower bound";

// The figures of a view, each beside tokenbench's distribution of the same name.
enum class Figure { kTtft, kTpot, kItl, kE2el };

constexpr auto kFigureNames = core::make_names<Figure>({{Figure::kTtft, "TTFT"},
                                                        {Figure::kTpot, "TPOT"},
                                                        {Figure::kItl, "ITL"},
                                                        {Figure::kE2el, "E2EL"}});

// How a peer computes a figure's samples from tokenbench's stamps (per request unless pooled).
enum class Formula {
  kFirstChunk,         // first content chunk - request start
  kTpotToLastChunk,    // (last chunk - first chunk) / (output tokens - 1)
  kTpotToDone,         // (transfer end - first chunk) / (output tokens - 1)
  kLastChunkPerToken,  // (last chunk - request start) / output tokens: TTFT folded in
  kPooledChunkGaps,    // gaps between consecutive chunks, pooled over requests
  kLastChunk,          // last content chunk - request start
  kDone,               // transfer end - request start
  kNotReported,        // the peer has no such figure
};

// One figure of a peer's view: which figure, computed which way, and the peer's words for it.
struct FigureDefinition {
  Figure figure;
  Formula formula;
  const char* definition;
};

// A peer's definitions: its percentile method, where they were read (docs/METRICS.md, "How
// peers differ"), and its figures in the order of the view's rows.
struct PeerDefinitions {
  Peer peer;
  Method method;
  const char* source;
  std::array<FigureDefinition, 4> figures;
};

constexpr PeerDefinitions kPeerDefinitions[] = {
    {Peer::kVllm,
     Method::kLinear,
     "vllm-project/vllm vllm/benchmarks/lib/endpoint_request_func.py @ 02cfb534 "
     "(async_request_openai_chat_completions); vllm/benchmarks/serve.py (calculate_metrics)",
     {{{Figure::kTtft, Formula::kFirstChunk, kTtftAnyChunk},
       {Figure::kTpot, Formula::kTpotToLastChunk,
        "(latency - ttft) / (output_tokens - 1), output_tokens > 1; latency ends "
        "at the last chunk with `choices` (usage chunk and [DONE] excluded)"},
       {Figure::kItl, Formula::kPooledChunkGaps,
        "gaps between consecutive chunks with `choices`, pooled over requests"},
       {Figure::kE2el, Formula::kLastChunk,
        "last chunk with `choices` minus request start ([DONE] excluded)"}}}},
    {Peer::kSglang,
     Method::kLinear,
     "sgl-project/sglang python/sglang/bench_serving.py @ 0033168f "
     "(async_request_openai_chat_completions, calculate_metrics)",
     {{{Figure::kTtft, Formula::kFirstChunk,
        "first chunk with content (or reasoning) minus request start"},
       {Figure::kTpot, Formula::kTpotToDone,
        "(latency - ttft) / (output_tokens - 1) with latency taken after the "
        "stream loop ends: includes the usage chunk and [DONE]"},
       {Figure::kItl, Formula::kPooledChunkGaps,
        "gaps between consecutive content chunks, pooled over requests"},
       {Figure::kE2el, Formula::kDone,
        "the arrival of the stream's last line ([DONE]) minus request start; "
        "tokenbench's `done` stamp (transfer end, just after [DONE]) is used"}}}},
    {Peer::kGuidellm,
     Method::kLinear,
     "vllm-project/guidellm src/guidellm/schemas/request_stats.py @ 06cef291 "
     "(GenerativeRequestStats)",
     {{{Figure::kTtft, Formula::kFirstChunk, "first token iteration minus request start"},
       {Figure::kTpot, Formula::kLastChunkPerToken,
        "time_per_output_token_ms: (last token - request start) / "
        "output_tokens, INCLUDING the first token and TTFT"},
       {Figure::kItl, Formula::kTpotToLastChunk,
        "inter_token_latency_ms: (last token - first token) / (output_tokens - "
        "1), one value per request (tokenbench's TPOT, not its pooled ITL)"},
       {Figure::kE2el, Formula::kDone,
        "request_latency: request end minus request start (tokenbench's `done`)"}}}},
    {Peer::kEvalscope,
     Method::kFloorIndex,
     "modelscope/evalscope evalscope/perf/utils/db_util.py @ fde259d2 (calculate_percentiles, "
     "get_percentile_results); evalscope/perf/utils/benchmark_util.py",
     {{{Figure::kTtft, Formula::kFirstChunk,
        "first_chunk_latency: the first chunk minus request start (first content "
        "chunk used; see the vLLM note on role-only chunks)"},
       {Figure::kTpot, Formula::kTpotToDone,
        "(latency - first_chunk_latency) / (completion_tokens - 1), latency to "
        "the completion of the request (tokenbench's `done`)"},
       {Figure::kItl, Formula::kPooledChunkGaps, "inter-chunk latencies, pooled over requests"},
       {Figure::kE2el, Formula::kDone,
        "latency: completed time minus start time (tokenbench's `done`)"}}}},
    {Peer::kAiperf,
     Method::kLinear,
     "ai-dynamo/aiperf src/aiperf/metrics/types/inter_token_latency_metric.py @ 58dd5dea, "
     "request_latency_metric.py @ 4f7ccffd",
     {{{Figure::kTtft, Formula::kFirstChunk,
        "first non-empty (content) response minus request start"},
       {Figure::kTpot, Formula::kTpotToLastChunk,
        "AIPerf calls it `inter_token_latency`: (request_latency - ttft) / "
        "(output_sequence_length - 1)"},
       {Figure::kItl, Formula::kPooledChunkGaps,
        "AIPerf's `inter_chunk_latency`: gaps between content responses"},
       {Figure::kE2el, Formula::kLastChunk,
        "request_latency: last content response minus request start (usage-only "
        "chunks excluded)"}}}},
    {Peer::kLlmperf,
     Method::kLinear,
     "ray-project/llmperf src/llmperf/ray_clients/openai_chat_completions_client.py @ 0451d33b; "
     "token_benchmark_ray.py",
     {{{Figure::kTtft, Formula::kFirstChunk,
        "first delta with non-empty content minus request start"},
       {Figure::kTpot, Formula::kNotReported, "not reported by LLMPerf"},
       {Figure::kItl, Formula::kLastChunkPerToken,
        "inter_token_latency_s: the sum of the gaps from request start to each "
        "content delta (= last content - start) / output_tokens, per request: "
        "TTFT folded in"},
       {Figure::kE2el, Formula::kDone,
        "end_to_end_latency_s: after the response loop (includes [DONE]) minus start"}}}},
};

const PeerDefinitions& definitions_of(Peer peer) {
  for (const PeerDefinitions& d : kPeerDefinitions) {
    if (d.peer == peer) return d;
  }
  throw std::logic_error("peer_views: a peer without definitions");
}

// A figure's samples under `formula` over the counted records.
std::vector<double> samples_of(Formula formula, const std::vector<RequestRecord>& records) {
  switch (formula) {
    case Formula::kFirstChunk:
      return per_request(records, ttft);
    case Formula::kTpotToLastChunk:
      return per_request(records, [](auto& r) { return tpot_excl_first(r, r.last_token); });
    case Formula::kTpotToDone:
      return per_request(records, [](auto& r) { return tpot_excl_first(r, r.done); });
    case Formula::kLastChunkPerToken:
      return per_request(records, [](auto& r) {
        if (r.output_tokens <= 0) return kUndefined;
        return span_ms(r.sent, r.last_token) / static_cast<double>(r.output_tokens);
      });
    case Formula::kPooledChunkGaps:
      return pooled_chunk_gaps(records);
    case Formula::kLastChunk:
      return per_request(records, e2e_last_chunk);
    case Formula::kDone:
      return per_request(records, e2e_done);
    case Formula::kNotReported:
      break;
  }
  return {};
}

// tokenbench's own distribution of `figure`, as summary.json reports it.
const Distribution& tokenbench_distribution(const Summary& tb, Figure figure) {
  switch (figure) {
    case Figure::kTtft:
      return tb.ttft_ms;
    case Figure::kTpot:
      return tb.tpot_ms;
    case Figure::kItl:
      return tb.itl_ms;
    case Figure::kE2el:
      break;
  }
  return tb.e2el_ms;
}

}  // namespace

bool counted_by_peers(const RequestRecord& r) {
  return r.phase == core::Phase::kMeasure && !r.retried && r.ok() && r.streamed &&
         !r.nonstream_sample;
}

std::string_view to_string(Peer peer) { return kPeerNames.name(peer); }

std::optional<Peer> peer_from_string(std::string_view name) { return kPeerNames.parse(name); }

double floor_index_percentile(const std::vector<double>& sorted, double p) {
  if (sorted.empty()) return kUndefined;
  if (p >= 100) return sorted.back();
  const double index = std::floor(static_cast<double>(sorted.size()) * p / 100.0);
  return sorted[std::min(static_cast<std::size_t>(std::max(0.0, index)), sorted.size() - 1)];
}

PeerView peer_view(Peer peer, const std::vector<RequestRecord>& records) {
  PeerView view;
  view.peer = peer;
  std::vector<RequestRecord> counted;
  for (const RequestRecord& r : records) {
    if (counted_by_peers(r)) counted.push_back(r);
  }
  view.requests = counted.size();
  SummaryOptions options;
  options.percentiles = {50, 90, 99};
  const Summary tb = summarize(records, options);  // as summary.json reports it
  const PeerDefinitions& definitions = definitions_of(peer);
  const std::string source = definitions.source;
  const std::string method_text =
      definitions.method == Method::kLinear
          ? "percentiles: numpy's linear interpolation"
          : "percentiles: the sorted values' element at index floor(n * p/100)";
  for (const FigureDefinition& figure : definitions.figures) {
    const bool reported = figure.formula != Formula::kNotReported;
    const std::vector<double> samples = samples_of(figure.formula, counted);
    for (const std::string which : {"mean", "p50", "p90", "p99"}) {
      PeerRow row;
      row.figure = fmt::format("{} {} (ms)", kFigureNames.name(figure.figure), which);
      row.tokenbench = tokenbench_stat(tokenbench_distribution(tb, figure.figure), which);
      row.peer = reported ? stat(samples, which, definitions.method) : kUndefined;
      row.definition = figure.definition;
      if (reported && which != "mean") row.definition += "; " + method_text;
      row.source = source;
      view.rows.push_back(std::move(row));
    }
  }
  const auto add_row = [&view, &source](const char* figure, double ours, double theirs,
                                        const char* definition) {
    view.rows.push_back(PeerRow{figure, ours, theirs, definition, source});
  };
  add_row("output throughput (tok/s)", tb.output_throughput, tb.output_throughput,
          "total output tokens / benchmark duration (from before the first request to after the "
          "last): tokenbench's measure phase, first scheduled to last transfer end");
  if (peer == Peer::kVllm) {
    // vLLM's peaks, recomputed exactly over every record: the summary's own (VllmPeaksBuilder
    // fed a record at a time) stops being exact past its limits.
    VllmPeaksBuilder all(SIZE_MAX, SIZE_MAX);
    for (const RequestRecord& r : records) all.add(r);
    const VllmPeaks exact = all.finish();
    add_row("max output tokens per s", tb.vllm_peaks.max_output_tokens_per_s,
            exact.max_output_tokens_per_s,
            "the most content chunks (vLLM's token times: first token, then each gap) in one "
            "whole second, counted from the earliest send; successful requests");
    add_row("max concurrent requests", static_cast<double>(tb.vllm_peaks.max_concurrent_requests),
            static_cast<double>(exact.max_concurrent_requests),
            "the most successful requests in flight at once, each [send, last content chunk), a "
            "sweep-line over half-open intervals");
  }
  view.notes.push_back(fmt::format(
      "{} successful streamed measure-phase requests; stamps are tokenbench's (one clock, taken "
      "before parsing), only the formulas are {}'s",
      view.requests, to_string(peer)));
  return view;
}

std::string render_peer_view(const PeerView& view) {
  auto cell = [](double v) { return is_defined(v) ? fmt::format("{:.3f}", v) : std::string("-"); };
  std::string out =
      fmt::format("Peer view: {} definitions ({} requests)\n", to_string(view.peer), view.requests);
  out += fmt::format("{:<28} {:>12} {:>12} {:>10}\n", "figure", "tokenbench", to_string(view.peer),
                     "diff");
  for (const PeerRow& r : view.rows) {
    const bool both = is_defined(r.tokenbench) && is_defined(r.peer);
    // Below the printed precision, a difference is shown as none (never "-0.000").
    const double d = both && std::fabs(r.peer - r.tokenbench) >= 5e-4 ? r.peer - r.tokenbench : 0;
    const std::string diff = both ? fmt::format("{:+.3f}", d) : "-";
    out += fmt::format("{:<28} {:>12} {:>12} {:>10}\n", r.figure, cell(r.tokenbench), cell(r.peer),
                       diff);
  }
  out += "\nDefinitions used for the peer column:\n";
  for (const PeerRow& r : view.rows) {
    const std::size_t space = r.figure.find(' ');
    const bool p50 = r.figure.find(" p50 ") != std::string::npos;
    const bool other = r.figure.find(" (ms)") == std::string::npos;
    if (p50 || other)
      out += fmt::format("  {}: {}\n", r.figure.substr(0, p50 ? space : std::string::npos),
                         r.definition);
  }
  out += fmt::format("Source: {}\n", view.rows.empty() ? "" : view.rows.front().source);
  for (const std::string& n : view.notes) out += "Note: " + n + "\n";
  return out;
}

}  // namespace tokenbench::metrics
