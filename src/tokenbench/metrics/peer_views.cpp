#include "tokenbench/metrics/peer_views.h"

#include <fmt/core.h>

#include <algorithm>
#include <array>
#include <cmath>

#include "tokenbench/metrics/percentile.h"
#include "tokenbench/metrics/summary.h"

namespace tokenbench::metrics {
namespace {

using core::kNever;
using core::Nanos;
using core::RequestRecord;

// Where each peer's definitions were read (docs/METRICS.md, "How peers differ").
constexpr const char* kVllmSource =
    "vllm-project/vllm vllm/benchmarks/lib/endpoint_request_func.py @ 02cfb534 "
    "(async_request_openai_chat_completions); vllm/benchmarks/serve.py (calculate_metrics)";
constexpr const char* kSglangSource =
    "sgl-project/sglang python/sglang/bench_serving.py @ 0033168f "
    "(async_request_openai_chat_completions, calculate_metrics)";
constexpr const char* kGuidellmSource =
    "vllm-project/guidellm src/guidellm/schemas/request_stats.py @ 06cef291 "
    "(GenerativeRequestStats)";
constexpr const char* kEvalscopeSource =
    "modelscope/evalscope evalscope/perf/utils/db_util.py @ 01ee08c9 (calculate_percentiles, "
    "get_percentile_results); evalscope/perf/utils/benchmark_util.py";
constexpr const char* kAiperfSource =
    "ai-dynamo/aiperf src/aiperf/metrics/types/inter_token_latency_metric.py @ 58dd5dea, "
    "request_latency_metric.py @ 4f7ccffd";
constexpr const char* kLlmperfSource =
    "ray-project/llmperf src/llmperf/ray_clients/openai_chat_completions_client.py @ 0451d33b; "
    "token_benchmark_ray.py";

double span_ms(Nanos from, Nanos to) {
  if (from == kNever || to == kNever) return kUndefined;
  return core::to_ms(to - from);
}

// The records every view (and the tokenbench column) is computed over.
bool counts(const RequestRecord& r) {
  return r.phase == core::Phase::kMeasure && !r.retried && r.ok() && r.streamed &&
         !r.nonstream_sample;
}

enum class Method { kLinear, kNearestRank };

// One figure's per-request (or pooled) samples under a peer's definition.
struct PeerFigure {
  std::string name;  // "TTFT", "TPOT", "ITL", "E2EL"
  std::vector<double> samples;
  bool reported = true;  // false: the peer has no such figure
  std::string definition;
};

double stat(std::vector<double> values, const std::string& which, Method method) {
  values.erase(
      std::remove_if(values.begin(), values.end(), [](double v) { return !is_defined(v); }),
      values.end());
  if (values.empty()) return kUndefined;
  if (which == "mean") return mean(values);
  std::sort(values.begin(), values.end());
  const double p = std::stod(which.substr(1));
  return method == Method::kLinear ? percentile_sorted(values, p)
                                   : nearest_rank_percentile(values, p);
}

double tokenbench_stat(const Distribution& d, const std::string& which) {
  return which == "mean" ? d.mean : d.at(std::stod(which.substr(1)));
}

// Per-request sample builders over the counted records.
template <typename F>
std::vector<double> per_request(const std::vector<RequestRecord>& records, F f) {
  std::vector<double> out;
  for (const RequestRecord& r : records) {
    if (!counts(r)) continue;
    const double v = f(r);
    if (is_defined(v)) out.push_back(v);
  }
  return out;
}

std::vector<double> pooled_chunk_gaps(const std::vector<RequestRecord>& records) {
  std::vector<double> out;
  for (const RequestRecord& r : records) {
    if (!counts(r)) continue;
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

std::vector<PeerFigure> figures_for(Peer peer, const std::vector<RequestRecord>& records,
                                    Method& method, std::string& source) {
  std::vector<PeerFigure> f;
  switch (peer) {
    case Peer::kVllm:
      method = Method::kLinear;
      source = kVllmSource;
      f.push_back({"TTFT", per_request(records, ttft), true, kTtftAnyChunk});
      f.push_back({"TPOT",
                   per_request(records, [](auto& r) { return tpot_excl_first(r, r.last_token); }),
                   true,
                   "(latency - ttft) / (output_tokens - 1), output_tokens > 1; latency ends "
                   "at the last chunk with `choices` (usage chunk and [DONE] excluded)"});
      f.push_back({"ITL", pooled_chunk_gaps(records), true,
                   "gaps between consecutive chunks with `choices`, pooled over requests"});
      f.push_back({"E2EL", per_request(records, e2e_last_chunk), true,
                   "last chunk with `choices` minus request start ([DONE] excluded)"});
      break;
    case Peer::kSglang:
      method = Method::kLinear;
      source = kSglangSource;
      f.push_back({"TTFT", per_request(records, ttft), true,
                   "first chunk with content (or reasoning) minus request start"});
      f.push_back({"TPOT", per_request(records, [](auto& r) { return tpot_excl_first(r, r.done); }),
                   true,
                   "(latency - ttft) / (output_tokens - 1) with latency taken after the "
                   "stream loop ends: includes the usage chunk and [DONE]"});
      f.push_back({"ITL", pooled_chunk_gaps(records), true,
                   "gaps between consecutive content chunks, pooled over requests"});
      f.push_back({"E2EL", per_request(records, e2e_done), true,
                   "the arrival of the stream's last line ([DONE]) minus request start; "
                   "tokenbench's `done` stamp (transfer end, just after [DONE]) is used"});
      break;
    case Peer::kGuidellm:
      method = Method::kLinear;
      source = kGuidellmSource;
      f.push_back(
          {"TTFT", per_request(records, ttft), true, "first token iteration minus request start"});
      f.push_back({"TPOT",
                   per_request(records,
                               [](auto& r) {
                                 if (r.output_tokens <= 0) return kUndefined;
                                 return span_ms(r.sent, r.last_token) /
                                        static_cast<double>(r.output_tokens);
                               }),
                   true,
                   "time_per_output_token_ms: (last token - request start) / "
                   "output_tokens, INCLUDING the first token and TTFT"});
      f.push_back({"ITL",
                   per_request(records, [](auto& r) { return tpot_excl_first(r, r.last_token); }),
                   true,
                   "inter_token_latency_ms: (last token - first token) / (output_tokens - "
                   "1), one value per request (tokenbench's TPOT, not its pooled ITL)"});
      f.push_back({"E2EL", per_request(records, e2e_done), true,
                   "request_latency: request end minus request start (tokenbench's `done`)"});
      break;
    case Peer::kEvalscope:
      method = Method::kNearestRank;
      source = kEvalscopeSource;
      f.push_back({"TTFT", per_request(records, ttft), true,
                   "first_chunk_latency: the first chunk minus request start (first content "
                   "chunk used; see the vLLM note on role-only chunks)"});
      f.push_back({"TPOT", per_request(records, [](auto& r) { return tpot_excl_first(r, r.done); }),
                   true,
                   "(latency - first_chunk_latency) / (completion_tokens - 1), latency to "
                   "the completion of the request (tokenbench's `done`)"});
      f.push_back(
          {"ITL", pooled_chunk_gaps(records), true, "inter-chunk latencies, pooled over requests"});
      f.push_back({"E2EL", per_request(records, e2e_done), true,
                   "latency: completed time minus start time (tokenbench's `done`)"});
      break;
    case Peer::kAiperf:
      method = Method::kLinear;
      source = kAiperfSource;
      f.push_back({"TTFT", per_request(records, ttft), true,
                   "first non-empty (content) response minus request start"});
      f.push_back({"TPOT",
                   per_request(records, [](auto& r) { return tpot_excl_first(r, r.last_token); }),
                   true,
                   "AIPerf calls it `inter_token_latency`: (request_latency - ttft) / "
                   "(output_sequence_length - 1)"});
      f.push_back({"ITL", pooled_chunk_gaps(records), true,
                   "AIPerf's `inter_chunk_latency`: gaps between content responses"});
      f.push_back({"E2EL", per_request(records, e2e_last_chunk), true,
                   "request_latency: last content response minus request start (usage-only "
                   "chunks excluded)"});
      break;
    case Peer::kLlmperf:
      method = Method::kLinear;
      source = kLlmperfSource;
      f.push_back({"TTFT", per_request(records, ttft), true,
                   "first delta with non-empty content minus request start"});
      f.push_back({"TPOT", {}, false, "not reported by LLMPerf"});
      f.push_back({"ITL",
                   per_request(records,
                               [](auto& r) {
                                 if (r.output_tokens <= 0) return kUndefined;
                                 return span_ms(r.sent, r.last_token) /
                                        static_cast<double>(r.output_tokens);
                               }),
                   true,
                   "inter_token_latency_s: the sum of the gaps from request start to each "
                   "content delta (= last content - start) / output_tokens, per request: "
                   "TTFT folded in"});
      f.push_back({"E2EL", per_request(records, e2e_done), true,
                   "end_to_end_latency_s: after the response loop (includes [DONE]) minus start"});
      break;
  }
  return f;
}

}  // namespace

std::string_view to_string(Peer peer) {
  switch (peer) {
    case Peer::kVllm:
      return "vllm";
    case Peer::kSglang:
      return "sglang";
    case Peer::kGuidellm:
      return "guidellm";
    case Peer::kEvalscope:
      return "evalscope";
    case Peer::kAiperf:
      return "aiperf";
    case Peer::kLlmperf:
      return "llmperf";
  }
  return "vllm";
}

std::optional<Peer> peer_from_string(std::string_view name) {
  for (Peer p : {Peer::kVllm, Peer::kSglang, Peer::kGuidellm, Peer::kEvalscope, Peer::kAiperf,
                 Peer::kLlmperf}) {
    if (to_string(p) == name) return p;
  }
  return std::nullopt;
}

double nearest_rank_percentile(const std::vector<double>& sorted, double p) {
  if (sorted.empty()) return kUndefined;
  if (p >= 100) return sorted.back();
  const double rank = std::ceil(static_cast<double>(sorted.size()) * p / 100.0);
  const std::size_t index = rank < 1 ? 0 : static_cast<std::size_t>(rank) - 1;
  return sorted[std::min(index, sorted.size() - 1)];
}

PeerView peer_view(Peer peer, const std::vector<RequestRecord>& records) {
  PeerView view;
  view.peer = peer;
  std::vector<RequestRecord> counted;
  for (const RequestRecord& r : records) {
    if (counts(r)) counted.push_back(r);
  }
  view.requests = counted.size();
  SummaryOptions options;
  options.percentiles = {50, 90, 99};
  const Summary tb = summarize(records, options);  // as summary.json reports it
  Method method = Method::kLinear;
  std::string source;
  const std::vector<PeerFigure> figures = figures_for(peer, counted, method, source);
  const std::array<const Distribution*, 4> mine{&tb.ttft_ms, &tb.tpot_ms, &tb.itl_ms, &tb.e2el_ms};
  const std::string method_text = method == Method::kLinear
                                      ? "percentiles: numpy's linear interpolation"
                                      : "percentiles: nearest rank, ceil(p/100 * n)";
  for (std::size_t i = 0; i < figures.size(); ++i) {
    for (const std::string which : {"mean", "p50", "p90", "p99"}) {
      PeerRow row;
      row.figure = fmt::format("{} {} (ms)", figures[i].name, which);
      row.tokenbench = tokenbench_stat(*mine[i], which);
      row.peer = figures[i].reported ? stat(figures[i].samples, which, method) : kUndefined;
      row.definition = figures[i].definition;
      if (figures[i].reported && which != "mean") row.definition += "; " + method_text;
      row.source = source;
      view.rows.push_back(std::move(row));
    }
  }
  PeerRow tput;
  tput.figure = "output throughput (tok/s)";
  tput.tokenbench = tb.output_throughput;
  tput.peer = tb.output_throughput;
  tput.definition =
      "total output tokens / benchmark duration (from before the first request to after the "
      "last): tokenbench's measure phase, first scheduled to last transfer end";
  tput.source = source;
  view.rows.push_back(std::move(tput));
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
