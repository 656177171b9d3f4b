#include "tokenbench/cli/memory_check.h"

#include <fmt/format.h>

#include <fstream>
#include <sstream>

#include "tokenbench/cli/run_flags.h"
#include "tokenbench/workload/workload.h"

namespace tokenbench::cli {
namespace {

std::string gib(std::int64_t bytes) {
  return fmt::format("{:.1f} GiB", static_cast<double>(bytes) / (1024.0 * 1024 * 1024));
}

std::string size_text(std::int64_t bytes) {
  return bytes >= (std::int64_t{1} << 30)
             ? gib(bytes)
             : fmt::format("{:.1f} MiB", static_cast<double>(bytes) / (1024.0 * 1024));
}

}  // namespace

std::optional<std::int64_t> mem_available(const std::string& meminfo) {
  std::istringstream in(meminfo);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("MemAvailable:", 0) != 0) continue;
    std::istringstream fields(line.substr(13));
    std::int64_t kib = -1;
    std::string unit;
    if (!(fields >> kib) || kib < 0) return std::nullopt;
    fields >> unit;
    return unit == "kB" || unit.empty() ? kib * 1024 : kib;
  }
  return std::nullopt;
}

void check_workload_memory(const core::RunConfig& config, const std::string& limit) {
  std::int64_t most = 0;
  std::string what;
  if (limit == "auto") {
    std::ifstream in("/proc/meminfo");
    std::stringstream text;
    text << in.rdbuf();
    const auto available = mem_available(text.str());
    if (!available) return;
    most = static_cast<std::int64_t>(static_cast<double>(*available) * kWorkloadMemoryShare);
    what = fmt::format("{:.0f}% of the {} of memory available", kWorkloadMemoryShare * 100,
                       size_text(*available));
  } else {
    most = parse_byte_size(limit, "--max-workload-memory");
    if (most == 0) return;
    what = "--max-workload-memory " + limit;
  }
  const workload::WorkloadEstimate e = workload::estimate_workload(config);
  if (e.bytes <= most) return;
  throw UsageError(
      fmt::format("the workload needs about {} ({} prompts held for the run, {} requests made "
                  "ahead), more than {}: give fewer --num-prompts (--duration alone cycles {} "
                  "prompts), a shorter --input-len, or --max-workload-memory SIZE (0: no check)",
                  size_text(e.bytes), e.requests, e.ahead, what, workload::kDurationPoolSize));
}

}  // namespace tokenbench::cli
