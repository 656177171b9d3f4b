#pragma once

// --probe-rate R: tiny requests sent at a fixed rate beside the load, outside its concurrency,
// on their own thread and connections (libcurl), as a new user arriving at that moment would
// send them. Their samples go to telemetry/probe_account.h, never into the load's records.

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "tokenbench/client/http_get.h"
#include "tokenbench/core/clock.h"
#include "tokenbench/telemetry/probe_account.h"

namespace tokenbench::collect {

/// Sends `body` to `url` with `headers` every 1/rate seconds from start() to stop(), each probe
/// on its own transfer (several may be in flight), and stamps, on `clock`, when it was due, sent,
/// when its first content bytes came (the first body bytes holding a non-empty "content" or
/// "text" value: the first token) and when it ended. Thread-safe start/stop from one owner.
class ProbeSender {
 public:
  ProbeSender(std::string url, std::vector<std::string> headers, std::string body, double rate,
              const core::RunClock& clock, client::TlsOptions tls);
  ~ProbeSender();
  ProbeSender(const ProbeSender&) = delete;
  ProbeSender& operator=(const ProbeSender&) = delete;

  /// Starts sending (the first probe at once).
  void start();
  /// Stops sending; waits up to `grace` for the probes in flight, then abandons them (recorded
  /// with error "not answered before the measure phase ended"). Returns every probe, in the
  /// order sent. Idempotent.
  std::vector<telemetry::ProbeSample> stop(
      std::chrono::milliseconds grace = std::chrono::milliseconds(2000));

 private:
  void run();
  std::string url_;
  std::vector<std::string> headers_;
  std::string body_;
  core::Nanos interval_;
  const core::RunClock& clock_;
  client::TlsOptions tls_;
  std::atomic<bool> stopping_{false};
  core::Nanos grace_ns_ = 2'000'000'000;
  std::thread thread_;
  std::vector<telemetry::ProbeSample> samples_;  // written by the thread, read after join
};

/// The body of a probe for the run's API: a one-word prompt, max_tokens 1, streamed. Empty for
/// an API probes do not speak (only OpenAI chat and completions).
std::string probe_body(const std::string& api, const std::string& model);

}  // namespace tokenbench::collect
