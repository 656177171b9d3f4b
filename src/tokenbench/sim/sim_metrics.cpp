#include "tokenbench/sim/sim_metrics.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <iterator>
#include <string_view>

#include "tokenbench/sim/lora_slots.h"

namespace tokenbench::sim {
namespace {

// Bucket bounds exactly as vLLM's PrometheusStatLogger declares them.
constexpr std::array<double, 22> kTtftBuckets{0.001, 0.005, 0.01, 0.02,  0.04,  0.06,  0.08, 0.1,
                                              0.25,  0.5,   0.75, 1.0,   2.5,   5.0,   7.5,  10.0,
                                              20.0,  40.0,  80.0, 160.0, 640.0, 2560.0};
constexpr std::array<double, 19> kItlBuckets{0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2,
                                             0.3,  0.4,   0.5,  0.75,  1.0, 2.5,  5.0,
                                             7.5,  10.0,  20.0, 40.0,  80.0};
constexpr std::array<double, 21> kRequestBuckets{0.3,  0.5,   0.8,   1.0,   1.5,   2.0,    2.5,
                                                 5.0,  10.0,  15.0,  20.0,  30.0,  40.0,   50.0,
                                                 60.0, 120.0, 240.0, 480.0, 960.0, 1920.0, 7680.0};

// A value as Python's prometheus_client writes it: floats always with a fraction or exponent.
std::string prom_value(double v) {
  std::string s = fmt::format("{}", v);
  if (s.find_first_of(".eEn") == std::string::npos) s += ".0";
  return s;
}

void append_head(std::string& out, std::string_view name, std::string_view type,
                 std::string_view help) {
  fmt::format_to(std::back_inserter(out), "# HELP {} {}\n# TYPE {} {}\n", name, help, name, type);
}

void append_sample(std::string& out, std::string_view name, std::string_view labels, double v) {
  fmt::format_to(std::back_inserter(out), "{}{{{}}} {}\n", name, labels, prom_value(v));
}

void append_histogram(std::string& out, std::string_view name, std::string_view help,
                      std::string_view labels, const Histogram& h) {
  append_head(out, name, "histogram", help);
  std::uint64_t cumulative = 0;
  const auto counts = h.counts();
  for (std::size_t i = 0; i < h.bounds().size(); ++i) {
    cumulative += counts[i];
    fmt::format_to(std::back_inserter(out), "{}_bucket{{{},le=\"{}\"}} {}\n", name, labels,
                   prom_value(h.bounds()[i]), prom_value(static_cast<double>(cumulative)));
  }
  fmt::format_to(std::back_inserter(out), "{}_bucket{{{},le=\"+Inf\"}} {}\n", name, labels,
                 prom_value(static_cast<double>(h.count())));
  append_sample(out, std::string(name) + "_count", labels, static_cast<double>(h.count()));
  append_sample(out, std::string(name) + "_sum", labels, h.sum());
}

// vLLM's speculative-decoding counters (vllm/v1/spec_decode/metrics.py), labelled as the rest.
void append_spec_decode(std::string& out, std::string_view labels, std::int64_t k,
                        const SpecDecodeCounts& c) {
  const auto counter = [&](std::string_view name, std::string_view help, std::int64_t v) {
    append_head(out, name, "counter", help);
    append_sample(out, name, labels, static_cast<double>(v));
  };
  counter("vllm:spec_decode_num_drafts_total", "Number of spec decoding drafts.", c.drafts);
  counter("vllm:spec_decode_num_draft_tokens_total", "Number of draft tokens.", c.draft_tokens);
  counter("vllm:spec_decode_num_accepted_tokens_total", "Number of accepted tokens.", c.accepted);
  constexpr std::string_view kPerPos = "vllm:spec_decode_num_accepted_tokens_per_pos_total";
  append_head(out, kPerPos, "counter", "Accepted tokens per draft position.");
  for (std::int64_t i = 0; i < k; ++i) {
    const auto pos = static_cast<std::size_t>(i);
    const std::int64_t n = pos < c.accepted_per_pos.size() ? c.accepted_per_pos[pos] : 0;
    fmt::format_to(std::back_inserter(out), "{}{{{},position=\"{}\"}} {}\n", kPerPos, labels, i,
                   prom_value(static_cast<double>(n)));
  }
}

}  // namespace

std::span<const double> itl_buckets() { return kItlBuckets; }

Histogram::Histogram(std::span<const double> bounds)
    : bounds_(bounds), counts_(bounds.size() + 1, 0) {}

void Histogram::observe(double value) {
  // Prometheus buckets are upper-inclusive (le).
  const auto it = std::lower_bound(bounds_.begin(), bounds_.end(), value);
  ++counts_[static_cast<std::size_t>(it - bounds_.begin())];
  ++count_;
  sum_ += value;
}

void Histogram::merge(const Histogram& other) {
  for (std::size_t i = 0; i < counts_.size() && i < other.counts_.size(); ++i) {
    counts_[i] += other.counts_[i];
  }
  count_ += other.count_;
  sum_ += other.sum_;
}

void Histogram::clear() {
  std::fill(counts_.begin(), counts_.end(), 0);
  count_ = 0;
  sum_ = 0;
}

MetricsDelta::MetricsDelta()
    : ttft(kTtftBuckets),
      itl(kItlBuckets),
      e2e(kRequestBuckets),
      queue(kRequestBuckets),
      prefill(kRequestBuckets),
      decode(kRequestBuckets),
      inference(kRequestBuckets) {}

void MetricsDelta::clear() {
  prompt_tokens = generation_tokens = preemptions = cache_queries = cache_hits = 0;
  success_stop = success_length = success_abort = 0;
  for (Histogram* h : {&ttft, &itl, &e2e, &queue, &prefill, &decode, &inference}) h->clear();
  spec.clear();
  lora_loads = 0;
}

bool MetricsDelta::empty() const {
  return prompt_tokens == 0 && generation_tokens == 0 && preemptions == 0 && cache_queries == 0 &&
         success_stop == 0 && success_length == 0 && success_abort == 0 && ttft.count() == 0 &&
         itl.count() == 0 && e2e.count() == 0 && spec.empty() && lora_loads == 0;
}

SimMetrics::SimMetrics(const std::string& model_name) {
  labels_ = "model_name=\"";
  for (const char c : model_name) {
    if (c == '\\' || c == '"') {
      labels_ += '\\';
      labels_ += c;
    } else if (c == '\n') {
      labels_ += "\\n";
    } else {
      labels_ += c;
    }
  }
  labels_ += '"';
}

void SimMetrics::set_gauges(std::int64_t running, std::int64_t waiting, double kv_usage) {
  std::lock_guard lock(mu_);
  running_ = running;
  waiting_ = waiting;
  kv_usage_ = kv_usage;
}

void SimMetrics::add_running(std::int64_t delta) {
  std::lock_guard lock(mu_);
  running_ += delta;
}

void SimMetrics::merge(const MetricsDelta& d) {
  std::lock_guard lock(mu_);
  MetricsDelta& t = totals_;
  t.prompt_tokens += d.prompt_tokens;
  t.generation_tokens += d.generation_tokens;
  t.preemptions += d.preemptions;
  t.cache_queries += d.cache_queries;
  t.cache_hits += d.cache_hits;
  t.success_stop += d.success_stop;
  t.success_length += d.success_length;
  t.success_abort += d.success_abort;
  t.ttft.merge(d.ttft);
  t.itl.merge(d.itl);
  t.e2e.merge(d.e2e);
  t.queue.merge(d.queue);
  t.prefill.merge(d.prefill);
  t.decode.merge(d.decode);
  t.inference.merge(d.inference);
  t.spec.merge(d.spec);
  t.lora_loads += d.lora_loads;
}

namespace {
double unix_now() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}
}  // namespace

