#include "tokenbench/telemetry/server_account.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "tokenbench/telemetry/timings_account.h"

namespace tokenbench::telemetry {
namespace {

using nlohmann::json;

const Scrape* labelled(const std::vector<Scrape>& scrapes, std::string_view label) {
  for (const auto& s : scrapes) {
    if (s.ok && s.label == label) return &s;
  }
  return nullptr;
}

std::optional<double> delta(const std::optional<double>& after,
                            const std::optional<double>& before) {
  if (!after || !before) return std::nullopt;
  return *after >= *before ? *after - *before : *after;  // a reset: the server restarted
}

std::optional<LatencyStat> latency(const std::optional<Histogram>& after,
                                   const std::optional<Histogram>& before, double time_scale) {
  if (!after) return std::nullopt;
  const Histogram d = before ? histogram_delta(*after, *before) : *after;
  if (d.empty()) return std::nullopt;
  const double ms = 1000 * time_scale;
  LatencyStat l;
  l.count = d.count;
  l.mean_ms = d.sum / d.count * ms;
  l.p50_ms = bounded_quantile(d, 0.5) * ms;
  l.p95_ms = bounded_quantile(d, 0.95) * ms;
  return l;
}

// Mean and max of one gauge over the scrapes from `from` to `to` (run clock).
template <typename Get>
std::optional<GaugeStat> gauge(const std::vector<Scrape>& scrapes, core::Nanos from, core::Nanos to,
                               Get get) {
  GaugeStat g;
  double sum = 0;
  for (const auto& s : scrapes) {
    if (!s.ok || s.t < from || s.t > to) continue;
    const std::optional<double> v = get(s.snapshot);
    if (!v) continue;
    sum += *v;
    g.max = g.samples == 0 ? *v : std::max(g.max, *v);
    ++g.samples;
  }
  if (g.samples == 0) return std::nullopt;
  g.mean = sum / g.samples;
  return g;
}

json opt(const std::optional<double>& v) { return v ? json(*v) : json(nullptr); }

json gauge_json(const std::optional<GaugeStat>& g) {
  if (!g) return nullptr;
  return json{{"mean", g->mean}, {"max", g->max}, {"samples", g->samples}};
}

json latency_json(const std::optional<LatencyStat>& l) {
  if (!l) return nullptr;
  auto finite = [](double v) { return std::isfinite(v) ? json(v) : json(nullptr); };
  return json{{"count", l->count},
              {"mean_ms", finite(l->mean_ms)},
              {"p50_ms", finite(l->p50_ms)},
              {"p95_ms", finite(l->p95_ms)}};
}

json histogram_json(const std::optional<Histogram>& h) {
  if (!h) return nullptr;
  json buckets = json::array();
  for (const auto& [le, n] : h->buckets) {
    buckets.push_back(json::array({std::isinf(le) ? json(nullptr) : json(le), n}));
  }
  return json{{"sum", h->sum}, {"count", h->count}, {"buckets", std::move(buckets)}};
}

std::optional<Histogram> histogram_from(const json& o, const char* key) {
  const auto it = o.find(key);
  if (it == o.end() || it->is_null()) return std::nullopt;
  Histogram h;
  h.sum = it->at("sum").get<double>();
  h.count = it->at("count").get<double>();
  for (const auto& b : it->at("buckets")) {
    h.buckets.emplace_back(
        b.at(0).is_null() ? std::numeric_limits<double>::infinity() : b.at(0).get<double>(),
        b.at(1).get<double>());
  }
  return h;
}

std::optional<double> number_from(const json& o, const char* key) {
  const auto it = o.find(key);
  if (it == o.end() || it->is_null()) return std::nullopt;
  return it->get<double>();
}

std::string ms(double v) { return std::isfinite(v) ? fmt::format("{:.2f}", v) : "-"; }

// The batch the client's figures imply, beside the server's running requests.
void add_batch_finding(ServerAccount& a, const metrics::Summary& summary) {
  const double tpot_s = summary.tpot_ms.mean / 1000;
  if (!std::isfinite(tpot_s) || !std::isfinite(summary.output_throughput)) return;
  a.effective_batch = summary.output_throughput * tpot_s;
  if (a.running) {
    a.findings.push_back(fmt::format(
        "effective batch {:.1f} (output throughput x mean TPOT); the server's running requests "
        "averaged {:.1f}",
        *a.effective_batch, a.running->mean));
  }
}

}  // namespace

ServerAccount account_for(const std::vector<Scrape>& scrapes, const std::string& url,
                          const metrics::Summary& summary, double time_scale, bool cross_check) {
  ServerAccount a;
  a.url = url;
  a.time_scale = time_scale;
  for (const auto& s : scrapes) {
    ++a.scrapes;
    if (!s.ok) {
      ++a.failed_scrapes;
      if (a.first_error.empty()) a.first_error = s.error;
    } else if (a.kind == ServerKind::kUnknown) {
      a.kind = s.snapshot.kind;
    }
  }
  const Scrape* start = labelled(scrapes, "measure_start");
  const Scrape* end = labelled(scrapes, "measure_end");
  if (start == nullptr || end == nullptr) return a;
  a.measured = true;
  const ServerSnapshot& b = start->snapshot;
  const ServerSnapshot& e = end->snapshot;
  a.prompt_tokens = delta(e.prompt_tokens, b.prompt_tokens);
  a.generation_tokens = delta(e.generation_tokens, b.generation_tokens);
  a.requests_finished = delta(e.requests_finished, b.requests_finished);
  a.preemptions = delta(e.preemptions, b.preemptions);
  a.prefix_cache_hits = delta(e.prefix_cache_hits, b.prefix_cache_hits);
  a.prefix_cache_queries = delta(e.prefix_cache_queries, b.prefix_cache_queries);
  a.running = gauge(scrapes, start->t, end->t, [](const ServerSnapshot& s) { return s.running; });
  a.waiting = gauge(scrapes, start->t, end->t, [](const ServerSnapshot& s) { return s.waiting; });
  a.kv_cache_usage_pct = gauge(scrapes, start->t, end->t,
                               [](const ServerSnapshot& s) { return s.kv_cache_usage_pct; });
  a.ttft = latency(e.ttft, b.ttft, time_scale);
  a.itl = latency(e.itl, b.itl, time_scale);
  a.queue = latency(e.queue, b.queue, time_scale);
  a.prefill = latency(e.prefill, b.prefill, time_scale);
  a.decode = latency(e.decode, b.decode, time_scale);
  a.e2e = latency(e.e2e, b.e2e, time_scale);
  a.spec = spec_decode_stat(scrapes, *start, *end);
  a.lora = lora_stat(scrapes, *start, *end);
  if (!cross_check) return a;

  // Cross-check: what the server counted over the measure phase against what the client saw.
  // The server also counts what failed requests generated, so a run with failures may differ.
  const double client_tokens = static_cast<double>(summary.total_output_tokens);
  if (a.generation_tokens) {
    const double diff = std::abs(*a.generation_tokens - client_tokens);
    if (diff > std::max(1.0, 0.01 * client_tokens)) {
      a.findings.push_back(fmt::format(
          "the server counted {:.0f} generation tokens over the measure phase, the client {:.0f} "
          "(over successful requests){}",
          *a.generation_tokens, client_tokens,
          summary.failed > 0 ? "; failed requests may account for the difference" : ""));
    }
  }
  if (a.requests_finished) {
    const double client_requests = static_cast<double>(summary.measured);
    if (std::abs(*a.requests_finished - client_requests) > 0.5) {
      a.findings.push_back(fmt::format(
          "the server finished {:.0f} requests over the measure phase, the client measured {:.0f}",
          *a.requests_finished, client_requests));
    }
  }
  if (a.findings.empty() && (a.generation_tokens || a.requests_finished)) {
    a.findings.push_back(fmt::format(
        "the server's counters agree with the client's: {} requests, {} generation tokens",
        a.requests_finished ? fmt::format("{:.0f}", *a.requests_finished) : "-",
        a.generation_tokens ? fmt::format("{:.0f}", *a.generation_tokens) : "-"));
  }
  // The prefix cache: the server's hit counter against the cached tokens its replies' usage gave.
  if (a.prefix_cache_hits && a.prefix_cache_queries && summary.cache.reported > 0) {
    const auto client = static_cast<double>(summary.cache.cached_tokens);
    const bool agree = std::abs(*a.prefix_cache_hits - client) <= std::max(1.0, 0.01 * client);
    a.findings.push_back(fmt::format(
        "prefix cache: the server counted {:.0f} hit tokens of {:.0f} queried ({:.1f} %), the "
        "client's usage {:.0f} cached of {} prompt tokens ({:.1f} %){}",
        *a.prefix_cache_hits, *a.prefix_cache_queries,
        *a.prefix_cache_queries > 0 ? 100 * *a.prefix_cache_hits / *a.prefix_cache_queries : 0.0,
        client, summary.cache.prompt_tokens, 100 * summary.cache.hit_rate(),
        agree ? ": they agree"
        : a.preemptions && *a.preemptions > 0
            ? "; the server looks a preempted request up again when it readmits it, its usage once"
        : summary.failed > 0 ? "; failed requests may account for the difference"
                             : ": they differ"));
  }
  // TTFT breakdown: the client's TTFT against the server's queue and prefill.
  const double client_ttft = summary.ttft_ms.mean;
  if (a.queue && a.prefill && std::isfinite(client_ttft)) {
    a.ttft_overhead_ms = client_ttft - a.queue->mean_ms - a.prefill->mean_ms;
    const double share = *a.ttft_overhead_ms / client_ttft;
    a.findings.push_back(fmt::format(
        "TTFT {:.2f} ms = server queue {:.2f} + prefill {:.2f} + network, framework and client "
        "{:.2f} ms ({:.0f}%, source: /metrics): {}",
        client_ttft, a.queue->mean_ms, a.prefill->mean_ms, *a.ttft_overhead_ms, share * 100,
        ttft_share_reading(share)));
  }
  add_batch_finding(a, summary);
  return a;
}

ServerAccount total_account(const std::vector<const std::vector<Scrape>*>& replicas,
                            const std::vector<ServerAccount>& accounts,
                            const metrics::Summary& summary, double time_scale) {
  std::vector<Scrape> edges;
  for (const char* label : {"before", "measure_start", "measure_end"}) {
    std::vector<const ServerSnapshot*> parts;
    Scrape edge;
    edge.label = label;
    edge.ok = true;
    edge.t = 0;
    for (const auto* scrapes : replicas) {
      const Scrape* s = labelled(*scrapes, label);
      if (s == nullptr) break;
      parts.push_back(&s->snapshot);
      edge.t = std::max(edge.t, s->t);
    }
    if (parts.size() != replicas.size()) continue;
    edge.snapshot = sum_snapshots(parts);
    edges.push_back(std::move(edge));
  }
  ServerAccount a = account_for(edges, "", summary, time_scale);
  a.name = "total";
  a.role = "total";
  a.scrapes = a.failed_scrapes = 0;
  for (const auto& r : accounts) {
    a.scrapes += r.scrapes;
    a.failed_scrapes += r.failed_scrapes;
    if (a.first_error.empty()) a.first_error = r.first_error;
    a.url += (a.url.empty() ? "" : ", ") + r.url;
  }
  // The gauges over every scrape: the replicas' running and waiting add up, KV usage averages.
  const auto combine = [&accounts](auto member, bool add) -> std::optional<GaugeStat> {
    GaugeStat g;
    for (const auto& r : accounts) {
      const std::optional<GaugeStat>& v = r.*member;
      if (!v) return std::nullopt;
      g.mean += v->mean;
      g.max = add ? g.max + v->max : std::max(g.max, v->max);
      g.samples += v->samples;
    }
    if (!add && !accounts.empty()) g.mean /= static_cast<double>(accounts.size());
    return g;
  };
  a.running = combine(&ServerAccount::running, true);
  a.waiting = combine(&ServerAccount::waiting, true);
  a.kv_cache_usage_pct = combine(&ServerAccount::kv_cache_usage_pct, false);
  std::erase_if(a.findings, [](const std::string& f) { return f.starts_with("effective batch"); });
  add_batch_finding(a, summary);
  return a;
}

json account_to_json(const ServerAccount& a) {
  return json{
      {"url", a.url},
      {"name", a.name},
      {"role", a.role},
      {"server", to_string(a.kind)},
      {"scrapes", a.scrapes},
      {"failed_scrapes", a.failed_scrapes},
      {"first_error", a.first_error.empty() ? json(nullptr) : json(a.first_error)},
      {"time_scale", a.time_scale},
      {"measured", a.measured},
      {"measure_phase",
       {{"prompt_tokens", opt(a.prompt_tokens)},
        {"generation_tokens", opt(a.generation_tokens)},
        {"requests_finished", opt(a.requests_finished)},
        {"preemptions", opt(a.preemptions)},
        {"prefix_cache_hits", opt(a.prefix_cache_hits)},
        {"prefix_cache_queries", opt(a.prefix_cache_queries)}}},
      {"gauges",
       {{"running", gauge_json(a.running)},
        {"waiting", gauge_json(a.waiting)},
        {"kv_cache_usage_pct", gauge_json(a.kv_cache_usage_pct)}}},
      {"latency",
       {{"ttft", latency_json(a.ttft)},
        {"itl", latency_json(a.itl)},
        {"queue", latency_json(a.queue)},
        {"prefill", latency_json(a.prefill)},
        {"decode", latency_json(a.decode)},
        {"e2e", latency_json(a.e2e)}}},
      {"ttft_overhead_ms", opt(a.ttft_overhead_ms)},
      {"effective_batch", opt(a.effective_batch)},
      {"speculative_decoding", spec_decode_to_json(a.spec)},
      {"lora", lora_to_json(a.lora)},
      {"findings", a.findings},
  };
}

std::string render_account(const ServerAccount& a, const metrics::Summary&) {
  std::string out =
      fmt::format("\nServer{} ({}, {} scrapes of {}", a.name.empty() ? "" : " " + a.name,
                  to_string(a.kind), a.scrapes, a.url);
  if (a.failed_scrapes > 0) {
    out += fmt::format("; {} failed: {}", a.failed_scrapes, a.first_error);
  }
  out += "):\n";
  if (!a.measured) {
    out += "  the measure phase's start and end were not both scraped: no server figures\n";
    return out;
  }
  const auto gauge_text = [](const std::optional<GaugeStat>& g, const char* unit) {
    return g ? fmt::format("mean {:.1f}{}, max {:.1f}{}", g->mean, unit, g->max, unit)
             : std::string("-");
  };
  out += fmt::format("  running requests  {}; waiting {}; KV cache usage {}\n",
                     gauge_text(a.running, ""), gauge_text(a.waiting, ""),
                     gauge_text(a.kv_cache_usage_pct, "%"));
  const auto count = [](const std::optional<double>& v) {
    return v ? fmt::format("{:.0f}", *v) : std::string("-");
  };
  out += fmt::format(
      "  measure phase     {} requests finished, {} prompt and {} generation tokens, {} "
      "preemptions\n",
      count(a.requests_finished), count(a.prompt_tokens), count(a.generation_tokens),
      count(a.preemptions));
  const std::pair<const char*, const std::optional<LatencyStat>*> rows[] = {
      {"TTFT", &a.ttft},       {"ITL", &a.itl},       {"queue", &a.queue},
      {"prefill", &a.prefill}, {"decode", &a.decode}, {"e2e", &a.e2e}};
  bool header = false;
  for (const auto& [name, l] : rows) {
    if (!*l) continue;
    if (!header) {
      out += fmt::format("  {:<16}{:>10}{:>10}{:>10}{:>10}\n",
                         a.time_scale != 1.0 ? "server (ms)*" : "server (ms)", "count", "mean",
                         "p50", "p95");
      header = true;
    }
    out += fmt::format("  {:<16}{:>10.0f}{:>10}{:>10}{:>10}\n", name, (*l)->count,
                       ms((*l)->mean_ms), ms((*l)->p50_ms), ms((*l)->p95_ms));
  }
  if (header && a.time_scale != 1.0) {
    out += fmt::format(
        "  * model time: the server's times x{:g} (--sim-time), on the client's clock\n",
        a.time_scale);
  }
  out += render_spec_decode(a.spec);
  out += render_lora(a.lora);
  for (const auto& f : a.findings) out += "  " + f + "\n";
  return out;
}

json scrape_to_json(const Scrape& s) {
  json o{{"t_ns", s.t}, {"label", s.label}, {"ok", s.ok}};
  if (!s.ok) {
    o["error"] = s.error;
    return o;
  }
  const ServerSnapshot& v = s.snapshot;
  o["server"] = to_string(v.kind);
  o["running"] = opt(v.running);
  o["waiting"] = opt(v.waiting);
  o["kv_cache_usage_pct"] = opt(v.kv_cache_usage_pct);
  o["preemptions"] = opt(v.preemptions);
  o["prompt_tokens"] = opt(v.prompt_tokens);
  o["generation_tokens"] = opt(v.generation_tokens);
  o["prefix_cache_hits"] = opt(v.prefix_cache_hits);
  o["prefix_cache_queries"] = opt(v.prefix_cache_queries);
  o["requests_finished"] = opt(v.requests_finished);
  o["ttft"] = histogram_json(v.ttft);
  o["itl"] = histogram_json(v.itl);
  o["queue"] = histogram_json(v.queue);
  o["prefill"] = histogram_json(v.prefill);
  o["decode"] = histogram_json(v.decode);
  o["e2e"] = histogram_json(v.e2e);
  features_to_json(v, o);
  return o;
}

Scrape scrape_from_json(const json& o) {
  try {
    Scrape s;
    s.t = o.at("t_ns").get<core::Nanos>();
    s.label = o.at("label").get<std::string>();
    s.ok = o.at("ok").get<bool>();
    if (!s.ok) {
      s.error = o.value("error", "");
      return s;
    }
    ServerSnapshot& v = s.snapshot;
    v.kind = kServerKindNames.parse(o.value("server", "unknown")).value_or(ServerKind::kUnknown);
    v.running = number_from(o, "running");
    v.waiting = number_from(o, "waiting");
    v.kv_cache_usage_pct = number_from(o, "kv_cache_usage_pct");
    v.preemptions = number_from(o, "preemptions");
    v.prompt_tokens = number_from(o, "prompt_tokens");
    v.generation_tokens = number_from(o, "generation_tokens");
    v.prefix_cache_hits = number_from(o, "prefix_cache_hits");
    v.prefix_cache_queries = number_from(o, "prefix_cache_queries");
    v.requests_finished = number_from(o, "requests_finished");
    v.ttft = histogram_from(o, "ttft");
    v.itl = histogram_from(o, "itl");
    v.queue = histogram_from(o, "queue");
    v.prefill = histogram_from(o, "prefill");
    v.decode = histogram_from(o, "decode");
    v.e2e = histogram_from(o, "e2e");
    features_from_json(o, v);
    return s;
  } catch (const json::exception& e) {
    throw std::runtime_error(std::string("a telemetry line is malformed: ") + e.what());
  }
}

}  // namespace tokenbench::telemetry
