#include "tokenbench/measure/server_hooks.h"

#include <fmt/format.h>

#include "tokenbench/client/http_get.h"
#include "tokenbench/core/secret_fields.h"

namespace tokenbench::measure {
namespace {

constexpr double kHookTimeoutS = 30;

client::HttpGetResult post(const Plan& plan, const core::RunConfig& config,
                           const driver::Target& target, const std::string& path) {
  client::HttpGetOptions options = client::get_options(config);
  options.post = "{}";
  client::HttpGetResult r =
      client::http_get(target.base_url + path, target.headers, kHookTimeoutS, options);
  r.error = plan.redact(std::move(r.error));
  return r;
}

std::string answered(const client::HttpGetResult& r) {
  return r.transport_ok ? fmt::format("HTTP {}", r.status) : "no answer (" + r.error + ")";
}

std::string shown(const Plan& plan, const driver::Target& target) {
  return core::redact_query(plan.redact(target.base_url));
}

}  // namespace

std::vector<std::string> reset_prefix_caches(const Plan& plan, const core::RunConfig& config) {
  std::vector<std::string> lines;
  for (const driver::Target& target : plan.targets) {
    auto r = post(plan, config, target, "/reset_prefix_cache");
    std::string path = "/reset_prefix_cache";
    if (r.transport_ok && r.status == 404) {  // not vLLM's (or dev mode off): SGLang's
      r = post(plan, config, target, "/flush_cache");
      path = "/flush_cache";
    }
    const bool ok = r.transport_ok && r.status >= 200 && r.status < 300;
    lines.push_back(fmt::format("{} prefix cache {}: POST {} answered {}", shown(plan, target),
                                ok ? "reset" : "NOT reset", path, answered(r)) +
                    (ok ? "" : " (vLLM needs VLLM_SERVER_DEV_MODE=1 for it; the run goes on)"));
  }
  return lines;
}

std::vector<std::string> profile_servers(const Plan& plan, const core::RunConfig& config,
                                         bool start) {
  std::vector<std::string> lines;
  const std::string path = start ? "/start_profile" : "/stop_profile";
  for (const driver::Target& target : plan.targets) {
    const auto r = post(plan, config, target, path);
    if (r.transport_ok && r.status >= 200 && r.status < 300) continue;
    lines.push_back(
        fmt::format("{}: POST {} answered {} (vLLM needs VLLM_TORCH_PROFILER_DIR "
                    "set; SGLang its profiler)",
                    shown(plan, target), path, answered(r)));
  }
  return lines;
}

}  // namespace tokenbench::measure
