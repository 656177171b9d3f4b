#pragma once

#include <array>
#include <cstdint>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "tokenbench/sim/openai_request.h"
#include "tokenbench/sim/spec_decode.h"

namespace tokenbench::sim {

/// A Prometheus histogram's buckets and observations (cumulative counts are made when rendered).
/// Plain value type; not thread-safe.
class Histogram {
 public:
  /// `bounds` are the upper bounds, ascending, without +Inf; they must outlive the histogram.
  explicit Histogram(std::span<const double> bounds);

  void observe(double value);
  void merge(const Histogram& other);  ///< same bounds required
  void clear();

  std::span<const double> bounds() const { return bounds_; }
  /// Observations per bucket (not cumulative); the last entry counts those above every bound.
  std::span<const std::uint64_t> counts() const { return counts_; }
  std::uint64_t count() const { return count_; }
  double sum() const { return sum_; }

 private:
  std::span<const double> bounds_;
  std::vector<std::uint64_t> counts_;
  std::uint64_t count_ = 0;
  double sum_ = 0;
};

/// vLLM's bucket bounds of the inter-token latency histogram (static storage), for a per-request
/// Histogram whose observations wait until the request ends. Any thread.
std::span<const double> itl_buckets();

/// Changes to the metrics gathered by one thread (the engine over a step, or an io thread over a
/// request) and merged into SimMetrics under its lock at once. Not thread-safe.
struct MetricsDelta {
  MetricsDelta();
  void clear();
  bool empty() const;

  std::int64_t prompt_tokens = 0;
  std::int64_t generation_tokens = 0;
  std::int64_t preemptions = 0;
  std::int64_t cache_queries = 0;  ///< prompt tokens looked up in the prefix cache
  std::int64_t cache_hits = 0;     ///< of which were cached
  std::int64_t success_stop = 0;
  std::int64_t success_length = 0;
  std::int64_t success_abort = 0;
  Histogram ttft;         ///< seconds
  Histogram itl;          ///< seconds, one per token gap (also rendered as time_per_output_token)
  Histogram e2e;          ///< arrival to last token
  Histogram queue;        ///< arrival to first scheduled
  Histogram prefill;      ///< first scheduled to first token
  Histogram decode;       ///< first token to last token
  Histogram inference;    ///< first scheduled to last token
  SpecDecodeCounts spec;  ///< speculative decoding (engine mode with --spec-decode)
  std::int64_t lora_loads = 0;  ///< LoRA adapters loaded
};

/// The server's Prometheus metrics, named, typed, described and bucketed as vLLM's
/// (vllm/v1/metrics/loggers.py), each labelled model_name. Owned by the server; every method is
/// safe from any thread (one internal lock).
class SimMetrics {
 public:
  explicit SimMetrics(const std::string& model_name);

  /// Sets the scheduler gauges (engine mode: after each step).
  void set_gauges(std::int64_t running, std::int64_t waiting, double kv_usage);
  /// Moves the running gauge by `delta` (fixed-delay mode: streams start and end).
  void add_running(std::int64_t delta);
  /// Adds a delta's counters and observations.
  void merge(const MetricsDelta& delta);

  /// With `k` > 0, the exposition carries vLLM's speculative-decoding counters
  /// (vllm:spec_decode_*, positions 0 .. k-1). Call before serving.
  void set_spec_decode_tokens(std::int64_t k);

  /// LoRA adapters are served: the exposition carries vllm:lora_requests_info (max_lora=
  /// `max_loras`) and tokenbench_sim:lora_loads_total. Call before serving.
  void set_lora_config(std::int64_t max_loras);
  /// The adapters (flags per adapter index) of the running batch and of the queue, now: the
  /// lora_requests_info sample and its time (the engine thread, after each step).
  void set_lora_info(const std::vector<char>& running, const std::vector<char>& waiting);

  /// Counts one accepted generation request of `api` (tokenbench_sim:requests_total) and the
  /// images of its prompt (tokenbench_sim:images_total, tokenbench_sim:image_tokens_total).
  void count_request(ApiKind api, std::int64_t images, std::int64_t image_tokens);

  /// The Prometheus text exposition (format 0.0.4) of every metric.
  std::string render() const;

 private:
  mutable std::mutex mu_;
  std::string labels_;  ///< `model_name="..."`, escaped
  std::int64_t running_ = 0;
  std::int64_t waiting_ = 0;
  double kv_usage_ = 0;
  MetricsDelta totals_;
  std::array<std::int64_t, kApiKinds> requests_{};  ///< by ApiKind
  std::int64_t images_ = 0;
  std::int64_t image_tokens_ = 0;
  std::int64_t spec_k_ = 0;     ///< draft tokens per draft; 0: no spec_decode lines
  std::int64_t max_loras_ = 0;  ///< 0: no LoRA lines
  std::string running_loras_;   ///< "lora-0,lora-2"
  std::string waiting_loras_;
  double lora_info_time_ = 0;  ///< Unix seconds of the last set_lora_info()
};

}  // namespace tokenbench::sim
