#pragma once

#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "tokenbench/telemetry/gpu_sample.h"

namespace tokenbench::telemetry {

/// What tokenbench learns about the client machine without asking anyone. Plain data.
struct HostFacts {
  std::string host;                                ///< gethostname
  std::string os_sysname, os_release, os_machine;  ///< uname
  std::string cpu_model;  ///< /proc/cpuinfo "model name" ("" when it has none)
  int cpu_count = 0;      ///< logical CPUs online
};

/// The CPU model of a /proc/cpuinfo text: the first "model name" line (x86), else "Model" or
/// "Hardware" (ARM); "" when none. Pure.
std::string cpu_model_from_cpuinfo(std::string_view cpuinfo);

/// Parses repeated `--label KEY=VALUE` items into a map. Throws std::invalid_argument with one
/// line naming the flag for an item with no '=', an empty key, or a key given twice. Pure.
std::map<std::string, std::string> parse_labels(const std::vector<std::string>& items);

/// Bounds on what is kept of a server's self-description.
struct TrimLimits {
  std::size_t max_string = 200;  ///< bytes of one string (llama.cpp's chat_template is cut)
  std::size_t max_items = 16;    ///< elements of one array
  int max_depth = 4;             ///< deeper objects and arrays become "..."
  std::size_t max_bytes = 4096;  ///< of one object's dump: later keys are dropped
};

/// `value` cut to `limits`: long strings end in "... (N bytes)", long arrays keep their first
/// items, an object that outgrows max_bytes keeps its first keys and gains "_truncated": true.
/// Values under keys that name a credential (api_key, password, secret, auth..., ..._token)
/// become "<redacted>". Pure.
nlohmann::json trim_json(const nlohmann::json& value, const TrimLimits& limits = {});

/// The models of a GET /v1/models reply, each {"id", "owned_by", "max_model_len"} (the last two
/// null where not given); at most 16. Pure.
nlohmann::json models_summary(const std::string& models_body);

/// The endpoints where servers describe themselves, asked in this order: vLLM's /version,
/// llama.cpp's /props, TGI's /info, SGLang's /get_server_info.
inline constexpr const char* kServerInfoPaths[] = {"/version", "/props", "/info",
                                                   "/get_server_info"};

/// What a server says about itself, each answer trimmed (trim_json): {"url", "software" (one
/// line, the best reading of the answers; null when none), "server_header", "models",
/// "endpoints": {path: answer}}. Built from the answers given. Pure.
nlohmann::json describe_server(const std::string& url, const std::string& server_header,
                               const std::string& models_body,
                               const std::map<std::string, std::string>& answers);

/// The GPUs that `samples` name: {"source", "count", "driver", "devices": [{index, name,
/// uuid}]}; null when there is no sample.
nlohmann::json gpus_summary(const std::vector<GpuSample>& samples, const GpuSamplerInfo& info);

/// The environment record (summary.json's tokenbench.environment, environment.json): the
/// client's facts, tokenbench's version, the command line, the run's start, the server's
/// self-description (null when not asked), the GPUs (null when none were sampled) and the
/// labels. Every string passes through `redact` (the run's secrets). Pure but for `redact`.
nlohmann::json environment_json(const HostFacts& host, const std::vector<std::string>& command_line,
                                const std::string& started_at, const nlohmann::json& server,
                                const nlohmann::json& gpus,
                                const std::map<std::string, std::string>& labels,
                                const std::function<std::string(std::string)>& redact);

/// The console's "Environment" block (a few lines) of an environment record.
std::string render_environment(const nlohmann::json& environment);

}  // namespace tokenbench::telemetry
