#pragma once

// Runs `count` identical chat requests through a real HttpEngine, at most one at a time, and
// returns their records in the order they ended (tests of the transport).

#include <mutex>
#include <string>
#include <vector>

#include "tokenbench/client/http_engine.h"
#include "tokenbench/load/arrival_schedule.h"
#include "tokenbench/load/work_queue.h"

namespace tokenbench::testing {

inline std::vector<core::RequestRecord> run_engine(client::EngineConfig config, std::size_t count,
                                                   std::size_t preopen = 0) {
  core::RunClock clock;
  config.max_concurrency = 1;
  client::HttpEngine engine(config, clock);
  if (preopen > 0) engine.preopen(preopen, 5);
  std::vector<core::RequestSpec> specs(1);
  specs[0].max_tokens = 8;
  std::vector<std::string> bodies{R"({"messages":[{"role":"user","content":"hi"}]})"};
  const auto schedule = load::ArrivalSchedule::immediate(count);
  load::WorkQueue queue(schedule, clock.now());
  client::PhaseWork work;
  work.specs = &specs;
  work.bodies = &bodies;
  std::mutex m;
  std::vector<core::RequestRecord> records;
  engine.run_phase(queue, work, count, [&](core::RequestRecord&& r) {
    std::lock_guard<std::mutex> lock(m);
    records.push_back(std::move(r));
  });
  return records;
}

}  // namespace tokenbench::testing
