#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "tokenbench/core/run_config.h"
#include "tokenbench/driver/benchmark.h"
#include "tokenbench/measure/cohort.h"
#include "tokenbench/measure/outcome.h"
#include "tokenbench/measure/plan.h"
#include "tokenbench/measure/records.h"

namespace tokenbench::records {
class Recorder;
}

namespace tokenbench::measure {

struct Measurement;  // runner.cpp: one measurement in flight
class Progress;
class Telemetry;

/// The one code path of a measurement, shared by `run`, sweeps, searches and multi-target runs:
/// resolves the target(s) once (the Plan), then runs measurements one after another, each into
/// its own results directory (config.yaml, requests.jsonl, summary.json).
///
/// Construct and run() from one thread; cancel() is async-signal-safe (a signal handler may call
/// it) and stops the measurement in flight and every later one.
class Runner {
 public:
  struct Options {
    bool quiet = false;      ///< no start line, no live view, no progress lines
    bool overwrite = false;  ///< replace results already in a directory (else RunError)
    /// The process's command line, kept (redacted) in the environment record.
    std::vector<std::string> command_line;
    /// The processes measuring together (a distributed run under mpirun: docs/DISTRIBUTED.md):
    /// each measurement is shared among them, and the leader writes the merged results. Null:
    /// this process alone.
    Cohort* cohort = nullptr;
    /// When stderr is not a terminal (a log, CI): seconds between plain progress lines; 0: none.
    /// At a terminal the live view is drawn instead.
    double progress_interval_s = 10;
    /// Called on the leader with each part whose results were saved, once they are: cli/ adds
    /// the run to the history (history/store.h) here. Null: nothing.
    std::function<void(const LevelResult&)> on_saved;
  };

  /// Prepares the target(s) (resolve_plan): credentials, preflight, environment and tokenizer.
  /// Completes `config`: model names filled in, credentials cut out of every URL in it. Throws
  /// RunError.
  Runner(core::RunConfig& config, Options options);
  ~Runner();

  /// Measures once as `config` says (a copy of the prepared configuration with a level's load,
  /// seed and output_dir). Blocks until the measurement ends. Throws RunError when the results
  /// directory cannot be written or the workload cannot be built.
  RunOutcome run(const core::RunConfig& config);

  /// A line the live view shows above its counters during the next runs (a sweep's level).
  void set_progress_label(std::string label) { progress_label_ = std::move(label); }

  /// Stops the measurement in flight and every later one; `signal_number` (SIGINT, SIGTERM) is
  /// what stopped it, 0 for none. Async-signal-safe.
  void cancel(int signal_number = 0);
  bool canceled() const { return canceled_.load(); }
  /// Why the runs were interrupted ("SIGTERM: the run was stopped before its end"), or "" when
  /// nothing interrupted them. A guard's stop (--fail-fast) is a finding, not an interruption.
  std::string interruption() const;
  /// A distributed run: some measurement so far lacks (part of) a rank's share.
  bool partial() const { return partial_; }

  /// Writes every record measured so far to its requests.jsonl now (waiting at most a second),
  /// and removes the summary's reserve (records::make_reserve). Thread-safe; for a second Ctrl-C,
  /// before the process exits at once.
  void flush_records();

  /// Removes every credential this run knows from `text`.
  std::string redact(std::string text) const { return plan_.redact(std::move(text)); }

 private:
  // The steps of run(), in their order.
  Measurement prepare(const core::RunConfig& config, const std::vector<Part>& parts);
  std::unique_ptr<Progress> show_progress(const core::RunConfig& config, const Measurement& m);
  void run_phases(const core::RunConfig& config, Measurement& m, Telemetry& watch);
  void close_records(Measurement& m);
  void merge(const core::RunConfig& config, const std::vector<Part>& parts, Measurement& m,
             Telemetry& watch);
  void write_results(const core::RunConfig& config, const std::vector<Part>& parts, Measurement& m,
                     Telemetry& watch);

  /// The records the live view counts and a second Ctrl-C flushes (none: forgets them).
  void watch_records(const Records* records);
  /// Why the measurement stopped early, as summary.json says it; settles outcome.canceled.
  std::string stop_reason(RunOutcome& outcome) const;

  Options options_;
  SingleProcess alone_;
  Cohort* cohort_;  // options_.cohort, or alone_
  std::string progress_label_;
  Plan plan_;
  bool gpu_auto_off_ = false;  // --gpu-metrics auto found no sampler (said once)
  // The previous measurement's benchmark stays alive until the next one replaces it, so that a
  // signal handler that read running_ just before it was cleared never cancels a freed object.
  std::unique_ptr<driver::Benchmark> last_bench_;
  std::unique_ptr<core::RunConfig> last_config_;  // last_bench_'s (a rank's share of it)
  std::atomic<driver::Benchmark*> running_{nullptr};
  std::atomic<bool> canceled_{false};
  std::atomic<int> stop_signal_{0};
  bool partial_ = false;
  std::mutex recorders_mutex_;
  std::vector<records::Recorder*> live_recorders_;  // the measurement's, while it runs
};

}  // namespace tokenbench::measure
