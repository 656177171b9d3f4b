#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "tokenbench/client/api_adapter.h"
#include "tokenbench/client/http_engine.h"
#include "tokenbench/core/clock.h"
#include "tokenbench/core/request_mix.h"
#include "tokenbench/core/run_config.h"
#include "tokenbench/driver/request_feed.h"
#include "tokenbench/driver/schedule_source.h"
#include "tokenbench/driver/unit_options.h"
#include "tokenbench/load/arrival_schedule.h"
#include "tokenbench/load/work_queue.h"
#include "tokenbench/workload/workload.h"

namespace tokenbench::driver {

/// Where requests go and what they carry that must never be written anywhere: the base URL as
/// given (it may hold user:password@) and full header lines (credentials included).
struct Target {
  std::string base_url;  ///< empty: the configuration's base_url
  std::vector<std::string> headers;
  std::string model;  ///< empty: the configuration's model
};

/// Drives one benchmark: makes each request's body as the schedule nears it (RequestFeed), and
/// runs the warmup phase (every warmup
/// request ends before measuring starts) and the measure phase under the configured schedule and
/// concurrency, handing every finished request to the sink.
///
/// With several targets and config.targets set, every prompt is sent to each target (prompt i to
/// target 0, 1, ..., T-1, then prompt i+1); --num-prompts counts per target. By default
/// (--target-load each) every target has its own copy of the schedule and its own
/// --max-concurrency slots in the measure phase (PerTargetSource), so that load over time hits
/// every target alike and a slow target never holds a fast one's slots; with --target-load shared
/// they share one schedule and one concurrency limit.
/// With several targets and no config.targets, they are replicas of one deployment and each
/// request goes to one of them as config.balance says. RequestRecord::endpoint is the index.
///
/// Construct, then run() from one thread; cancel() is async-signal-safe and may be called from a
/// signal handler or any thread.
class Benchmark {
 public:
  /// With `keep_text`, each record keeps its generated text (for a local tokenizer); with
  /// config.save_detailed, its generated text and its prompt (RequestRecord::prompt_text). `config`
  /// must outlive the benchmark. Throws std::invalid_argument on a configuration the engine
  /// cannot run.
  Benchmark(const core::RunConfig& config, std::vector<Target> targets, workload::Workload workload,
            bool keep_text = false);

  /// Called on the run's thread right before the measure phase starts (true) and right after its
  /// last request ended (false), e.g. to scrape the server's metrics at its edges.
  using MeasureHook = std::function<void(bool starts)>;

  /// Returns when the measure phase starts, on clock(): a distributed run's common start.
  using StartGate = std::function<core::Nanos()>;

  /// A distributed run (distributed/): this process sends only `shard`'s share of every phase
  /// (schedule indices i with (i / targets compared) mod stride == first, or sessions i with i
  /// mod stride == first; record ids stay those of the whole schedule), and once its warmup is over
  /// it calls `gate` (always, even when canceled, so that no other rank waits for it) and starts
  /// measuring at the moment it returns.
  void distribute(load::Shard shard, StartGate gate) {
    shard_ = shard;
    shard_.group = per_prompt_;  // a prompt's requests to every target go from one rank
    gate_ = std::move(gate);
  }

  /// Runs every phase; blocks until the last request has ended (or the run was canceled).
  void run(const client::RecordSink& sink, const MeasureHook& hook = {});

  /// Stops issuing requests and ends those in flight as canceled.
  void cancel() { engine_->cancel(); }
  bool canceled() const { return engine_->canceled(); }
  /// Requests started so far, every phase (the live view).
  std::int64_t started() const { return engine_->started(); }
  /// Per worker thread, its CPU clock readings over the measure phase (client::HttpEngine).
  std::vector<std::vector<core::CpuSample>> cpu_samples() const { return engine_->cpu_samples(); }
  /// Per worker thread, the read lag of its kernel-stamped reads over the measure phase.
  std::vector<core::ReadLagLog> read_lags() const { return engine_->read_lags(); }

  const core::RunClock& clock() const { return clock_; }
  /// Worker threads the engine runs.
  int workers() const { return workers_; }
  /// Requests that were due before they were made (RequestFeed::late()): the client could not
  /// make prompts as fast as the schedule asked for them.
  std::int64_t late_requests() const { return late_.load(std::memory_order_relaxed); }
  /// Why making a request failed, which ended its phase (and the run) early; "" when none did.
  const std::string& failure() const { return failure_; }

