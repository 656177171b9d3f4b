#include "tokenbench/driver/benchmark.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <thread>

#include "tokenbench/client/api_adapter.h"
#include "tokenbench/client/request_id.h"
#include "tokenbench/driver/per_target_source.h"
#include "tokenbench/driver/schedule_source.h"
#include "tokenbench/driver/session_driver.h"
#include "tokenbench/driver/session_source.h"
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
  return options;
}

std::vector<std::string> build_bodies(const std::vector<core::RequestSpec>& specs,
                                      const core::RunConfig& config,
                                      const std::vector<Target>& targets, bool stream) {
  const auto adapter = client::make_adapter(config.api);
  client::BodyOptions options = body_options(config, stream);
  std::vector<std::string> bodies;
  bodies.reserve(specs.size());
  for (const auto& spec : specs) {
    const std::string& model = targets.at(spec.target).model;
    options.model = model.empty() ? config.model : model;
    if (!config.lora_modules.empty()) {
      options.model = config.lora_modules[lora_choice(
          config.lora_modules.size(), config.lora_assignment, config.seed, spec.id)];
    }
    bodies.push_back(adapter->build_body(spec, options));
  }
  return bodies;
}

// Every spec once per target, target-minor: the targets see the same prompts in the same order.
std::vector<core::RequestSpec> interleave(const std::vector<core::RequestSpec>& specs,
                                          std::size_t targets) {
  std::vector<core::RequestSpec> out;
  out.reserve(specs.size() * targets);
  for (const auto& spec : specs) {
    for (std::size_t t = 0; t < targets; ++t) {
      out.push_back(spec);
      out.back().id = spec.id * targets + t;
      out.back().target = static_cast<std::uint32_t>(t);
    }
  }
  return out;
}

}  // namespace

int choose_workers(int requested, int max_concurrency) {
  int n = requested > 0 ? requested
                        : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  if (max_concurrency > 0) n = std::min(n, max_concurrency);
  return std::max(1, n);
}

std::size_t lora_choice(std::size_t count, core::LoraAssignment assignment, std::uint64_t seed,
                        std::uint64_t index) {
  if (count == 0) return 0;
  if (assignment == core::LoraAssignment::kRoundRobin) return index % count;
  // splitmix64 of (seed, index): independent draws, one per request index.
  std::uint64_t z = seed + 0x9E3779B97F4A7C15ULL * (index + 1);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return static_cast<std::size_t>((z ^ (z >> 31)) % count);
}

