#pragma once

#include <atomic>
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tokenbench/collect/gpu_sampler.h"
#include "tokenbench/collect/probe_sender.h"
#include "tokenbench/collect/scraper.h"
#include "tokenbench/core/clock.h"
#include "tokenbench/core/run_config.h"
#include "tokenbench/measure/plan.h"
#include "tokenbench/measure/records.h"
#include "tokenbench/records/run_notes.h"

namespace tokenbench::measure {

/// What one measurement watches besides its requests: the GPUs, sampled on their own thread over
/// the whole run (one sampler for every part), and the servers' /metrics: each replica's of each
/// part, and every --server-metrics URL, one scraper each (its own thread and connections). Each
/// start says on stderr what it cannot watch; errors kept are redacted with the plan's secrets. Use
/// from the Runner's thread.
class Telemetry {
 public:
  /// `gpu_auto_off`: --gpu-metrics auto found no sampler before (said once per command).
  Telemetry(const Plan& plan, bool& gpu_auto_off) : plan_(plan), gpu_auto_off_(gpu_auto_off) {}

  /// Starts the GPU sampler and the scrapers `config` asks for, on `clock`; neither once
  /// `canceled` (the GPU sampler's start may wait seconds for its first sample).
  void start(const core::RunConfig& config, const std::vector<Part>& parts,
             const core::RunClock& clock, const std::atomic<bool>& canceled);
  /// A scrape at the measure phase's start or end, labelled so.
  void scrape_edge(bool starts);
  /// --probe-rate: starts the probes at the measure phase's start, stops them at its end.
  void probe_edge(bool starts);
  /// Stops the GPU sampler, after one sample past `measure_end` (kNever: none awaited), so that
  /// the energy spans the whole phase.
  void stop_gpus(const core::RunConfig& config, core::Nanos measure_end, bool canceled);
  /// Stops part `i`'s scraper and puts what was watched into its notes.
  void add_notes(std::size_t i, bool shared, records::RunNotes& notes);
  /// The GPUs' facts for the environment record (null when no sampler ran).
  nlohmann::json gpus() const;

 private:
  /// The GPU sampler --gpu-metrics asks for, started on `clock`, once its first sample came (or
  /// kept without one when asked for by name); null when off or (auto) not available, said once
  /// on stderr.
  std::unique_ptr<collect::GpuSampler> start_gpu_sampler(const core::RunConfig& config,
                                                         const core::RunClock& clock);
  /// One source's scraper, its first scrape made; kept unless `automatic` and it did not answer
  /// with names tokenbench knows. `part`: the part whose notes get it (-1: every part's).
  void start_scraper(const core::RunConfig& config, const driver::Target& target,
                     const std::string& url, telemetry::ScrapeSource source, int part,
                     bool automatic, const core::RunClock& clock);

  const Plan& plan_;
  bool& gpu_auto_off_;
  std::unique_ptr<collect::GpuSampler> gpu_;
  std::vector<telemetry::GpuSample> gpu_samples_;
  std::optional<telemetry::GpuSamplerInfo> gpu_info_;
  /// One scraper per source: every replica's /metrics that answers, and each --server-metrics
  /// URL.
  struct Scraping {
    int part = -1;  ///< -1: every part's (a --server-metrics URL)
    telemetry::ScrapeSource source;
    std::unique_ptr<collect::MetricsScraper> scraper;
  };
  std::vector<Scraping> scrapers_;
  std::unique_ptr<collect::ProbeSender> probes_;
  double probe_rate_ = 0;
  std::vector<telemetry::ProbeSample> probe_samples_;
};

}  // namespace tokenbench::measure
