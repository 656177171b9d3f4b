// One measurement, told in order (Runner::run): prepare (the workload, the benchmark, the
// records), synchronize the cohort, start the progress and the telemetry, run the phases, close
// the records, merge, write the results.

#include "tokenbench/measure/runner.h"

#include <fmt/core.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <map>
#include <optional>

#include "tokenbench/core/secret_fields.h"
#include "tokenbench/core/text.h"
#include "tokenbench/measure/guards.h"
#include "tokenbench/measure/progress.h"
#include "tokenbench/measure/rank_cohort.h"
#include "tokenbench/measure/results.h"
#include "tokenbench/measure/server_hooks.h"
#include "tokenbench/measure/telemetry.h"
#include "tokenbench/metrics/token_counts.h"
#include "tokenbench/records/recorder.h"
#include "tokenbench/records/records_io.h"
#include "tokenbench/records/results_dir.h"
#include "tokenbench/telemetry/environment.h"

namespace tokenbench::measure {

/// One measurement in flight: what run()'s steps hand on to the next.
struct Measurement {
  std::map<std::string, std::string> labels;  // --label, for the environment record
  std::unique_ptr<core::RunConfig> config;    // the benchmark's: this process's share
  std::unique_ptr<driver::Benchmark> bench;
  Records records;
  core::Nanos measure_start = core::kNever;
  core::Nanos measure_end = core::kNever;
  std::optional<distributed::Merged> merged;  // a distributed run's leader: every rank's
  std::vector<std::unique_ptr<report::RunFigures>> merged_figures;  // ... and its figures, per part
  std::string stopped;  // why it stopped early (summary.json), or ""
  RunOutcome outcome;
};

namespace {

// With a tokenizer, each record's output tokens are counted as the recorder takes it.
records::Recorder::Finalizer output_token_counter(const tokenizer::Tokenizer* tokenizer) {
  if (tokenizer == nullptr) return {};
  return [tokenizer](core::RequestRecord& r) { metrics::count_output_tokens(*tokenizer, r); };
}

// "tokenbench: URL model M, 200 requests, 8 workers -> DIR" on stderr (jobs or sessions when
// --num-prompts counts them).
void say_start(const core::RunConfig& config, const driver::Benchmark& bench,
               const std::string& ranks) {
  const std::string what =
      config.targets.empty()
          ? fmt::format("{}{} model {}{}", core::redact_query(config.base_url),
                        core::redact_query(config.endpoint), core::one_line(config.model),
                        config.replica_urls.size() > 1
                            ? fmt::format(" (and {} more replicas)", config.replica_urls.size() - 1)
                            : "")
          : fmt::format("{} targets", config.targets.size());
  const std::string amount = config.num_prompts > 0
                                 ? fmt::format("{} {}{}", config.num_prompts,
                                               config.dataset == core::Dataset::kJobs ? "jobs"
                                               : config.multi_turn                    ? "sessions"
                                                                                      : "requests",
                                               config.targets.empty() ? "" : " each")
                                 : fmt::format("{} s", config.duration_s);
  std::fprintf(stderr, "tokenbench: %s, %s, %s%d worker%s -> %s\n", what.c_str(), amount.c_str(),
               ranks.c_str(), bench.workers(), bench.workers() == 1 ? "" : "s",
               config.output_dir.c_str());
}

// Each worker's read lag, when some read of the run was kernel-stamped; none otherwise (user
// stamps, libcurl: not measured, never zero).
std::vector<core::ReadLagLog> measured_read_lags(const driver::Benchmark& bench) {
  std::vector<core::ReadLagLog> lags = bench.read_lags();
  const bool any = std::any_of(lags.begin(), lags.end(),
                               [](const core::ReadLagLog& l) { return l.total.count() > 0; });
  if (!any) lags.clear();
  return lags;
}

}  // namespace

Runner::Runner(core::RunConfig& config, Options options)
    : options_(std::move(options)),
      cohort_(options_.cohort != nullptr ? options_.cohort : &alone_),
      plan_(resolve_plan(config)) {}

Runner::~Runner() {
  if (!plan_.dataset_copy.empty()) std::remove(plan_.dataset_copy.c_str());
}

RunOutcome Runner::run(const core::RunConfig& config) {
  const std::vector<Part> parts = results_parts(config);  // one results directory per target
  if (cohort_->leads() && !options_.overwrite) refuse_results_in(parts);
  Measurement m = prepare(config, parts);  // the workload, the benchmark, the records opened
  cohort_->synchronize(*m.bench, [this] { return canceled_.load(); });
  const std::unique_ptr<Progress> progress = show_progress(config, m);
  if (cohort_->leads() && config.reset_prefix_cache) {
    for (const std::string& line : reset_prefix_caches(plan_, config)) {
      if (!options_.quiet || line.find("NOT reset") != std::string::npos) {
        std::fprintf(stderr, "tokenbench: %s\n", line.c_str());
      }
    }
  }
  Telemetry watch(plan_, gpu_auto_off_);
  if (cohort_->leads()) watch.start(config, parts, m.bench->clock(), canceled_);
  run_phases(config, m, watch);
  watch.stop_gpus(config, m.measure_end, canceled_.load());
  last_bench_ = std::move(m.bench);
  last_config_ = std::move(m.config);
  if (progress) progress->stop();
  m.stopped = stop_reason(m.outcome);
  close_records(m);
  merge(config, parts, m, watch);
  if (!cohort_->leads()) return m.outcome;  // a follower's share went to the leader
  write_results(config, parts, m, watch);
  if (options_.on_saved) {
    for (const LevelResult& part : m.outcome.parts) {
      if (part.not_saved.empty()) options_.on_saved(part);
    }
  }
  return m.outcome;
}

Measurement Runner::prepare(const core::RunConfig& config, const std::vector<Part>& parts) {
  Measurement m;
  try {
    m.labels = telemetry::parse_labels(config.labels);
    // Everything that can refuse the configuration comes before the first file is written.
    workload::Workload workload = build_workload(plan_, config);
    m.config = std::make_unique<core::RunConfig>(config);
    cohort_->share(config, *m.config);
    m.bench = std::make_unique<driver::Benchmark>(*m.config, plan_.targets, std::move(workload),
                                                  plan_.tokenizer != nullptr);
    open_records(config, parts, *cohort_, output_token_counter(plan_.tokenizer.get()), m.records);
    watch_records(&m.records);
  } catch (const std::exception& e) {
    cohort_->unable(e.what());
    watch_records(nullptr);
    m.records.undo();
    throw RunError(e.what(), false);
  }
  return m;
}

std::unique_ptr<Progress> Runner::show_progress(const core::RunConfig& config,
                                                const Measurement& m) {
  if (options_.quiet || !cohort_->leads()) return nullptr;
  say_start(config, *m.bench, cohort_->ranks_label());
  // At a terminal, the live view; else (a log, CI) a plain line every --progress-interval.
  const bool terminal = isatty(STDERR_FILENO) != 0;
  if (!terminal && options_.progress_interval_s <= 0) return nullptr;
  return std::make_unique<Progress>(m.records.recorders, config, *m.bench, progress_label_,
                                    terminal, options_.progress_interval_s);
}

void Runner::run_phases(const core::RunConfig& config, Measurement& m, Telemetry& watch) {
  driver::Benchmark* const bench = m.bench.get();
  // A distributed run's measure phase ends when the last rank's does: the leader scrapes its
  // end after it gathered every rank's report (merge()).
  const auto measure_edge = [this, &m, &watch, bench, &config](bool starts) {
    (starts ? m.measure_start : m.measure_end) = bench->clock().now();
    if (starts || cohort_->alone()) watch.scrape_edge(starts);
    if (cohort_->leads()) watch.probe_edge(starts);  // one process sends the probes
    if (config.profile && cohort_->leads()) {
      for (const std::string& line : profile_servers(plan_, config, starts)) {
        std::fprintf(stderr, "tokenbench: warning: %s\n", line.c_str());
      }
    }
  };
  running_.store(bench);
  // A distributed rank always runs, canceled or not, so that it passes the common start.
  if (!canceled_.load() || !cohort_->alone()) {
    if (canceled_.load()) bench->cancel();
    auto& recorders = m.records.recorders;
    const bool split = recorders.size() > 1;
    FailFast fail_fast(config.fail_fast);
    ErrorRateGuard error_rate(config.abort_on_error_rate);
    SaturationGuard saturation(config.stop_on_saturation);
    bench->run(
        [this, &recorders, split, &fail_fast, &error_rate, &saturation,
         bench](core::RequestRecord&& r) {
          // A server may echo a credential in its error text (OpenAI echoes part of a bad key).
          if (!r.ok() && !plan_.secrets.empty())
            r.error_message = redact(std::move(r.error_message));
          if (fail_fast.observe(r) || error_rate.observe(r) || saturation.observe(r)) {
            bench->cancel();
          }
          recorders[split ? std::min<std::size_t>(r.endpoint, recorders.size() - 1) : 0]->add(
              std::move(r));
        },
        measure_edge);
    m.outcome.failed_fast = fail_fast.verdict();
    m.outcome.error_rate_stop = error_rate.verdict();
    m.outcome.saturation_stop = saturation.verdict();
    if (const std::int64_t late = bench->late_requests(); late > 0 && cohort_->leads()) {
      std::fprintf(stderr,
                   "tokenbench: warning: %lld requests were due before the client had made them "
                   "(prompts are made as the run goes); their send lag in the checks includes "
                   "that wait\n",
                   static_cast<long long>(late));
    }
  }
  running_.store(nullptr);
}

std::string Runner::stop_reason(RunOutcome& outcome) const {
  // A stop by --fail-fast or --max-error-rate is a finding about the server, not an interruption.
  const std::string& failure = last_bench_->failure();
  const std::string guard =
      !outcome.failed_fast.empty()       ? "--fail-fast: " + outcome.failed_fast
      : !outcome.error_rate_stop.empty() ? "--abort-on-error-rate: " + outcome.error_rate_stop
      : !outcome.saturation_stop.empty() ? "--stop-on-saturation: " + outcome.saturation_stop
                                         : std::string();
  // A request the client could not make ends the run early: its results are partial.
  outcome.canceled =
      canceled_.load() || !failure.empty() || (last_bench_->canceled() && guard.empty());
  if (!failure.empty()) return "the client could not make a request: " + core::one_line(failure);
  // An interruption is said as such, so that a partial result never passes for a whole one.
  return !guard.empty()     ? guard
         : canceled_.load() ? interruption()
         : outcome.canceled ? std::string("the run was stopped before its end")
                            : std::string();
}

void Runner::close_records(Measurement& m) {
  watch_records(nullptr);
  for (auto& r : m.records.recorders) r->close();
}

void Runner::merge(const core::RunConfig& config, const std::vector<Part>& parts, Measurement& m,
                   Telemetry& watch) {
  if (cohort_->alone()) return;
  const bool zstd = config.records_compress == core::RecordsCompression::kZstd;
  distributed::LeaderShare own;
  std::vector<std::string> dirs;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    own.files.push_back(m.records.recorders[i]->path());
    dirs.push_back(parts[i].config.output_dir);
  }
  own.cpu = last_bench_->cpu_samples();
  own.measure_start = m.measure_start;
  own.measure_end = m.measure_end;
  own.canceled = m.outcome.canceled;
  // The leader writes each part's merged records and folds them into its figures as they come
  // (docs/SCALE.md): none is kept.
  std::vector<std::unique_ptr<records::RecordsSink>> sinks;
  std::vector<std::string> paths;
  if (cohort_->leads()) {
    for (const auto& part : parts) {
      paths.push_back(part.config.output_dir + "/" +
                      records::requests_file_name(config.records_compress));
      sinks.push_back(
          std::make_unique<records::RecordsSink>(paths.back(), config.records_compress));
      m.merged_figures.push_back(std::make_unique<report::RunFigures>(part.config));
    }
  }
  std::vector<bool> written(sinks.size(), true);
  const auto each = [&](std::size_t p, const core::RequestRecord& r) {
    written[p] = sinks[p]->append(records::record_to_jsonl_line(r)) && written[p];
    m.merged_figures[p]->add(r);
  };
  m.merged = cohort_->merge(std::move(own), last_bench_->clock(), dirs, zstd, each);
  if (!m.merged) return;
  for (std::size_t i = 0; i < sinks.size(); ++i) {
    if (!sinks[i]->close() || !written[i]) throw std::runtime_error("cannot write " + paths[i]);
    records::write_json_file(parts[i].config.output_dir + "/" + records::kDistributedFile,
                             m.merged->distributed[i]);
  }
  watch.scrape_edge(false);  // the measure phase's end: the last rank's
  m.outcome.canceled = m.outcome.canceled || m.merged->canceled;
  m.outcome.partial = m.merged->partial;
  partial_ = partial_ || m.merged->partial;
  m.measure_start = m.merged->measure_start;
  m.measure_end = m.merged->measure_end;
}

