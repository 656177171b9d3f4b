#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "tokenbench/core/run_config.h"
#include "tokenbench/driver/benchmark.h"
#include "tokenbench/records/recorder.h"
#include "tokenbench/report/live_view.h"

namespace tokenbench::measure {

/// The counters of a measurement in flight, as the live view and the progress lines show them:
/// the recorders' tallies and the engine's started count, never the engine's threads' state.
/// The recorders, the configuration and the benchmark must outlive it. One thread calls sample().
class ProgressSampler {
 public:
  ProgressSampler(const std::vector<std::unique_ptr<records::Recorder>>& recorders,
                  const core::RunConfig& config, const driver::Benchmark& watched,
                  std::string label);

  /// The counters now. Output tok/s is taken over the last 2 s of samples, or since the sample
  /// before when samples are further apart.
  report::LiveFrame sample();

 private:
  const std::vector<std::unique_ptr<records::Recorder>>& recorders_;
  const driver::Benchmark& watched_;
  std::string label_;
  double duration_s_ = 0;
  std::int64_t total_ = 0;  // requests the measurement sends; 0: unknown (--duration)
  std::chrono::steady_clock::time_point t0_;
  std::deque<std::pair<double, std::int64_t>> tokens_;  // (seconds, output tokens so far)
};

/// The progress of one measurement on stderr, on a thread of its own from construction to
/// stop(): at a terminal (`terminal`), the live view redrawn about 4 times a second
/// (report::render_live), with a last frame at the end; elsewhere (a log, CI) one plain line
/// (report::render_progress_line) every `interval_s` seconds, which must then be > 0. Never
/// writes to stdout.
class Progress {
 public:
  Progress(const std::vector<std::unique_ptr<records::Recorder>>& recorders,
           const core::RunConfig& config, const driver::Benchmark& watched, std::string label,
           bool terminal, double interval_s);
  ~Progress();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  /// Ends the thread (at a terminal after drawing the last frame) and waits for it. Idempotent.
  void stop();

 private:
  void loop(bool terminal, double interval_s);

  ProgressSampler sampler_;
  std::atomic<bool> finished_{false};
  std::thread thread_;
};

}  // namespace tokenbench::measure
