#pragma once

#include <atomic>
#include <deque>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "tokenbench/collect/gpu_sampler.h"
#include "tokenbench/core/run_config.h"
#include "tokenbench/driver/benchmark.h"
#include "tokenbench/metrics/summary.h"
#include "tokenbench/report/run_outputs.h"
#include "tokenbench/telemetry/environment.h"
#include "tokenbench/tokenizer/tokenizer.h"

namespace tokenbench::records {
class Recorder;
}
namespace tokenbench::distributed {
class Session;
}

namespace tokenbench::experiment {

/// A failure before anything was measured: a configuration the run cannot use (exit 1), or a
/// server that does not answer (unreachable(): exit 2).
class RunError : public std::runtime_error {
 public:
  RunError(const std::string& message, bool unreachable)
      : std::runtime_error(message), unreachable_(unreachable) {}
  bool unreachable() const { return unreachable_; }

 private:
  bool unreachable_;
};

/// What one measurement wrote into one results directory.
struct LevelResult {
  std::string name;  ///< the target's name in a multi-target run, else ""
  std::string dir;   ///< the results directory (readable by `tokenbench report`)
  metrics::Summary summary;
  nlohmann::json summary_json;  ///< as written to summary.json
  std::string console;          ///< the run's console tables
  /// Why summary.json could not be written (a full disk), "" when it was: the caller prints
  /// summary_json instead and exits cli::kExitNotSaved.
  std::string not_saved;
};

/// One `tokenbench run` measurement: one part per target compared, else one.
struct RunOutcome {
  std::vector<LevelResult> parts;
  bool canceled = false;  ///< interrupted: the parts hold partial results
  /// Why --fail-fast stopped it ("the first 5 requests all failed with HTTP 404: ..."), or "".
  std::string failed_fast;
  /// Why --max-error-rate stopped it ("31 of the last 50 requests failed ..."), or "".
  std::string error_rate_stop;
  /// A distributed run lost (part of) some rank's share: summary.json's
  /// tokenbench.distributed.missing says what.
  bool partial = false;
};

/// --fail-fast: watches the first requests of a run to end; when the first `limit` all failed
/// with the same client error (HTTP 4xx other than 429: a wrong endpoint or model, a prompt over
/// the context length), the run cannot succeed and should stop. Thread-safe (the engine's
/// workers call observe); after its decision it costs one relaxed load per request.
class FailFast {
 public:
  explicit FailFast(int limit) : limit_(limit) {}
  /// Counts a finished request; true exactly once, when the run should stop.
  bool observe(const core::RequestRecord& record);
  /// Why it stopped the run, or "".
  std::string verdict() const;

 private:
  const int limit_;
  std::atomic<bool> decided_{false};
  mutable std::mutex mutex_;
  int seen_ = 0;
  int status_ = 0;
  std::string message_;
  std::string verdict_;
};

/// --max-error-rate: stops a run that is only measuring errors. Over a sliding window of the last
/// kWindow finished requests (retried attempts and canceled requests aside), once kMinimum have
/// finished, more than `max_rate` of them failing stops the run. Thread-safe.
class ErrorRateGuard {
 public:
  static constexpr std::size_t kWindow = 50;
  static constexpr std::size_t kMinimum = 20;
  explicit ErrorRateGuard(double max_rate) : max_rate_(max_rate) {}
  /// Counts a finished request; true exactly once, when the run should stop.
  bool observe(const core::RequestRecord& record);
  /// Why it stopped the run, or "".
  std::string verdict() const;

 private:
  const double max_rate_;
  mutable std::mutex mutex_;
  std::deque<core::ErrorClass> window_;
  std::size_t failed_ = 0;
  bool decided_ = false;
  std::string verdict_;
};

/// The one code path of a measurement, shared by `run`, sweeps, searches and multi-target runs:
/// resolves the target(s) once, then runs measurements one after another, each into its own
/// results directory (config.yaml, requests.jsonl, summary.json).
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
    /// A distributed run (mpirun; docs/DISTRIBUTED.md): each measurement is shared among the
    /// ranks. On the leader (rank 0), run() announces it, measures its own share and writes the
    /// merged results; on a follower, run() measures its share and sends it to the leader (see
    /// follow()). Null: a single process.
    distributed::Session* session = nullptr;
    /// When stderr is not a terminal (a log, CI): seconds between plain progress lines; 0: none.
    /// At a terminal the live view is drawn instead.
    double progress_interval_s = 10;
  };

  /// Resolves credentials (API key variables, user:password@ in URLs), asks every server for
  /// GET /v1/models (naming the model when `config` does not) and how it describes itself (the
  /// environment record; not with --no-preflight), and loads the tokenizer. Completes `config`:
  /// model names filled in, credentials cut out of every URL in it. Throws RunError, also for
  /// --gpu-metrics nvidia-smi without nvidia-smi on PATH.
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
  std::string redact(std::string text) const;

 private:
  /// The GPU sampler --gpu-metrics asks for, started on `clock`, once its first sample came (or
  /// kept without one when asked for by name); null when off or (auto) not available, said once
  /// on stderr.
  std::unique_ptr<collect::GpuSampler> start_gpu_sampler(const core::RunConfig& config,
                                                         const core::RunClock& clock);

  /// `notes`: why a guard stopped the run early, the server's /metrics scrapes.
  LevelResult write_part(const std::string& name, const core::RunConfig& config,
                         const std::vector<core::RequestRecord>& records,
                         const records::RunNotes& notes) const;

  /// A follower's measurement that could not start (`why`): it still passes the common start and
  /// reports, so that the leader waits for nobody.
  void report_unable(const std::string& why);

  Options options_;
  std::string progress_label_;
  std::vector<driver::Target> targets_;  // with credentials; never written
  std::vector<std::string> secrets_;     // longest first
  std::unique_ptr<tokenizer::Tokenizer> tokenizer_;
  std::string dataset_copy_;   // a --dataset-path pipe's bytes, read once (removed with the runner)
  telemetry::HostFacts host_;  // the environment record's client facts
  std::vector<nlohmann::json> servers_;  // what each target said about itself (or null)
  bool gpu_auto_off_ = false;            // --gpu-metrics auto found no sampler (said once)
  std::unique_ptr<driver::Benchmark> last_bench_;  // see run()
  std::unique_ptr<core::RunConfig> last_config_;   // last_bench_'s (a rank's share of it)
  std::atomic<driver::Benchmark*> running_{nullptr};
  std::atomic<bool> canceled_{false};
  std::atomic<int> stop_signal_{0};
  bool partial_ = false;
  std::mutex recorders_mutex_;
  std::vector<records::Recorder*> live_recorders_;  // the measurement's, while it runs
};

/// A follower rank's part of a distributed command (cli's with_runner calls it instead of the
/// command): runs each measurement the leader announces until the leader says finish, with the
/// credentials config.yaml's text leaves out taken from `own` (this rank's configuration). Returns
/// the exit code: 0, or 2 when the leader was lost (the leader's own code is the command's).
int follow(Runner& runner, distributed::Session& session, const core::RunConfig& own);

/// The configuration of target `index` of a multi-target run, as its own results directory
/// records it: a single-target configuration with that target's URL and model.
core::RunConfig target_config(const core::RunConfig& config, std::size_t index);

}  // namespace tokenbench::experiment
