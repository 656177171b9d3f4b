#pragma once

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "tokenbench/client/http_get.h"
#include "tokenbench/core/clock.h"
#include "tokenbench/telemetry/gpu_sample.h"

namespace tokenbench::collect {

class ChildProcess;

/// Samples the GPUs every `interval_s` on a thread of its own, never touching the load engine:
/// either nvidia-smi's CSV loop (`-lms`) as a child process whose lines are stamped with the run
/// clock on arrival, or a DCGM exporter's /metrics scraped with http_get. A failed sample is
/// counted (info()), never fatal. Thread-safe: the run's thread starts, waits and stops it while
/// the sampler's thread adds samples.
class GpuSampler {
 public:
  /// nvidia-smi on $PATH (`program` may name another binary, for tests). Throws
  /// std::runtime_error with one line when it cannot be started.
  static std::unique_ptr<GpuSampler> nvidia_smi(double interval_s, const core::RunClock& clock,
                                                const std::string& program = "nvidia-smi");
  /// A DCGM exporter's /metrics at `url` (no credentials of the run are sent to it).
  /// `get`: how its GETs reach the exporter (the run's TLS trust).
  static std::unique_ptr<GpuSampler> dcgm(const std::string& url, double interval_s,
                                          const core::RunClock& clock,
                                          client::HttpGetOptions get = {});
  ~GpuSampler();
  GpuSampler(const GpuSampler&) = delete;
  GpuSampler& operator=(const GpuSampler&) = delete;

  /// Waits until some sample has a stamp after `t` (kNever: any sample), at most `timeout`;
  /// true when one has. Returns early when nvidia-smi ended, or (dcgm, t = kNever) when the
  /// first scrape failed. The run waits for the first sample, and for one after the measure
  /// phase's end so that the energy covers the whole phase.
  bool wait_for_sample_after(core::Nanos t, std::chrono::milliseconds timeout);
  /// Stops sampling (ends and reaps nvidia-smi) and joins the thread. Idempotent.
  void stop();
  /// Every sample so far, in time order.
  std::vector<telemetry::GpuSample> samples() const;
  telemetry::GpuSamplerInfo info() const;

 private:
  GpuSampler(telemetry::GpuSamplerInfo info, const core::RunClock& clock);
  void read_lines();   // nvidia-smi: the thread's body
  void scrape_loop();  // dcgm: the thread's body
  void add(std::vector<telemetry::GpuSample> batch);
  void fail(const std::string& error);

  const core::RunClock& clock_;
  std::unique_ptr<ChildProcess> child_;
  int wake_fds_[2] = {-1, -1};  // stop() writes to [1]: the reader's poll wakes
  mutable std::mutex mutex_;
  std::condition_variable changed_;
  bool stopping_ = false;
  bool ended_ = false;  // nvidia-smi closed its output: no sample will come
  telemetry::GpuSamplerInfo info_;
  client::HttpGetOptions get_;  // dcgm: how its GETs reach the exporter
  std::vector<telemetry::GpuSample> samples_;
  std::thread thread_;
};

}  // namespace tokenbench::collect
