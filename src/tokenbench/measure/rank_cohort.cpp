// The parts of a measurement that only a distributed run has (docs/DISTRIBUTED.md): the
// announcement and the load's share, the common start, a follower's report, records and loop,
// and the leader's merge.

#include "tokenbench/measure/rank_cohort.h"

#include <fmt/core.h>

#include <chrono>
#include <cstdio>
#include <stdexcept>

#include "tokenbench/core/run_config.h"
#include "tokenbench/core/secret_fields.h"
#include "tokenbench/core/text.h"
#include "tokenbench/distributed/record_transfer.h"
#include "tokenbench/measure/runner.h"
#include "tokenbench/records/records_io.h"
#include "tokenbench/records/records_sink.h"
#include "tokenbench/records/results_dir.h"

namespace tokenbench::measure {

RankCohort::RankCohort(std::unique_ptr<distributed::Comm> comm)
    : comm_(std::move(comm)), session_(*comm_) {}

void RankCohort::greet() {
  if (!session_.leader()) {
    session_.say_hello("");
    return;
  }
  for (const auto& a : session_.hear_hellos()) {
    std::fprintf(stderr, "tokenbench: warning: rank %d (%s) takes no part: %s\n", a.rank,
                 a.host.c_str(), core::one_line(a.why).c_str());
  }
}

void RankCohort::stand_by(const std::string& why) {
  // The leader goes on without this rank; it stays until the leader's finish, so that the
  // MPI job ends as one.
  std::fprintf(stderr, "tokenbench: error: rank %d takes no part: %s\n", session_.rank(),
               why.c_str());
  session_.say_hello(why);
  while (session_.await_level({})) {
  }
}

int RankCohort::follow(Runner& runner, const core::RunConfig& own) {
  while (const auto level = session_.await_level([&runner] { return runner.canceled(); })) {
    try {
      // The announcement is config.yaml's text, which never carries a credential: the values it
      // redacted come from this rank's own command line, the same as the leader's.
      runner.run(core::with_secrets_of(core::run_config_from_yaml(*level), own));
    } catch (const std::exception& e) {
      // The leader hears why from this rank's report; say it here too, for its host's log.
      std::fprintf(stderr, "tokenbench: rank %d: %s\n", session_.rank(),
                   core::one_line(e.what()).c_str());
    }
  }
  return session_.leader_lost() ? 2 : 0;
}

std::string RankCohort::who() const {
  return session_.leader() ? "" : fmt::format("rank {}: ", session_.rank());
}

void RankCohort::finish(int exit_code) {
  if (session_.leader()) session_.finish(exit_code);
  comm_->close(exit_code);
}

std::string RankCohort::ranks_label() const {
  return fmt::format("{} ranks x ", session_.shard().stride);
}

void RankCohort::share(const core::RunConfig& config, core::RunConfig& own) {
  if (session_.leader()) {
    session_.announce_level(core::to_yaml(config));
    announced_ = true;
  }
  const load::Shard shard = session_.shard();
  // --max-concurrency is global: each member takes its part of the slots.
  if (config.max_concurrency > 0) {
    const auto total = static_cast<std::size_t>(config.max_concurrency);
    if (total < shard.stride) {
      throw std::runtime_error(fmt::format(
          "--max-concurrency {} is less than the {} ranks measuring: give each rank at least "
          "one slot, or start fewer ranks",
          total, shard.stride));
    }
    own.max_concurrency =
        static_cast<int>(total / shard.stride + (shard.first < total % shard.stride ? 1 : 0));
  }
  if (!session_.leader()) {  // the leader alone watches the server and the GPUs
    own.server_metrics = {"off"};
    own.gpu_metrics = {core::GpuMetricsSource::Mode::kOff, ""};
  }
}

std::string RankCohort::records_file(records::RecordsCompression compression) const {
  // Each rank of a distributed run writes its own; the leader merges them.
  return distributed::rank_records_file(session_.rank(),
                                        compression == records::RecordsCompression::kZstd);
}

void RankCohort::unable(const std::string& why) {
  const bool announced = announced_;
  announced_ = false;
  // A follower's measurement that could not start, or the leader's once announced: it still
  // passes the common start and reports, so that the leader waits for nobody.
  if (session_.leader() && !announced) return;
  const core::RunClock clock;
  session_.common_start(clock, why, [] { return false; });
  if (session_.leader()) return;
  distributed::RankReport r;
  r.rank = session_.rank();
  r.host = session_.host();
  r.error = why;
  session_.send_report(r);
}

void RankCohort::synchronize(driver::Benchmark& bench, std::function<bool()> canceled) {
  announced_ = false;
  common_start_ = core::kNever;
  driver::Benchmark* b = &bench;
  bench.distribute(session_.shard(), [this, b, canceled = std::move(canceled)] {
    const auto start = session_.common_start(b->clock(), "", canceled);
    if (!start) {  // the leader could not start this measurement: nothing to measure
      b->cancel();
      return b->clock().now();
    }
    common_start_ = *start;
    return *start;
  });
}

std::optional<distributed::Merged> RankCohort::merge(distributed::LeaderShare own,
                                                     const core::RunClock& clock,
                                                     const std::vector<std::string>& dirs,
                                                     bool zstd,
                                                     const distributed::MergedRecord& each) {
  if (common_start_ != core::kNever) own.measure_start = common_start_;
  if (!session_.leader()) {
    session_.send_report(rank_report(session_, clock, own));
    distributed::serve_records(session_.comm(), own.files);
    return std::nullopt;
  }
  const bool canceled = own.canceled;
  return distributed::merge_level(session_, std::move(own), session_.gather_reports(canceled), dirs,
                                  zstd, each);
}

distributed::RankReport rank_report(const distributed::Session& session,
                                    const core::RunClock& clock,
                                    const distributed::LeaderShare& share) {
  distributed::RankReport r;
  r.rank = session.rank();
  r.host = session.host();
  r.canceled = share.canceled;
  r.origin_ns = clock.origin_ns();
  r.measure_start = share.measure_start;
  r.measure_end = share.measure_end;
  r.cpu = share.cpu;
  return r;
}

}  // namespace tokenbench::measure