void Runner::write_results(const core::RunConfig& config, const std::vector<Part>& parts,
                           Measurement& m, Telemetry& watch) {
  for (std::size_t i = 0; i < parts.size(); ++i) {
    records::RunNotes notes;
    notes.stopped = m.stopped;
    watch.add_notes(i, parts.size() > 1, notes);
    notes.client_cpu = m.merged ? m.merged->cpu : last_bench_->cpu_samples();
    // The ranks of a distributed run keep their read lag (distributed/ does not carry it yet).
    if (!m.merged) notes.read_lag = measured_read_lags(*last_bench_);
    if (m.merged) notes.distributed = m.merged->distributed[i];
    notes.measure_start = m.measure_start;
    notes.measure_end = m.measure_end;
    const auto& servers = plan_.servers;
    notes.environment = telemetry::environment_json(
        plan_.host, options_.command_line, config.started_at,
        servers.empty() ? nlohmann::json() : servers[std::min(i, servers.size() - 1)], watch.gpus(),
        m.labels, [this](std::string s) { return redact(std::move(s)); });
    const std::string requests_file = m.records.recorders[i]->path();
    if (!m.merged) {
      m.outcome.parts.push_back(write_part(parts[i], *m.records.figures[i], requests_file, notes));
      continue;
    }
    // A distributed run: every rank's records, merged on rank 0 (docs/SCALE.md).
    const report::RunFigures& figures = *m.merged_figures[i];
    const std::string merged_file =
        parts[i].config.output_dir + "/" + records::requests_file_name(config.records_compress);
    m.outcome.parts.push_back(write_part(parts[i], figures, merged_file, notes));
  }
}

void Runner::watch_records(const Records* records) {
  std::lock_guard<std::mutex> lock(recorders_mutex_);
  live_recorders_.clear();
  if (records == nullptr) return;
  for (const auto& r : records->recorders) live_recorders_.push_back(r.get());
}

void Runner::cancel(int signal_number) {
  if (signal_number != 0) stop_signal_.store(signal_number);
  canceled_.store(true);
  if (driver::Benchmark* b = running_.load()) b->cancel();
}

std::string Runner::interruption() const {
  if (!canceled_.load()) return "";
  const int sig = stop_signal_.load();
  const std::string by = sig == SIGINT    ? "SIGINT (Ctrl-C)"
                         : sig == SIGTERM ? "SIGTERM"
                         : sig != 0       ? fmt::format("signal {}", sig)
                                          : "a cancel";
  return by + ": the run was stopped before its end";
}

void Runner::flush_records() {
  std::lock_guard<std::mutex> lock(recorders_mutex_);
  for (records::Recorder* r : live_recorders_) {
    r->flush_now(std::chrono::seconds(1));
    // The process exits next: the room kept for a summary it will not write is given back.
    records::release_reserve(std::filesystem::path(r->path()).parent_path().string());
  }
}

}  // namespace tokenbench::measure
