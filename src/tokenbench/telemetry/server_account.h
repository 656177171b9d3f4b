#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "tokenbench/metrics/summary.h"
#include "tokenbench/telemetry/engine_features.h"
#include "tokenbench/telemetry/scrape.h"

namespace tokenbench::telemetry {

/// Mean and maximum of a gauge over the scrapes of the measure phase.
struct GaugeStat {
  double mean = 0;
  double max = 0;
  int samples = 0;
};

/// A server-side latency over the measure phase, from its histogram's delta, in milliseconds.
struct LatencyStat {
  double count = 0;
  double mean_ms = 0;
  double p50_ms =
      0;  ///< estimated from the buckets where they bound it (bounded_quantile), else NaN
  double p95_ms = 0;
};

/// What the server's /metrics said about one run: the measure phase's counter deltas (from the
/// scrapes at its start and end), gauge statistics, latency histograms, the cross-check against
/// the client's own counts, and the breakdown of the client's TTFT. docs/TELEMETRY.md defines
/// each figure.
struct ServerAccount {
  std::string url;
  /// What the console calls it: a replica's host:port, a --server-metrics name=, or "total".
  std::string name;
  /// "replica" (a --base-url's own /metrics), "extra" (a --server-metrics URL) or "total" (the
  /// replicas' counters summed).
  std::string role = "replica";
  ServerKind kind = ServerKind::kUnknown;
  int scrapes = 0;
  int failed_scrapes = 0;
  std::string first_error;
  bool measured = false;  ///< both edges of the measure phase were scraped
  /// The factor the server's latencies were multiplied by (--sim-time's scale; 1: real time).
  double time_scale = 1.0;

  std::optional<double> prompt_tokens, generation_tokens, requests_finished, preemptions,
      prefix_cache_hits, prefix_cache_queries;
  std::optional<GaugeStat> running, waiting, kv_cache_usage_pct;
  std::optional<LatencyStat> ttft, itl, queue, prefill, decode, e2e;
  std::optional<SpecDecodeStat> spec;
  std::optional<LoraStat> lora;

  /// Client TTFT mean - (server queue mean + prefill mean): network, HTTP framework and client.
  std::optional<double> ttft_overhead_ms;
  /// Output throughput x mean TPOT: the batch the client's figures imply.
  std::optional<double> effective_batch;
  /// One line each: counter mismatches and readings of the breakdown.
  std::vector<std::string> findings;
};

/// The account of `scrapes` (a run's, in time order) against the client's `summary`.
/// `time_scale`: under --sim-time the client's figures are in the simulator's model time, the
/// scale times the real ones; the server's latencies are multiplied by it too, so that both sides
/// of the TTFT breakdown are on one clock.
/// `cross_check`: compare the counters with the client's (false for one of several replicas, or
/// a worker that saw only part of each request).
ServerAccount account_for(const std::vector<Scrape>& scrapes, const std::string& url,
                          const metrics::Summary& summary, double time_scale = 1.0,
                          bool cross_check = true);

/// The replicas of one deployment (each one's scrapes, and its account_for without the
/// cross-check) as one server: counters, histograms and the speculative decoding counters summed
/// at the measure phase's edges, running and waiting summed, KV cache usage averaged; the
/// cross-check against the client's counts is made on the sum.
ServerAccount total_account(const std::vector<const std::vector<Scrape>*>& replicas,
                            const std::vector<ServerAccount>& accounts,
                            const metrics::Summary& summary, double time_scale = 1.0);

nlohmann::json account_to_json(const ServerAccount& account);

/// The console's "Server" table and its findings.
std::string render_account(const ServerAccount& account, const metrics::Summary& summary);

/// One line of telemetry.jsonl, and back (for `tokenbench report DIR`). Throws
/// std::runtime_error on a malformed line.
nlohmann::json scrape_to_json(const Scrape& scrape);
Scrape scrape_from_json(const nlohmann::json& object);

}  // namespace tokenbench::telemetry
