#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tokenbench/client/http_get.h"
#include "tokenbench/telemetry/environment.h"

// The environment record's probes: what is read from the client machine and asked of the
// server. The record itself, and everything pure about it, is telemetry/environment.h.
namespace tokenbench::collect {

/// The client machine's facts, read now. Never throws; what cannot be read stays empty.
telemetry::HostFacts collect_host();

/// Asks `base_url` for telemetry::kServerInfoPaths at once (each GET with `timeout_s`, never fatal;
/// only a 200 with a JSON object counts) with the run's `headers` (never recorded), and describes
/// it with the /v1/models reply already in hand. Blocks at most about `timeout_s`.
nlohmann::json probe_server(const std::string& base_url, const std::vector<std::string>& headers,
                            const std::string& models_body, const std::string& server_header,
                            double timeout_s = 2.0, const client::HttpGetOptions& get = {});

}  // namespace tokenbench::collect
