#include "tokenbench/telemetry/gpu_sample.h"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <map>
#include <stdexcept>

#include "tokenbench/core/text.h"

namespace tokenbench::telemetry {
namespace {

using nlohmann::json;

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

// "[N/A]", "[Not Supported]", "[Unknown Error]", "N/A" and "" say the value is not there.
bool absent(std::string_view v) {
  return v.empty() || v == "N/A" || (v.front() == '[' && v.back() == ']');
}

// The whole of `v` as a finite number, or nullopt.
std::optional<double> number(std::string_view v) {
  const std::string text(v);
  char* end = nullptr;
  errno = 0;
  const double d = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || *end != '\0' || errno == ERANGE || !std::isfinite(d)) {
    return std::nullopt;
  }
  return d;
}

std::string shown(std::string_view line) {
  return core::one_line(std::string(core::utf8_prefix(line, 120)));
}

json opt(const std::optional<double>& v) { return v ? json(*v) : json(nullptr); }

std::optional<double> number_from(const json& o, const char* key) {
  const auto it = o.find(key);
  if (it == o.end() || it->is_null()) return std::nullopt;
  return it->get<double>();
}

}  // namespace

GpuLineResult parse_nvidia_smi_line(std::string_view line, core::Nanos t) {
  GpuLineResult out;
  std::vector<std::string_view> fields;
  for (std::size_t start = 0;;) {
    const auto comma = line.find(',', start);
    fields.push_back(
        trim(line.substr(start, comma == std::string_view::npos ? line.npos : comma - start)));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  constexpr std::size_t kColumns = 10;  // kNvidiaSmiQuery
  if (fields.size() < kColumns - 1) {
    out.error = fmt::format("nvidia-smi: '{}' is not a GPU reading ({} of {} columns)", shown(line),
                            fields.size(), kColumns);
    return out;
  }
  GpuSample s;
  s.t = t;
  if (fields.size() >= kColumns) {
    // Commas beyond the expected count belong to the name (nvidia-smi does not quote it).
    const std::size_t extra = fields.size() - kColumns;
    std::string name(fields[2]);
    for (std::size_t i = 0; i < extra; ++i) name += "," + std::string(fields[3 + i]);
    fields.erase(fields.begin() + 3, fields.begin() + 3 + static_cast<std::ptrdiff_t>(extra));
    s.name = std::move(name);
    if (!absent(fields[9])) s.driver = std::string(fields[9]);
  } else {
    s.name = std::string(fields[2]);
  }
  const auto index = number(fields[0]);
  if (!index || *index < 0 || *index != std::floor(*index) || *index > 1'000'000) {
    out.error = fmt::format("nvidia-smi: '{}' is not a GPU reading (no GPU index)", shown(line));
    return out;
  }
  s.index = static_cast<int>(*index);
  if (!absent(fields[1])) s.uuid = std::string(fields[1]);
  if (absent(s.name)) s.name.clear();
  std::optional<double>* values[] = {&s.util_pct, &s.mem_used_mib, &s.mem_total_mib,
                                     &s.power_w,  &s.sm_clock_mhz, &s.temp_c};
  for (std::size_t i = 0; i < std::size(values); ++i) {
    const std::string_view v = fields[3 + i];
    if (absent(v)) continue;
    *values[i] = number(v);
    if (!*values[i]) {
      out.error = fmt::format("nvidia-smi: '{}' is not a GPU reading ('{}' is not a number)",
                              shown(line), shown(v));
      return out;
    }
  }
  out.sample = std::move(s);
  return out;
}

std::vector<GpuSample> gpu_samples_from_dcgm(const Exposition& e, core::Nanos t) {
  std::map<int, GpuSample> by_index;
  std::map<int, double> fb_free;
  const auto read = [&](const char* family, auto&& set) {
    const Family* f = e.find(family);
    if (f == nullptr) return;
    for (const Sample& sample : f->samples) {
      const auto gpu = sample.label("gpu");
      if (!gpu) continue;
      const auto index = number(*gpu);
      if (!index || *index < 0 || *index != std::floor(*index) || *index > 1'000'000) continue;
      GpuSample& s = by_index[static_cast<int>(*index)];
      s.t = t;
      s.index = static_cast<int>(*index);
      if (const auto uuid = sample.label("UUID"); uuid && s.uuid.empty()) s.uuid = *uuid;
      if (const auto name = sample.label("modelName"); name && s.name.empty()) s.name = *name;
      if (const auto driver = sample.label("DCGM_FI_DRIVER_VERSION"); driver && s.driver.empty()) {
        s.driver = *driver;
      }
      if (std::isfinite(sample.value)) set(s, sample.value);
    }
  };
  read(kDcgmUtil, [](GpuSample& s, double v) { s.util_pct = v; });
  read(kDcgmFbUsed, [](GpuSample& s, double v) { s.mem_used_mib = v; });
  read(kDcgmFbFree, [&fb_free](GpuSample& s, double v) { fb_free[s.index] = v; });
  read(kDcgmPower, [](GpuSample& s, double v) { s.power_w = v; });
  read(kDcgmSmClock, [](GpuSample& s, double v) { s.sm_clock_mhz = v; });
  read(kDcgmTemp, [](GpuSample& s, double v) { s.temp_c = v; });
  std::vector<GpuSample> out;
  for (auto& [index, s] : by_index) {
    const auto free = fb_free.find(index);
    if (s.mem_used_mib && free != fb_free.end()) s.mem_total_mib = *s.mem_used_mib + free->second;
    out.push_back(std::move(s));
  }
  return out;
}

json gpu_sample_to_json(const GpuSample& s) {
  json o{{"type", "gpu"},
         {"t_ns", s.t},
         {"gpu", s.index},
         {"name", s.name},
         {"uuid", s.uuid},
         {"util_pct", opt(s.util_pct)},
         {"mem_used_mib", opt(s.mem_used_mib)},
         {"mem_total_mib", opt(s.mem_total_mib)},
         {"power_w", opt(s.power_w)},
         {"sm_clock_mhz", opt(s.sm_clock_mhz)},
         {"temp_c", opt(s.temp_c)}};
  if (!s.driver.empty()) o["driver"] = s.driver;
  return o;
}

GpuSample gpu_sample_from_json(const json& o) {
  try {
    GpuSample s;
    s.t = o.at("t_ns").get<core::Nanos>();
    s.index = o.at("gpu").get<int>();
    s.name = o.value("name", "");
    s.uuid = o.value("uuid", "");
    s.driver = o.value("driver", "");
    s.util_pct = number_from(o, "util_pct");
    s.mem_used_mib = number_from(o, "mem_used_mib");
    s.mem_total_mib = number_from(o, "mem_total_mib");
    s.power_w = number_from(o, "power_w");
    s.sm_clock_mhz = number_from(o, "sm_clock_mhz");
    s.temp_c = number_from(o, "temp_c");
    return s;
  } catch (const json::exception& e) {
    throw std::runtime_error(std::string("a GPU sample line is malformed: ") + e.what());
  }
}

}  // namespace tokenbench::telemetry
