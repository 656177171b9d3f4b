#include "tokenbench/sim/lora_slots.h"

#include <algorithm>
#include <charconv>

namespace tokenbench::sim {

namespace {
constexpr std::string_view kLoraPrefix = "lora-";
}  // namespace

std::string lora_name(std::int64_t index) {
  return std::string(kLoraPrefix) + std::to_string(index);
}

std::int32_t lora_index(std::string_view model, std::int64_t adapters) {
  if (!model.starts_with(kLoraPrefix)) return -1;
  const std::string_view digits = model.substr(kLoraPrefix.size());
  if (digits.empty() || (digits.size() > 1 && digits[0] == '0')) return -1;  // one spelling each
  std::int64_t i = -1;
  const char* end = digits.data() + digits.size();
  const auto [p, ec] = std::from_chars(digits.data(), end, i);
  if (ec != std::errc{} || p != end || i < 0 || i >= adapters) return -1;
  return static_cast<std::int32_t>(i);
}

void append_lora_names(std::string& out, const std::vector<char>& set) {
  bool first = true;
  for (std::size_t i = 0; i < set.size(); ++i) {
    if (!set[i]) continue;
    if (!first) out += ',';
    first = false;
    out += kLoraPrefix;
    out += std::to_string(i);
  }
}

LoraSlots::LoraSlots(std::int64_t adapters, std::int64_t max_loras)
    : max_(std::max<std::int64_t>(1, max_loras)),
      running_(static_cast<std::size_t>(std::max<std::int64_t>(0, adapters)), 0),
      loaded_(running_.size(), 0),
      last_used_(running_.size(), 0) {}

bool LoraSlots::can_admit(std::int32_t adapter) const {
  if (adapter < 0 || static_cast<std::size_t>(adapter) >= running_.size()) return true;
  if (loaded_[static_cast<std::size_t>(adapter)] || loaded_count_ < max_) return true;
  for (std::size_t i = 0; i < running_.size(); ++i) {
    if (loaded_[i] && running_[i] == 0) return true;
  }
  return false;
}

bool LoraSlots::acquire(std::int32_t adapter) {
  if (adapter < 0 || static_cast<std::size_t>(adapter) >= running_.size()) return false;
  const auto a = static_cast<std::size_t>(adapter);
  ++running_[a];
  last_used_[a] = ++clock_;
  if (loaded_[a]) return false;
  if (loaded_count_ >= max_) {
    // Evict the least recently used adapter that nothing runs on (can_admit() found one).
    std::size_t victim = running_.size();
    for (std::size_t i = 0; i < running_.size(); ++i) {
      if (!loaded_[i] || running_[i] > 0) continue;
      if (victim == running_.size() || last_used_[i] < last_used_[victim]) victim = i;
    }
    if (victim < running_.size()) {
      loaded_[victim] = 0;
      --loaded_count_;
    }
  }
  loaded_[a] = 1;
  ++loaded_count_;
  return true;
}

void LoraSlots::release(std::int32_t adapter) {
  if (adapter < 0 || static_cast<std::size_t>(adapter) >= running_.size()) return;
  const auto a = static_cast<std::size_t>(adapter);
  if (running_[a] > 0) --running_[a];
  last_used_[a] = ++clock_;
}

void LoraSlots::running(std::vector<char>& out) const {
  out.assign(running_.size(), 0);
  for (std::size_t i = 0; i < running_.size(); ++i) out[i] = running_[i] > 0 ? 1 : 0;
}

}  // namespace tokenbench::sim
