#include "tokenbench/client/http_engine.h"

#include <curl/curl.h>

#include <algorithm>
#include <cstdio>
#include <limits>
#include <stdexcept>
#include <thread>

#include "tokenbench/client/http_get.h"
#include "tokenbench/client/worker.h"

namespace tokenbench::client {
HttpEngine::HttpEngine(EngineConfig config, const core::RunClock& clock)
    : config_(std::move(config)), clock_(clock), route_(config_.endpoints.size()) {
  if (config_.endpoints.empty()) throw std::invalid_argument("the engine needs an endpoint");
  ensure_curl_initialized();
  const int n = std::max(1, config_.workers);
  for (int i = 0; i < n; ++i) {
    workers_.push_back(std::make_unique<Worker>(config_, clock_, route_));
  }
}

HttpEngine::~HttpEngine() = default;

void HttpEngine::run_phase(load::WorkQueue& queue, const PhaseWork& work,
                           std::size_t expected_count, const RecordSink& sink) {
  const std::size_t n = workers_.size();
  std::vector<std::size_t> slots(n);
  for (std::size_t i = 0; i < n; ++i) {
    if (config_.max_concurrency > 0) {
      const auto c = static_cast<std::size_t>(config_.max_concurrency);
      slots[i] = c / n + (i < c % n ? 1 : 0);
    } else if (expected_count != load::ArrivalSchedule::kUnbounded) {
      // Unlimited concurrency: spread the requests so that one worker does not claim them all.
      slots[i] = std::max<std::size_t>(1, (expected_count + n - 1) / n);
    } else {
      slots[i] = std::numeric_limits<std::size_t>::max();
    }
  }
  // A worker that fails (out of memory, say) stops the whole run instead of the process: the
  // other workers cancel their requests, and what was recorded is kept.
  auto run_worker = [&](std::size_t i) {
    try {
      workers_[i]->run(queue, work, slots[i], sink, canceled_);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "tokenbench: error: worker %zu stopped: %s; ending the run\n", i,
                   e.what());
      cancel();
    }
  };
  if (n == 1) {
    run_worker(0);
    return;
  }
  std::vector<std::thread> threads;
  threads.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    if (slots[i] == 0) continue;
    threads.emplace_back(run_worker, i);
  }
  for (auto& t : threads) t.join();
}

}  // namespace tokenbench::client
