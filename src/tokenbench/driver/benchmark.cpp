#include "tokenbench/driver/benchmark.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <thread>

#include "tokenbench/client/api_adapter.h"
#include "tokenbench/client/request_id.h"
#include "tokenbench/core/ideal_cache.h"
#include "tokenbench/driver/job_driver.h"
#include "tokenbench/driver/per_target_source.h"
#include "tokenbench/driver/schedule_source.h"
#include "tokenbench/driver/session_driver.h"
#include "tokenbench/driver/unit_source.h"
#include "tokenbench/load/arrival_schedule.h"
#include "tokenbench/load/work_queue.h"

namespace tokenbench::driver {

using load::ArrivalSchedule;
static_assert(ArrivalSchedule::kUnbounded == client::kUnboundedCount);

namespace {

client::BodyOptions body_options(const core::RunConfig& config, bool stream) {
  client::BodyOptions options;
  options.model = config.model;
  options.stream = stream;
  options.ignore_eos = config.ignore_eos;
  options.max_tokens_field = config.max_tokens_field;
  options.extra_body = config.extra_body;
  options.continuous_usage = config.continuous_usage;
  return options;
}

// Requests a phase's feed makes ahead of its schedule (workload::made_ahead), never more than the
// phase has: held prompts say what a request costs, else the configuration does.
std::size_t feed_capacity(const core::RunConfig& config, const workload::PromptSource& prompts,
                          std::size_t requests) {
  std::int64_t bytes = workload::request_bytes(config);
  if (const auto* held = prompts.held(); held != nullptr && !held->empty()) {
    std::int64_t text = 0;
    for (const auto& spec : *held) {
      text += static_cast<std::int64_t>(spec.prompt.size() + spec.messages_json.size());
    }
    bytes = workload::request_bytes(text / static_cast<std::int64_t>(held->size()), config);
  }
  return std::max<std::size_t>(1, std::min(workload::made_ahead(bytes), requests));
}

}  // namespace

struct Benchmark::PhaseRun {
  core::Phase phase = core::Phase::kMeasure;
  std::size_t count = 0;  // requests asked for (kUnbounded: until the deadline)
  std::unique_ptr<workload::PromptSource> own;  // a target's own copy of the prompts
  ArrivalSchedule schedule;
  load::Shard shard;
  PhaseWork work;
  std::unique_ptr<RequestFeed> feed;
  std::unique_ptr<load::WorkQueue> queue;
  std::unique_ptr<ScheduleSource> source;
};

int choose_workers(int requested, int max_concurrency) {
  int n = requested > 0 ? requested
                        : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  if (max_concurrency > 0) n = std::min(n, max_concurrency);
  return std::max(1, n);
}

Benchmark::Benchmark(const core::RunConfig& config, std::vector<Target> targets,
                     workload::Workload workload, bool keep_text)
    : config_(config), workload_(std::move(workload)) {
  if (targets.empty()) throw std::invalid_argument("a benchmark needs a target");
  if (workload_.measure == nullptr && workload_.sessions.empty() && workload_.jobs.empty()) {
    throw std::invalid_argument("the workload has no requests");
  }
  if (config.num_prompts <= 0 && !(config.duration_s > 0)) {
    throw std::invalid_argument("give --num-prompts N or --duration SECONDS");
  }
  if (config.num_prompts <= 0 && std::isinf(config.request_rate) && config.max_concurrency <= 0) {
    throw std::invalid_argument(
        "--duration with an unlimited request rate needs --max-concurrency N (or --request-rate)");
  }
  const bool compare_targets = !config.targets.empty() && targets.size() > 1;
  if (compare_targets) per_prompt_ = targets.size();
  for (const Target& t : targets) models_.push_back(t.model.empty() ? config.model : t.model);
  model_ = models_.front();
  mix_ = core::request_mix(config);
  int max_concurrency = config.max_concurrency;
  if (compare_targets && config.target_load == core::TargetLoad::kEach) {
    each_target_ = true;  // each target its own schedule and slots
    if (max_concurrency > 0) max_concurrency *= static_cast<int>(per_prompt_);
  }
  if (!workload_.jobs.empty() && config.concurrency_unit == core::ConcurrencyUnit::kSession) {
    max_concurrency = 0;  // --max-concurrency counts jobs (JobDriver), not calls in flight
  }
  workers_ = choose_workers(config.workers, max_concurrency);
  client::EngineConfig engine;
  for (Target& t : targets) {
    engine.endpoints.push_back(
        {(t.base_url.empty() ? config.base_url : t.base_url) + config.endpoint,
         std::move(t.headers)});
  }
  engine.routing = compare_targets ? client::Routing::kBySpec
                   : config.balance == core::BalanceKind::kLeastInflight
                       ? client::Routing::kLeastInflight
                       : client::Routing::kRoundRobin;
  engine.api = config.api;
  engine.stream = config.stream;
  engine.timeout_s = config.timeout_s;
  engine.connect_timeout_s = config.connect_timeout_s;
  engine.native_transport = config.transport != core::TransportMode::kCurl;
  engine.kernel_stamps = config.stamps != core::StampsMode::kUser;
  engine.per_request_connections = config.connection_mode == core::ConnectionMode::kPerRequest;
  engine.http2 = config.http2;
  engine.tls = {config.ca_file, config.insecure};
  engine.http2_streams = static_cast<std::uint32_t>(config.http2_streams);
  engine.ttft_timeout_s = config.ttft_timeout_s;
  engine.stall_timeout_s = config.stall_timeout_s;
  engine.max_event_bytes = static_cast<std::size_t>(config.max_event_bytes);
  engine.max_reply_bytes = config.max_reply_bytes;
  engine.retries = config.retries;
  engine.seed = config.seed;
  engine.request_ids = config.request_id;
  engine.run_id = client::new_run_id();
  engine.workers = workers_;
  engine.max_concurrency = max_concurrency;
  engine.keep_text = keep_text || config.save_detailed;
  engine.keep_prompt = config.save_detailed;
  ideal_block_ = core::ideal_cache_block(config);
  if (ideal_block_ > 0) engine.ideal_cache = std::make_shared<core::IdealCache>(ideal_block_);
  engine_ = std::make_unique<client::HttpEngine>(std::move(engine), clock_);
}

std::size_t Benchmark::share(std::size_t count) const { return shard_.size_of(count); }

void Benchmark::run(const client::RecordSink& sink, const MeasureHook& hook) {
  // Connections first, so that no request of any phase pays for TCP set-up.
  engine_->preopen(config_.num_prompts > 0 ? share(static_cast<std::size_t>(config_.num_prompts) *
                                                   std::max<std::size_t>(1, per_prompt_))
                                           : ArrivalSchedule::kUnbounded,
                   config_.connect_timeout_s);
  // Jobs and sessions: warmup's units, then the measured ones (--num-prompts of them).
  const auto run_units = [&](const auto& warmup, const auto& measured, auto run_phase) {
    if (!warmup.empty()) run_phase(core::Phase::kWarmup, warmup, warmup.size(), clock_.now());
    core::Nanos start = gate_ ? gate_() : core::kNever;
    if (engine_->canceled()) return;
    if (hook) hook(true);
    if (!gate_) start = clock_.now();
    run_phase(core::Phase::kMeasure, measured,
              config_.num_prompts > 0 ? static_cast<std::size_t>(config_.num_prompts)
                                      : ArrivalSchedule::kUnbounded,
              start);
    if (hook) hook(false);
  };
  if (!workload_.jobs.empty()) {
    return run_units(workload_.warmup_jobs, workload_.jobs,
                     [&](core::Phase phase, const auto& jobs, std::size_t n, core::Nanos start) {
                       run_jobs(phase, jobs, n, sink, start);
                     });
  }
  if (config_.multi_turn) {
    return run_units(workload_.warmup_sessions, workload_.sessions,
                     [&](core::Phase phase, const auto& sessions, std::size_t n,
                         core::Nanos start) { run_sessions(phase, sessions, n, sink, start); });
  }
  const std::size_t count = config_.num_prompts > 0
                                ? static_cast<std::size_t>(config_.num_prompts) * per_prompt_
                                : ArrivalSchedule::kUnbounded;
  // The measured requests are made while warmup runs.
  std::vector<std::unique_ptr<PhaseRun>> measure;
  if (each_target_) {
    for (std::size_t t = 0; t < per_prompt_; ++t) {
      measure.push_back(prepare(core::Phase::kMeasure, *workload_.measure,
                                count == ArrivalSchedule::kUnbounded ? count : count / per_prompt_,
                                t));
    }
  } else {
    measure.push_back(prepare(core::Phase::kMeasure, *workload_.measure, count, kAllTargets));
  }
  if (workload_.warmup != nullptr) {
    const auto warmup = prepare(core::Phase::kWarmup, *workload_.warmup,
                                workload_.warmup->size() * per_prompt_, kAllTargets);
    warmup->feed->wait_full();
    run_phases({warmup.get()}, sink, clock_.now());
    if (!failure_.empty()) engine_->cancel();  // (a distributed rank still passes the gate)
  }
  for (const auto& lane : measure) lane->feed->wait_full();
  core::Nanos start = gate_ ? gate_() : core::kNever;
  if (engine_->canceled()) return;
  if (hook) hook(true);
  if (!gate_) start = clock_.now();
  std::vector<PhaseRun*> runs;
  runs.reserve(measure.size());
  for (const auto& lane : measure) runs.push_back(lane.get());
  run_phases(runs, sink, start);
  if (hook) hook(false);
}

Benchmark::UnitPhase Benchmark::unit_phase(core::Phase phase, std::size_t count,
                                           core::Nanos start) const {
  // Sessions and jobs arrive as requests do in a single-turn run: at once, or at --request-rate.
  const bool open_loop = phase == core::Phase::kMeasure && !std::isinf(config_.request_rate);
  return UnitPhase{
      open_loop,
      open_loop ? ArrivalSchedule::open_loop(count, config_.duration_s, config_.request_rate,
                                             config_.arrival, config_.burstiness, config_.seed)
                : ArrivalSchedule::immediate(count),
      phase == core::Phase::kMeasure && config_.duration_s > 0
          ? start + core::saturated_nanos(config_.duration_s)
          : core::kNever};
}

UnitOptions Benchmark::unit_options() const {
  UnitOptions options;
  options.shard = load::Shard{shard_.first, shard_.stride, 1};
  options.api = config_.api;
  options.body = body_options(config_, config_.stream);
  options.body.model = model_;
  options.ideal_block = ideal_block_;
  if (config_.concurrency_unit == core::ConcurrencyUnit::kSession && config_.max_concurrency > 0) {
    options.max_units = static_cast<std::size_t>(config_.max_concurrency);
  }
  return options;
}

void Benchmark::run_sessions(core::Phase phase, const std::vector<workload::Session>& sessions,
                             std::size_t count, const client::RecordSink& sink, core::Nanos start) {
  const UnitPhase p = unit_phase(phase, count, start);
  SessionOptions options{unit_options(), load::parse_think_time(config_.think_time), config_.seed};
  SessionDriver driver(sessions, p.schedule, start, p.deadline, std::move(options));
  UnitSource<SessionDriver> source(driver, start, phase, p.open_loop);
  std::size_t turns = 0;
  for (const auto& s : sessions) turns += s.turns.size();
  engine_->run_phase(
      source, count == ArrivalSchedule::kUnbounded ? count : turns * share(count) / sessions.size(),
      sink);
}

void Benchmark::run_jobs(core::Phase phase, const std::vector<workload::Job>& jobs,
                         std::size_t count, const client::RecordSink& sink, core::Nanos start) {
  const UnitPhase p = unit_phase(phase, count, start);
  JobOptions options = unit_options();
  JobDriver driver(jobs, p.schedule, start, p.deadline, std::move(options));
  UnitSource<JobDriver> source(driver, start, phase, p.open_loop);
  std::size_t calls = 0;
  for (const auto& j : jobs) calls += j.calls.size();
  engine_->run_phase(
      source, count == ArrivalSchedule::kUnbounded ? count : calls * share(count) / jobs.size(),
      sink);
}

ArrivalSchedule Benchmark::phase_schedule(core::Phase phase, const workload::PromptSource& prompts,
                                          std::size_t count, std::size_t per_prompt) const {
  const bool replay = phase == core::Phase::kMeasure && config_.replay;
  if (replay) {
    // The trace's own clock, from its first measured request; the trace is not cycled.
    const auto* held = prompts.held();
    if (held == nullptr) throw std::invalid_argument("--replay needs a dataset with times");
    std::vector<double> times;
    times.reserve(held->size() * per_prompt);
    for (const auto& s : *held) times.insert(times.end(), per_prompt, s.trace_s);
    return ArrivalSchedule::replay(times, count, config_.duration_s, config_.replay_speed);
  }
  // Warmup warms connections and caches; it runs closed-loop and is never rate-limited.
  if (phase == core::Phase::kMeasure && !std::isinf(config_.request_rate)) {
    return ArrivalSchedule::open_loop(
        count, config_.duration_s, config_.request_rate, config_.arrival, config_.burstiness,
        config_.seed,
        load::Ramp{config_.ramp_up, config_.ramp_up_start_rps, config_.ramp_up_duration_s});
  }
  return ArrivalSchedule::immediate(count);
}

PhaseWork Benchmark::phase_work(core::Phase phase, std::size_t prompts, std::size_t count,
                                std::size_t per_prompt, bool open_loop) const {
  PhaseWork work;
  work.phase = phase;
  work.id_base = 0;  // each phase numbers its requests from 0: measured ids are 0 .. N-1
  work.open_loop = open_loop;
  if (phase == core::Phase::kMeasure && config_.stream && config_.nonstream_sample > 0) {
    // Picked by prompt, so that every target compared gets the same prompts non-streamed; a
    // --duration run picks among the prompts it cycles through.
    work.sample_count = static_cast<std::size_t>(config_.nonstream_sample);
    work.per_prompt = per_prompt;
    work.sample_prompts = count != ArrivalSchedule::kUnbounded ? count / per_prompt : prompts;
  }
  if (phase == core::Phase::kMeasure && config_.drop_first_pct > 0 &&
      count != ArrivalSchedule::kUnbounded) {
    // Whole prompts, so that every target compared leaves out the same ones (a --duration run
    // leaves out a time instead: run_phases).
    const double fraction = config_.drop_first_pct / 100.0;
    work.drop_count =
        static_cast<std::size_t>(std::ceil(fraction * static_cast<double>(count / per_prompt))) *
        per_prompt;
  }
  return work;
}

std::unique_ptr<Benchmark::PhaseRun> Benchmark::prepare(core::Phase phase,
                                                        workload::PromptSource& prompts,
                                                        std::size_t count, std::size_t lane) const {
  auto run = std::make_unique<PhaseRun>();
  run->phase = phase;
  run->count = count;
  workload::PromptSource* source = &prompts;
  if (lane != kAllTargets) {
    run->own = prompts.restart();
    source = run->own.get();
  }
  const std::size_t per = lane == kAllTargets ? per_prompt_ : 1;
  // A prompt's requests to every target compared go from one rank.
  run->shard = load::Shard{shard_.first, shard_.stride, per};
  run->schedule = phase_schedule(phase, *source, count, per);
  const bool open_loop =
      phase == core::Phase::kMeasure && (config_.replay || !std::isinf(config_.request_rate));
  run->work = phase_work(phase, source->size(), count, per, open_loop);
  if (lane != kAllTargets) {  // target t of T numbers its requests t, t + T, ...
    run->work.id_base = lane;
    run->work.id_stride = per_prompt_;
  }
  const std::shared_ptr<const client::ApiAdapter> adapter = client::make_adapter(config_.api);
  run->feed = std::make_unique<RequestFeed>(
      run->shard, run->schedule.size(),
      feed_capacity(config_, *source, run->shard.size_of(run->schedule.size())),
      [this, source, lane, work = run->work, adapter, current = core::RequestSpec{},
       at = kNoPrompt](std::size_t index) mutable {
        return make_request(*source, index, lane, work, *adapter, current, at);
      });
  run->work.feed = run->feed.get();
  return run;
}

Prepared Benchmark::make_request(workload::PromptSource& prompts, std::size_t index,
                                 std::size_t lane, const PhaseWork& work,
                                 const client::ApiAdapter& adapter, core::RequestSpec& current,
                                 std::uint64_t& current_at) const {
  const std::size_t per = lane == kAllTargets ? per_prompt_ : 1;
  const std::uint64_t wanted = index / per;  // the prompt's place in the phase
  while (current_at == kNoPrompt || current_at < wanted) {
    current = prompts.next();
    current_at = current_at == kNoPrompt ? 0 : current_at + 1;
  }
  Prepared made;
  if (per_prompt_ == 1) {
    made.spec = std::move(current);  // each prompt is sent once
  } else {
    // Every prompt once per target, target-minor: the targets see the same prompts in order.
    const std::size_t target = lane == kAllTargets ? index % per_prompt_ : lane;
    made.spec = current;
    made.spec.id = current.id * per_prompt_ + target;
    made.spec.target = static_cast<std::uint32_t>(target);
  }
  client::BodyOptions options = body_options(config_, config_.stream && !work.nonstream(index));
  options.model = models_.at(made.spec.target);
  if (!mix_.empty()) {
    // Keyed by the request's place in its phase, not its prompt's id: a dataset shorter than
    // the run repeats its prompts, and each repeat must still take its turn in the mix.
    const std::size_t member =
        core::mix_choice(mix_, config_.lora_assignment, config_.seed, wanted);
    options.model = mix_.names[member];
    made.spec.mix = static_cast<std::int32_t>(member);
  }
  made.body = adapter.build_body(made.spec, options);
  core::set_prefix_blocks(made.spec, ideal_block_);
  return made;
}

void Benchmark::run_phases(const std::vector<PhaseRun*>& runs, const client::RecordSink& sink,
                           core::Nanos start) {
  const core::Phase phase = runs.front()->phase;
  const core::Nanos deadline = phase == core::Phase::kMeasure && config_.duration_s > 0
                                   ? start + core::saturated_nanos(config_.duration_s)
                                   : core::kNever;
  std::vector<client::RequestSource*> sources;
  std::size_t total = 0;
  for (PhaseRun* run : runs) {
    if (phase == core::Phase::kMeasure && config_.drop_first_pct > 0 &&
        run->count == ArrivalSchedule::kUnbounded) {
      run->work.drop_before =
          start + core::saturated_nanos(config_.drop_first_pct / 100.0 * config_.duration_s);
    }
    run->queue = std::make_unique<load::WorkQueue>(run->schedule, start, deadline, run->shard);
    run->source = std::make_unique<ScheduleSource>(*run->queue, run->work);
    sources.push_back(run->source.get());
    const std::size_t n = run->shard.size_of(run->schedule.size());
    total = n == ArrivalSchedule::kUnbounded || total == ArrivalSchedule::kUnbounded
                ? ArrivalSchedule::kUnbounded
                : total + n;
  }
  if (runs.size() == 1) {
    engine_->run_phase(*sources.front(), total, sink);
  } else {  // --target-load each: every target its own schedule and slots
    PerTargetSource source(sources, config_.max_concurrency > 0
                                        ? static_cast<std::size_t>(config_.max_concurrency)
                                        : 0);
    engine_->run_phase(source, total, sink);
  }
  for (PhaseRun* run : runs) {
    run->feed->stop();
    late_.fetch_add(run->feed->lates(), std::memory_order_relaxed);
    try {
      run->feed->rethrow_error();
    } catch (const std::exception& e) {
      if (failure_.empty()) failure_ = e.what();
    }
  }
}

}  // namespace tokenbench::driver
