#pragma once

// Runs `count` identical chat requests through a real HttpEngine, one at a time unless the config
// sets max_concurrency, and returns their records in the order they ended (tests of the engine
// and its transports).

#include <mutex>
#include <string>
#include <vector>

#include "tokenbench/client/http_engine.h"
#include "tokenbench/client/request_source.h"

namespace tokenbench::testing {

inline core::RequestSpec chat_spec() {
  core::RequestSpec spec;
  spec.max_tokens = 8;
  return spec;
}

inline std::vector<core::RequestRecord> run_engine(client::EngineConfig config, std::size_t count,
                                                   std::size_t preopen = 0,
                                                   const core::RequestSpec& spec = chat_spec()) {
  core::RunClock clock;
  if (config.max_concurrency == 0) config.max_concurrency = 1;
  client::HttpEngine engine(config, clock);
  if (preopen > 0) engine.preopen(preopen, 5);
  const std::vector<core::RequestSpec> specs{spec};
  const std::vector<std::string> bodies{R"({"messages":[{"role":"user","content":"hi"}]})"};
  client::ImmediateSource source(specs, bodies, count, clock.now());
  std::mutex m;
  std::vector<core::RequestRecord> records;
  engine.run_phase(source, count, [&](core::RequestRecord&& r) {
    std::lock_guard<std::mutex> lock(m);
    records.push_back(std::move(r));
  });
  return records;
}

}  // namespace tokenbench::testing
