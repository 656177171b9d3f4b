#include "tokenbench/client/http_engine.h"

#include <curl/curl.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <stdexcept>
#include <thread>

#include "tokenbench/client/http_get.h"
#include "tokenbench/client/worker.h"

namespace tokenbench::client {

ReplyLimits reply_limits(const EngineConfig& config, std::int64_t max_tokens) {
  // A token is a few bytes of text in a few hundred bytes of JSON; a server may send one chunk per
  // character, and a reasoning model more text than it counts. The margins are wide on purpose:
  // these bounds catch servers that never stop, not long answers.
  const std::int64_t tokens =
      std::clamp<std::int64_t>(max_tokens > 0 ? max_tokens : 32768, 1, std::int64_t{1} << 24);
  ReplyLimits limits;
  limits.bytes = config.max_reply_bytes > 0 ? config.max_reply_bytes
                                            : (std::int64_t{8} << 20) + tokens * (64 << 10);
  limits.body_bytes =
      config.max_reply_bytes > 0 ? config.max_reply_bytes : (std::int64_t{1} << 20) + tokens * 1024;
  limits.chunks = tokens * 8 + 256;
  limits.text_bytes = (std::int64_t{1} << 20) + tokens * 256;
  limits.usage_tokens = tokens * 4 + 1024;
  return limits;
}

bool is_retryable(const core::RequestRecord& r) {
  using core::ErrorClass;
  switch (r.error) {
    case ErrorClass::kConnect:
    case ErrorClass::kConnectTimeout:
    case ErrorClass::kRateLimited:
    case ErrorClass::kHttp5xx:
      return true;
    case ErrorClass::kStreamCut:
      return r.chunks.empty();
    default:
      return false;
  }
}

core::Nanos retry_backoff(std::uint64_t seed, std::uint64_t id, std::uint32_t attempt,
                          double retry_after_s) {
  const double base =
      std::min(30.0, 0.25 * std::ldexp(1.0, static_cast<int>(std::min(attempt, 20u))));
  // splitmix64 of (seed, id, attempt): the same run waits the same.
  std::uint64_t x = seed ^ (id * 0x9E3779B97F4A7C15ULL) ^ (std::uint64_t{attempt} << 56);
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  x ^= x >> 31;
  const double unit = static_cast<double>(x >> 11) * 0x1.0p-53;
  double wait = base / 2 + unit * base / 2;
  if (retry_after_s > 0) wait = std::max(wait, std::min(retry_after_s, 120.0));
  return static_cast<core::Nanos>(wait * 1e9);
}

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

std::vector<std::vector<core::CpuSample>> HttpEngine::cpu_samples() const {
  std::vector<std::vector<core::CpuSample>> out;
  out.reserve(workers_.size());
  for (const auto& w : workers_) out.push_back(w->cpu_samples());
  return out;
}

std::vector<core::ReadLagLog> HttpEngine::read_lags() const {
  std::vector<core::ReadLagLog> out;
  out.reserve(workers_.size());
  for (const auto& w : workers_) out.push_back(w->read_lag());
  return out;
}

std::vector<std::size_t> HttpEngine::slots_for(std::size_t expected_count) const {
  const std::size_t n = workers_.size();
  std::vector<std::size_t> slots(n);
  for (std::size_t i = 0; i < n; ++i) {
    if (config_.max_concurrency > 0) {
      const auto c = static_cast<std::size_t>(config_.max_concurrency);
      slots[i] = c / n + (i < c % n ? 1 : 0);
    } else if (expected_count != kUnboundedCount) {
      // Unlimited concurrency: spread the requests so that one worker does not claim them all.
      slots[i] = std::max<std::size_t>(1, (expected_count + n - 1) / n);
    } else {
      slots[i] = std::numeric_limits<std::size_t>::max();
    }
  }
  return slots;
}

void HttpEngine::preopen(std::size_t expected_count, double timeout_s) {
  // Only with a concurrency limit: it is the number of connections the run keeps busy. Without
  // one, a connection opened ahead may never carry a request, and a server that serves one
  // connection at a time would wait on it.
  if (config_.per_request_connections || !config_.native_transport ||
      config_.max_concurrency <= 0) {
    return;
  }
  std::vector<std::size_t> slots = slots_for(expected_count);
  // No more connections than requests.
  std::size_t left = expected_count;
  for (std::size_t& s : slots) {
    s = std::min(s, left);
    left -= s;
  }
  const core::Nanos deadline = clock_.now() + static_cast<core::Nanos>(timeout_s * 1e9);
  const std::size_t endpoints = config_.endpoints.size();
  auto open = [&](std::size_t i) {
    if (slots[i] == 0) return;
    // Requests routed by target may all go to one endpoint; replicas share the slots.
    const std::size_t per_endpoint =
        config_.routing == Routing::kBySpec ? slots[i] : (slots[i] + endpoints - 1) / endpoints;
    workers_[i]->preopen(std::min<std::size_t>(per_endpoint, 1 << 16), deadline);
  };
  std::vector<std::thread> threads;
  for (std::size_t i = 1; i < workers_.size(); ++i) threads.emplace_back(open, i);
  open(0);
  for (auto& t : threads) t.join();
}

std::size_t HttpEngine::idle_connections() const {
  std::size_t n = 0;
  for (const auto& w : workers_) n += w->idle_connections();
  return n;
}

void HttpEngine::run_phase(RequestSource& source, std::size_t expected_count,
                           const RecordSink& sink) {
  const std::size_t n = workers_.size();
  const std::vector<std::size_t> slots = slots_for(expected_count);
  // A worker that fails (out of memory, say) stops the whole run instead of the process: the
  // other workers cancel their requests, and what was recorded is kept.
  auto run_worker = [&](std::size_t i) {
    try {
      workers_[i]->run(source, slots[i], sink, canceled_);
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
