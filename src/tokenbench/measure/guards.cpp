// The guards that stop a run measuring only errors: --fail-fast and --abort-on-error-rate.

#include "tokenbench/measure/guards.h"

#include <fmt/core.h>

#include <algorithm>
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
}  // namespace tokenbench::measure
