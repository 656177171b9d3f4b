// The parts of a measurement that only a distributed run has (docs/DISTRIBUTED.md): a
// follower's report and loop, and the leader's merged files. Runner::run calls them.

#include "tokenbench/experiment/distributed_run.h"

#include <chrono>
#include <cstdio>

#include "tokenbench/core/run_config.h"
#include "tokenbench/core/secret_fields.h"
#include "tokenbench/core/text.h"
#include "tokenbench/experiment/runner.h"
#include "tokenbench/records/records_io.h"
#include "tokenbench/records/records_sink.h"
#include "tokenbench/records/results_dir.h"

namespace tokenbench::experiment {

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
  for (const auto& part : share.parts) {
    std::string lines;
    for (const auto& record : part) lines += records::record_to_jsonl_line(record);
    r.parts.push_back(std::move(lines));
  }
  return r;
}

void write_merged_records(const std::string& dir, const std::vector<core::RequestRecord>& records,
                          bool zstd, const nlohmann::json& distributed) {
  const auto compression =
      zstd ? records::RecordsCompression::kZstd : records::RecordsCompression::kNone;
  const std::string path = dir + "/" + records::requests_file_name(compression);
  records::RecordsSink sink(path, compression);
  bool ok = true;
  for (const auto& record : records) ok = sink.append(records::record_to_jsonl_line(record)) && ok;
  ok = sink.close() && ok;
  if (!ok) throw std::runtime_error("cannot write " + path);
  records::write_json_file(dir + "/" + records::kDistributedFile, distributed);
}

void Runner::report_unable(const std::string& why) {
  distributed::Session& session = *options_.session;
  const core::RunClock clock;
  session.common_start(clock, why, [] { return false; });
  if (session.leader()) return;
  distributed::RankReport r;
  r.rank = session.rank();
  r.host = session.host();
  r.error = why;
  session.send_report(r);
}

int follow(Runner& runner, distributed::Session& session, const core::RunConfig& own) {
  while (const auto level = session.await_level([&runner] { return runner.canceled(); })) {
    try {
      // The announcement is config.yaml's text, which never carries a credential: the values it
      // redacted come from this rank's own command line, the same as the leader's.
      runner.run(core::with_secrets_of(core::run_config_from_yaml(*level), own));
    } catch (const std::exception& e) {
      // The leader hears why from this rank's report; say it here too, for its host's log.
      std::fprintf(stderr, "tokenbench: rank %d: %s\n", session.rank(),
                   core::one_line(e.what()).c_str());
    }
  }
  return session.leader_lost() ? 2 : 0;
}

}  // namespace tokenbench::experiment
