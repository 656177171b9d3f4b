#include "tokenbench/collect/scraper.h"

#include <algorithm>
#include <chrono>

#include "tokenbench/client/http_get.h"

namespace tokenbench::collect {

MetricsScraper::MetricsScraper(std::string url, std::vector<std::string> headers, double interval_s,
                               const core::RunClock& clock, client::HttpGetOptions get)
    : url_(std::move(url)),
      headers_(std::move(headers)),
      get_(std::move(get)),
      interval_s_(interval_s),
      clock_(clock) {}

MetricsScraper::~MetricsScraper() { stop(); }

telemetry::Scrape MetricsScraper::fetch(const std::string& label) const {
  telemetry::Scrape s;
  s.label = label;
  // A scrape slower than the interval is a failed scrape, never a late one piling up.
  const auto got = client::http_get(url_, headers_, std::clamp(interval_s_, 1.0, 10.0), get_);
  s.t = clock_.now();
  if (!got.transport_ok) {
    s.error = got.error;
  } else if (got.status != 200) {
    s.error = "HTTP " + std::to_string(got.status);
  } else {
    try {
      s.snapshot = telemetry::map_server_metrics(telemetry::parse_exposition(got.body));
      s.ok = true;
    } catch (const telemetry::ParseError& e) {
      s.error = e.what();
    }
  }
  return s;
}

telemetry::Scrape MetricsScraper::scrape_now(const std::string& label) {
  telemetry::Scrape s = fetch(label);
  std::lock_guard<std::mutex> lock(mutex_);
  scrapes_.push_back(s);
  return s;
}

void MetricsScraper::start() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (thread_.joinable() || stopping_) return;
  thread_ = std::thread([this] {
    const auto period = std::chrono::duration<double>(interval_s_);
    auto next = std::chrono::steady_clock::now() + period;
    while (true) {
      {
        std::unique_lock<std::mutex> lock(mutex_);
        if (wake_.wait_until(lock, next, [this] { return stopping_; })) return;
      }
      telemetry::Scrape s = fetch("interval");
      {
        std::lock_guard<std::mutex> lock(mutex_);
        scrapes_.push_back(std::move(s));
      }
      next += std::chrono::duration_cast<std::chrono::steady_clock::duration>(period);
      const auto now = std::chrono::steady_clock::now();
      if (next < now) next = now;  // skip the ticks a slow scrape missed
    }
  });
}

void MetricsScraper::stop() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

std::vector<telemetry::Scrape> MetricsScraper::scrapes() const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<telemetry::Scrape> out = scrapes_;
  std::stable_sort(
      out.begin(), out.end(),
      [](const telemetry::Scrape& a, const telemetry::Scrape& b) { return a.t < b.t; });
  return out;
}

}  // namespace tokenbench::collect
