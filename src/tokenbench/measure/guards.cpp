// The guards that stop a run measuring only errors: --fail-fast and --abort-on-error-rate.

#include "tokenbench/measure/guards.h"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "tokenbench/core/text.h"

namespace tokenbench::measure {

bool FailFast::observe(const core::RequestRecord& r) {
  if (limit_ <= 0 || decided_.load(std::memory_order_relaxed)) return false;
  std::lock_guard<std::mutex> lock(mutex_);
  if (decided_.load(std::memory_order_relaxed)) return false;
  const bool client_error = r.error == core::ErrorClass::kHttp4xx && r.http_status != 429;
  if (!client_error || (status_ != 0 && r.http_status != status_)) {
    decided_.store(true);  // a success or another kind of failure: the run can measure
    return false;
  }
  status_ = r.http_status;
  if (message_.empty()) message_ = core::without_full_stop(r.error_message);
  if (++seen_ < limit_) return false;
  decided_.store(true);
  verdict_ =
      fmt::format("the first {} requests all failed with HTTP {}: {}", seen_, status_, message_);
  return true;
}

std::string FailFast::verdict() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return verdict_;
}

bool ErrorRateGuard::observe(const core::RequestRecord& r) {
  if (max_rate_ <= 0 || r.retried || r.error == core::ErrorClass::kCanceled) return false;
  std::lock_guard<std::mutex> lock(mutex_);
  if (decided_) return false;
  window_.push_back(r.error);
  if (!r.ok()) ++failed_;
  if (window_.size() > kWindow) {
    if (window_.front() != core::ErrorClass::kNone) --failed_;
    window_.pop_front();
  }
  if (window_.size() < kMinimum) return false;
  const double rate = static_cast<double>(failed_) / static_cast<double>(window_.size());
  if (rate <= max_rate_) return false;
  decided_ = true;
  std::map<core::ErrorClass, std::size_t> by_class;
  for (const core::ErrorClass e : window_) {
    if (e != core::ErrorClass::kNone) ++by_class[e];
  }
  const auto most =
      std::max_element(by_class.begin(), by_class.end(),
                       [](const auto& a, const auto& b) { return a.second < b.second; });
  verdict_ = fmt::format(
      "{} of the last {} requests failed ({:.0f}% > --abort-on-error-rate {:g}%), "
      "most as {}",
      failed_, window_.size(), rate * 100, max_rate_ * 100, core::to_string(most->first));
  return true;
}

std::string ErrorRateGuard::verdict() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return verdict_;
}

bool SaturationGuard::observe(const core::RequestRecord& r) {
  if (!enabled_ || r.retried || !r.ok() || r.phase != core::Phase::kMeasure ||
      r.scheduled == core::kNever || r.first_token == core::kNever || r.done == core::kNever) {
    return false;
  }
  std::lock_guard<std::mutex> lock(mutex_);
  if (decided_) return false;
  const std::int64_t window = r.done / kWindow;
  if (window_ < 0) window_ = window;
  if (window > window_) {
    close_window();
    window_ = window;
    verdict_ = judge(medians_);
    if (!verdict_.empty()) {
      decided_ = true;
      return true;
    }
  }
  // From the intended arrival: a request held back by --max-concurrency waited from then.
  const core::Nanos arrival = r.intended != core::kNever ? r.intended : r.scheduled;
  waits_.push_back(core::to_seconds(r.first_token - arrival) * 1e3);
  return false;
}

void SaturationGuard::close_window() {
  if (waits_.size() >= kMinRequests) {
    const auto mid = waits_.begin() + static_cast<std::ptrdiff_t>(waits_.size() / 2);
    std::nth_element(waits_.begin(), mid, waits_.end());
    medians_.emplace_back(core::to_seconds(window_ * kWindow), *mid);
  }
  waits_.clear();
}

namespace {

// Least squares of the median wait (second) against time (first) over [first, last): the slope
// and its t-statistic (infinite for a perfect rise).
std::pair<double, double> slope_and_t(std::vector<std::pair<double, double>>::const_iterator first,
                                      std::vector<std::pair<double, double>>::const_iterator last) {
  const double n = static_cast<double>(last - first);
  double mx = 0, my = 0;
  for (auto it = first; it != last; ++it) {
    mx += it->first;
    my += it->second;
  }
  mx /= n;
  my /= n;
  double sxx = 0, sxy = 0;
  for (auto it = first; it != last; ++it) {
    sxx += (it->first - mx) * (it->first - mx);
    sxy += (it->first - mx) * (it->second - my);
  }
  if (!(sxx > 0) || n < 3) return {0, 0};
  const double slope = sxy / sxx;
  double sse = 0;
  for (auto it = first; it != last; ++it) {
    const double e = it->second - (my + slope * (it->first - mx));
    sse += e * e;
  }
  const double se = std::sqrt(sse / (n - 2) / sxx);
  if (se > 0) return {slope, slope / se};
  return {slope, slope > 0 ? std::numeric_limits<double>::infinity() : 0};
}

}  // namespace

std::string SaturationGuard::judge(const std::vector<std::pair<double, double>>& medians) {
  if (medians.size() < kWindows) return "";
  const auto first = medians.end() - static_cast<std::ptrdiff_t>(kWindows);
  const auto [slope, t] = slope_and_t(first, medians.end());
  // Still rising at the end: a warm-up whose wait rose and levelled off is not saturation.
  const auto [recent_slope, recent_t] =
      slope_and_t(medians.end() - static_cast<std::ptrdiff_t>(kWindows / 2), medians.end());
  const double from = first->second;
  const double to = medians.back().second;
  if (!(slope > 0) || t < kMinT || !(recent_slope > 0) || recent_t < kMinT ||
      !(to >= kGrowth * from)) {
    return "";
  }
  return fmt::format(
      "the wait for a first token kept growing: its median rose from {:.0f} ms to {:.0f} ms "
      "over the last {} s ({:+.0f} ms each second, t = {:.1f}): the server cannot keep up with "
      "the request rate",
      from, to, static_cast<int>(std::lround(medians.back().first - first->first)) + 1, slope,
      std::min(t, 999.0));
}

std::string SaturationGuard::verdict() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return verdict_;
}

}  // namespace tokenbench::measure