void SimMetrics::set_lora_config(std::int64_t max_loras) {
  std::lock_guard lock(mu_);
  max_loras_ = std::max<std::int64_t>(1, max_loras);
  lora_info_time_ = unix_now();
}

void SimMetrics::set_lora_info(const std::vector<char>& running, const std::vector<char>& waiting) {
  std::string r;
  std::string w;
  append_lora_names(r, running);
  append_lora_names(w, waiting);
  const double now = unix_now();
  std::lock_guard lock(mu_);
  running_loras_ = std::move(r);
  waiting_loras_ = std::move(w);
  lora_info_time_ = now;
}

void SimMetrics::set_spec_decode_tokens(std::int64_t k) {
  std::lock_guard lock(mu_);
  spec_k_ = std::max<std::int64_t>(0, k);
}

void SimMetrics::count_request(ApiKind api, std::int64_t images, std::int64_t image_tokens) {
  std::lock_guard lock(mu_);
  ++requests_[static_cast<std::size_t>(api)];
  images_ += images;
  image_tokens_ += image_tokens;
}

std::string SimMetrics::render() const {
  std::lock_guard lock(mu_);
  const MetricsDelta& t = totals_;
  const std::string_view l = labels_;
  std::string out;
  out.reserve(16384);
  auto gauge = [&](std::string_view name, std::string_view help, double v) {
    append_head(out, name, "gauge", help);
    append_sample(out, name, l, v);
  };
  auto counter = [&](std::string_view name, std::string_view help, std::int64_t v) {
    append_head(out, name, "counter", help);
    append_sample(out, name, l, static_cast<double>(v));
  };
  gauge("vllm:num_requests_running", "Number of requests in model execution batches.",
        static_cast<double>(running_));
  gauge("vllm:num_requests_waiting", "Number of requests waiting to be processed.",
        static_cast<double>(waiting_));
  gauge("vllm:gpu_cache_usage_perc",
        "GPU KV-cache usage. 1 means 100 percent usage.DEPRECATED: Use vllm:kv_cache_usage_perc "
        "instead.",
        kv_usage_);
  gauge("vllm:kv_cache_usage_perc", "KV-cache usage. 1 means 100 percent usage.", kv_usage_);
  counter("vllm:prefix_cache_queries_total",
          "Prefix cache queries, in terms of number of queried tokens.", t.cache_queries);
  counter("vllm:prefix_cache_hits_total", "Prefix cache hits, in terms of number of cached tokens.",
          t.cache_hits);
  counter("vllm:num_preemptions_total", "Cumulative number of preemption from the engine.",
          t.preemptions);
  counter("vllm:prompt_tokens_total", "Number of prefill tokens processed.", t.prompt_tokens);
  counter("vllm:generation_tokens_total", "Number of generation tokens processed.",
          t.generation_tokens);
  append_head(out, "vllm:request_success_total", "counter",
              "Count of successfully processed requests.");
  for (const auto& [reason, n] : {std::pair<std::string_view, std::int64_t>{"stop", t.success_stop},
                                  {"length", t.success_length},
                                  {"abort", t.success_abort}}) {
    fmt::format_to(std::back_inserter(out),
                   "vllm:request_success_total{{{},finished_reason=\"{}\"}} {}\n", l, reason,
                   prom_value(static_cast<double>(n)));
  }
  append_histogram(out, "vllm:time_to_first_token_seconds",
                   "Histogram of time to first token in seconds.", l, t.ttft);
  append_histogram(out, "vllm:time_per_output_token_seconds",
                   "Histogram of time per output token in seconds.DEPRECATED: Use "
                   "vllm:inter_token_latency_seconds instead.",
                   l, t.itl);
  append_histogram(out, "vllm:inter_token_latency_seconds",
                   "Histogram of inter-token latency in seconds.", l, t.itl);
  append_histogram(out, "vllm:e2e_request_latency_seconds",
                   "Histogram of e2e request latency in seconds.", l, t.e2e);
  append_histogram(out, "vllm:request_queue_time_seconds",
                   "Histogram of time spent in WAITING phase for request.", l, t.queue);
  append_histogram(out, "vllm:request_inference_time_seconds",
                   "Histogram of time spent in RUNNING phase for request.", l, t.inference);
  append_histogram(out, "vllm:request_prefill_time_seconds",
                   "Histogram of time spent in PREFILL phase for request.", l, t.prefill);
  append_histogram(out, "vllm:request_decode_time_seconds",
                   "Histogram of time spent in DECODE phase for request.", l, t.decode);
  if (spec_k_ > 0) append_spec_decode(out, l, spec_k_, t.spec);
  // The simulator's own counters (not vLLM's).
  append_head(out, "tokenbench_sim:requests_total", "counter",
              "Generation requests accepted, by API.");
  for (std::size_t i = 0; i < kApiKinds; ++i) {
    fmt::format_to(std::back_inserter(out), "tokenbench_sim:requests_total{{{},api=\"{}\"}} {}\n",
                   l, to_string(static_cast<ApiKind>(i)),
                   prom_value(static_cast<double>(requests_[i])));
  }
  counter("tokenbench_sim:images_total", "Images in accepted prompts.", images_);
  counter("tokenbench_sim:image_tokens_total", "Prompt tokens charged for images.", image_tokens_);
  if (max_loras_ > 0) {
    // vLLM's gauge carries no model_name; its value is the time of the last update.
    append_head(out, "vllm:lora_requests_info", "gauge", "Running stats on lora requests.");
    fmt::format_to(std::back_inserter(out),
                   "vllm:lora_requests_info{{max_lora=\"{}\",running_lora_adapters=\"{}\","
                   "waiting_lora_adapters=\"{}\"}} {}\n",
                   max_loras_, running_loras_, waiting_loras_, prom_value(lora_info_time_));
    counter("tokenbench_sim:lora_loads_total", "LoRA adapters loaded.", t.lora_loads);
  }
  return out;
}

}  // namespace tokenbench::sim