 private:
  /// The arrivals of a phase's `count` sessions or jobs (at once, or at --request-rate), and
  /// its deadline (kNever: none).
  struct UnitPhase {
    bool open_loop = false;
    load::ArrivalSchedule schedule;
    core::Nanos deadline = core::kNever;
  };
  UnitPhase unit_phase(core::Phase phase, std::size_t count, core::Nanos start) const;
  /// What a session or job driver is given of the run: the API, bodies, unit limit, the ideal
  /// cache's block and this process's share.
  UnitOptions unit_options() const;
  /// A job phase: `count` jobs (cycled over `jobs`) through a JobDriver.
  void run_jobs(core::Phase phase, const std::vector<workload::Job>& jobs, std::size_t count,
                const client::RecordSink& sink, core::Nanos start);
  /// A multi-turn phase: `count` sessions (cycled over `sessions`) through a SessionDriver.
  void run_sessions(core::Phase phase, const std::vector<workload::Session>& sessions,
                    std::size_t count, const client::RecordSink& sink, core::Nanos start);
  /// The requests of a single-turn phase over `prompts`, ready to run: its schedule of `count`
  /// requests (kUnbounded: until the deadline), its queue and its feed, which starts making them
  /// at once. `lane` is the target of --target-load each's own schedule, or kAllTargets (the
  /// targets compared take each prompt in turn).
  struct PhaseRun;
  static constexpr std::size_t kAllTargets = static_cast<std::size_t>(-1);
  std::unique_ptr<PhaseRun> prepare(core::Phase phase, workload::PromptSource& prompts,
                                    std::size_t count, std::size_t lane) const;
  /// Runs prepared phases together from `start` (several: the targets of --target-load each,
  /// under PerTargetSource), then stops their feeds, rethrowing what making a request threw.
  void run_phases(const std::vector<PhaseRun*>& runs, const client::RecordSink& sink,
                  core::Nanos start);
  /// The WorkQueue's schedule of a single-turn phase of `count` requests over `prompts`, each
  /// sent `per_prompt` times in a row.
  load::ArrivalSchedule phase_schedule(core::Phase phase, const workload::PromptSource& prompts,
                                       std::size_t count, std::size_t per_prompt) const;
  /// The PhaseWork of a single-turn phase over `prompts` prompts: `per_prompt` requests per
  /// prompt in the schedule.
  PhaseWork phase_work(core::Phase phase, std::size_t prompts, std::size_t count,
                       std::size_t per_prompt, bool open_loop) const;
  /// Index `index`'s request of a phase (PhaseRun's feed calls it on its own thread): `current`
  /// is the prompt at place `current_at` of the phase (kNoPrompt before the first).
  static constexpr std::uint64_t kNoPrompt = static_cast<std::uint64_t>(-1);
  Prepared make_request(workload::PromptSource& prompts, std::size_t index, std::size_t lane,
                        const PhaseWork& work, const client::ApiAdapter& adapter,
                        core::RequestSpec& current, std::uint64_t& current_at) const;
  /// This shard's part of `count` schedule indices (count itself when unbounded).
  std::size_t share(std::size_t count) const;

  const core::RunConfig& config_;
  workload::Workload workload_;
  std::size_t per_prompt_ = 1;       // requests per prompt: the targets compared
  std::int64_t ideal_block_ = 0;     // the ideal prefix cache's block (0: none modelled)
  bool each_target_ = false;         // --target-load each: a schedule per target compared
  std::vector<std::string> models_;  // each target's model
  core::RequestMix mix_;             // --lora-modules, --model-mix: the models requests name
  std::string model_;                // the model a multi-turn run's turns name
  core::RunClock clock_;
  int workers_ = 1;
  std::unique_ptr<client::HttpEngine> engine_;
  load::Shard shard_;
  StartGate gate_;
  std::atomic<std::int64_t> late_{0};  // requests due before their feed made them
  std::string failure_;                // what making a request threw (run()'s thread)
};

/// Worker threads for a run: `requested` when > 0, else one per core; never more than the
/// concurrency limit.
int choose_workers(int requested, int max_concurrency);

}  // namespace tokenbench::driver