Benchmark::Benchmark(const core::RunConfig& config, std::vector<Target> targets,
                     workload::Workload workload, bool keep_text)
    : config_(config), workload_(std::move(workload)) {
  if (targets.empty()) throw std::invalid_argument("a benchmark needs a target");
  if (workload_.measure.empty() && workload_.sessions.empty()) {
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
  if (compare_targets) {
    per_prompt_ = targets.size();
    workload_.warmup = interleave(workload_.warmup, per_prompt_);
    workload_.measure = interleave(workload_.measure, per_prompt_);
  }
  warmup_bodies_ = build_bodies(workload_.warmup, config, targets, config.stream);
  measure_bodies_ = build_bodies(workload_.measure, config, targets, config.stream);
  if (config.stream && config.nonstream_sample > 0) {
    measure_whole_bodies_ = build_bodies(workload_.measure, config, targets, false);
  }
  model_ = targets.front().model.empty() ? config.model : targets.front().model;
  int max_concurrency = config.max_concurrency;
  if (compare_targets && config.target_load == core::TargetLoad::kEach) {
    // Each target its own schedule and slots: the interleaved specs dealt back out by target.
    lanes_.resize(per_prompt_);
    for (std::size_t i = 0; i < workload_.measure.size(); ++i) {
      Lane& lane = lanes_[i % per_prompt_];
      lane.specs.push_back(workload_.measure[i]);
      lane.bodies.push_back(measure_bodies_[i]);
      if (!measure_whole_bodies_.empty()) lane.whole_bodies.push_back(measure_whole_bodies_[i]);
    }
    if (max_concurrency > 0) max_concurrency *= static_cast<int>(per_prompt_);
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
  engine_ = std::make_unique<client::HttpEngine>(std::move(engine), clock_);
}

std::size_t Benchmark::share(std::size_t count) const { return shard_.size_of(count); }

void Benchmark::run(const client::RecordSink& sink, const MeasureHook& hook) {
  // Connections first, so that no request of any phase pays for TCP set-up.
  engine_->preopen(config_.num_prompts > 0 ? share(static_cast<std::size_t>(config_.num_prompts) *
                                                   std::max<std::size_t>(1, per_prompt_))
                                           : ArrivalSchedule::kUnbounded,
                   config_.connect_timeout_s);
  if (config_.multi_turn) {
    if (!workload_.warmup_sessions.empty()) {
      run_sessions(core::Phase::kWarmup, workload_.warmup_sessions,
                   workload_.warmup_sessions.size(), sink, clock_.now());
    }
    core::Nanos start = gate_ ? gate_() : core::kNever;
    if (engine_->canceled()) return;
    if (hook) hook(true);
    if (!gate_) start = clock_.now();
    run_sessions(core::Phase::kMeasure, workload_.sessions,
                 config_.num_prompts > 0 ? static_cast<std::size_t>(config_.num_prompts)
                                         : ArrivalSchedule::kUnbounded,
                 sink, start);
    if (hook) hook(false);
    return;
  }
  if (!workload_.warmup.empty()) {
    run_phase(core::Phase::kWarmup, workload_.warmup, warmup_bodies_, workload_.warmup.size(), sink,
              clock_.now());
  }
  core::Nanos start = gate_ ? gate_() : core::kNever;
  if (engine_->canceled()) return;
  const std::size_t count = config_.num_prompts > 0
                                ? static_cast<std::size_t>(config_.num_prompts) * per_prompt_
                                : ArrivalSchedule::kUnbounded;
  if (hook) hook(true);
  if (!gate_) start = clock_.now();
  if (lanes_.empty()) {
    run_phase(core::Phase::kMeasure, workload_.measure, measure_bodies_, count, sink, start);
  } else {
    run_each_target(count == ArrivalSchedule::kUnbounded ? count : count / per_prompt_, sink,
                    start);
  }
  if (hook) hook(false);
}

void Benchmark::run_sessions(core::Phase phase, const std::vector<workload::Session>& sessions,
                             std::size_t count, const client::RecordSink& sink, core::Nanos start) {
  const bool open_loop = phase == core::Phase::kMeasure && !std::isinf(config_.request_rate);
  // Sessions arrive as requests do in a single-turn run: at once, or at --request-rate.
  const ArrivalSchedule schedule =
      open_loop ? ArrivalSchedule::open_loop(count, config_.duration_s, config_.request_rate,
                                             config_.arrival, config_.burstiness, config_.seed)
                : ArrivalSchedule::immediate(count);
  const core::Nanos deadline = phase == core::Phase::kMeasure && config_.duration_s > 0
                                   ? start + core::saturated_nanos(config_.duration_s)
                                   : core::kNever;
  SessionOptions options;
  options.shard = load::Shard{shard_.first, shard_.stride, 1};
  options.api = config_.api;
  options.body = body_options(config_, config_.stream);
  options.body.model = model_;
  options.think = load::parse_think_time(config_.think_time);
  options.seed = config_.seed;
  if (config_.concurrency_unit == core::ConcurrencyUnit::kSession && config_.max_concurrency > 0) {
    options.max_sessions = static_cast<std::size_t>(config_.max_concurrency);
  }
  SessionDriver driver(sessions, schedule, start, deadline, std::move(options));
  SessionSource source(driver, start, phase, open_loop);
  std::size_t turns = 0;
  for (const auto& s : sessions) turns += s.turns.size();
  engine_->run_phase(
      source, count == ArrivalSchedule::kUnbounded ? count : turns * share(count) / sessions.size(),
      sink);
}

ArrivalSchedule Benchmark::phase_schedule(core::Phase phase,
                                          const std::vector<core::RequestSpec>& specs,
                                          std::size_t count) const {
  const bool replay = phase == core::Phase::kMeasure && config_.replay;
  if (replay) {
    // The trace's own clock, from its first measured request; the trace is not cycled.
    std::vector<double> times;
    times.reserve(specs.size());
    for (const auto& s : specs) times.push_back(s.trace_s);
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

PhaseWork Benchmark::phase_work(core::Phase phase, const std::vector<core::RequestSpec>& specs,
                                const std::vector<std::string>& bodies,
                                const std::vector<std::string>& whole_bodies, std::size_t count,
                                std::size_t per_prompt, core::Nanos start, bool open_loop) const {
  PhaseWork work;
  work.specs = &specs;
  work.bodies = &bodies;
  work.phase = phase;
  work.id_base = 0;  // each phase numbers its requests from 0: measured ids are 0 .. N-1
  work.open_loop = open_loop;
  if (phase == core::Phase::kMeasure && !whole_bodies.empty()) {
    // Picked by prompt, so that every target compared gets the same prompts non-streamed; a
    // --duration run picks among the prompts it cycles through.
    work.nonstream_bodies = &whole_bodies;
    work.sample_count = static_cast<std::size_t>(config_.nonstream_sample);
    work.per_prompt = per_prompt;
    work.sample_prompts =
        count != ArrivalSchedule::kUnbounded ? count / per_prompt : specs.size() / per_prompt;
  }
  if (phase == core::Phase::kMeasure && config_.drop_first_pct > 0) {
    const double fraction = config_.drop_first_pct / 100.0;
    if (count != ArrivalSchedule::kUnbounded) {
      // Whole prompts, so that every target compared leaves out the same ones.
      work.drop_count =
          static_cast<std::size_t>(std::ceil(fraction * static_cast<double>(count / per_prompt))) *
          per_prompt;
    } else {
      work.drop_before = start + core::saturated_nanos(fraction * config_.duration_s);
    }
  }
  return work;
}

void Benchmark::run_phase(core::Phase phase, const std::vector<core::RequestSpec>& specs,
                          const std::vector<std::string>& bodies, std::size_t count,
                          const client::RecordSink& sink, core::Nanos start) {
  const bool open_loop =
      phase == core::Phase::kMeasure && (config_.replay || !std::isinf(config_.request_rate));
  const ArrivalSchedule schedule = phase_schedule(phase, specs, count);
  const core::Nanos deadline = phase == core::Phase::kMeasure && config_.duration_s > 0
                                   ? start + core::saturated_nanos(config_.duration_s)
                                   : core::kNever;
  load::WorkQueue queue(schedule, start, deadline, shard_);
  ScheduleSource source(queue, phase_work(phase, specs, bodies, measure_whole_bodies_, count,
                                          per_prompt_, start, open_loop));
  engine_->run_phase(source, share(schedule.size()), sink);
}

void Benchmark::run_each_target(std::size_t count, const client::RecordSink& sink,
                                core::Nanos start) {
  const bool open_loop = config_.replay || !std::isinf(config_.request_rate);
  const core::Nanos deadline =
      config_.duration_s > 0 ? start + core::saturated_nanos(config_.duration_s) : core::kNever;
  const load::Shard shard{shard_.first, shard_.stride, 1};
  std::vector<ArrivalSchedule> schedules;
  std::vector<std::unique_ptr<load::WorkQueue>> queues;
  std::vector<std::unique_ptr<ScheduleSource>> sources;
  std::vector<client::RequestSource*> lanes;
  schedules.reserve(lanes_.size());  // the queues keep references to them
  std::size_t total = 0;
  for (std::size_t t = 0; t < lanes_.size(); ++t) {
    const Lane& lane = lanes_[t];
    schedules.push_back(phase_schedule(core::Phase::kMeasure, lane.specs, count));
    queues.push_back(std::make_unique<load::WorkQueue>(schedules.back(), start, deadline, shard));
    PhaseWork work = phase_work(core::Phase::kMeasure, lane.specs, lane.bodies, lane.whole_bodies,
                                count, 1, start, open_loop);
    work.id_base = t;
    work.id_stride = lanes_.size();
    sources.push_back(std::make_unique<ScheduleSource>(*queues.back(), work));
    lanes.push_back(sources.back().get());
    const std::size_t n = shard.size_of(schedules.back().size());
    total = n == ArrivalSchedule::kUnbounded || total == ArrivalSchedule::kUnbounded
                ? ArrivalSchedule::kUnbounded
                : total + n;
  }
  PerTargetSource source(std::move(lanes), config_.max_concurrency > 0
                                               ? static_cast<std::size_t>(config_.max_concurrency)
                                               : 0);
  engine_->run_phase(source, total, sink);
}

}  // namespace tokenbench::driver
