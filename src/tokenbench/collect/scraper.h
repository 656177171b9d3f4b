#pragma once

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "tokenbench/client/http_get.h"
#include "tokenbench/core/clock.h"
#include "tokenbench/telemetry/scrape.h"

namespace tokenbench::collect {

/// Scrapes a /metrics URL on its own thread and connection every `interval_s`, and on demand
/// (scrape_now, from the run's thread at the measure phase's edges), never touching the load
/// engine. A failed scrape is recorded, not fatal. Thread-safe.
class MetricsScraper {
 public:
  /// `get`: how its GETs reach the server (the run's TLS trust and HTTP/2 servers).
  MetricsScraper(std::string url, std::vector<std::string> headers, double interval_s,
                 const core::RunClock& clock, client::HttpGetOptions get = {});
  ~MetricsScraper();
  MetricsScraper(const MetricsScraper&) = delete;
  MetricsScraper& operator=(const MetricsScraper&) = delete;

  /// Scrapes once now, on the caller's thread; returns what it got (also kept).
  telemetry::Scrape scrape_now(const std::string& label);
  /// Starts the periodic scrapes (idempotent).
  void start();
  /// Stops them and waits for the thread (idempotent).
  void stop();
  /// Every scrape so far, in time order.
  std::vector<telemetry::Scrape> scrapes() const;
  const std::string& url() const { return url_; }

 private:
  telemetry::Scrape fetch(const std::string& label) const;

  const std::string url_;
  const std::vector<std::string> headers_;
  const client::HttpGetOptions get_;
  const double interval_s_;
  const core::RunClock& clock_;
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::vector<telemetry::Scrape> scrapes_;
  std::thread thread_;
};

}  // namespace tokenbench::collect
