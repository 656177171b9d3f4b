#include "tokenbench/telemetry/environment.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <sstream>
#include <stdexcept>

#include "tokenbench/core/json_parse.h"
#include "tokenbench/core/secret_fields.h"
#include "tokenbench/core/text.h"
#include "tokenbench/core/version.h"

namespace tokenbench::telemetry {
namespace {

using nlohmann::json;

std::string cut(const std::string& s, std::size_t max) {
  if (s.size() <= max) return s;
  return std::string(core::utf8_prefix(s, max)) + fmt::format("... ({} bytes)", s.size());
}

json trim(const json& v, const TrimLimits& limits, int depth) {
  if (v.is_string()) return cut(v.get<std::string>(), limits.max_string);
  if (!v.is_structured()) return v;
  if (depth >= limits.max_depth) return "...";
  if (v.is_array()) {
    json out = json::array();
    for (std::size_t i = 0; i < v.size() && i < limits.max_items; ++i) {
      out.push_back(trim(v[i], limits, depth + 1));
    }
    if (v.size() > limits.max_items) {
      out.push_back(fmt::format("... ({} more)", v.size() - limits.max_items));
    }
    return out;
  }
  json out = json::object();
  std::size_t bytes = 2;
  for (const auto& [key, value] : v.items()) {
    json item = core::is_credential_name(key) ? json("<redacted>") : trim(value, limits, depth + 1);
    const std::size_t size = key.size() + item.dump().size() + 4;
    if (bytes + size > limits.max_bytes) {
      out["_truncated"] = true;
      break;
    }
    bytes += size;
    out[key] = std::move(item);
  }
  return out;
}

// Every string of `v` (keys too) through `redact`.
json redacted(const json& v, const std::function<std::string(std::string)>& redact) {
  if (v.is_string()) return redact(v.get<std::string>());
  if (v.is_array()) {
    json out = json::array();
    for (const auto& e : v) out.push_back(redacted(e, redact));
    return out;
  }
  if (v.is_object()) {
    json out = json::object();
    for (const auto& [key, value] : v.items()) out[redact(key)] = redacted(value, redact);
    return out;
  }
  return v;
}

std::string string_at(const json& o, const char* key) {
  const auto it = o.find(key);
  return it != o.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// The best one-line reading of what the server said about itself.
json software(const json& endpoints, const std::string& server_header) {
  if (const auto v = endpoints.find("/version"); v != endpoints.end()) {
    const std::string version = string_at(*v, "version");
    // vLLM answers a bare number; serve-sim its name and number.
    if (!version.empty()) {
      return std::isdigit(static_cast<unsigned char>(version[0])) ? "vLLM " + version : version;
    }
  }
  if (const auto v = endpoints.find("/info"); v != endpoints.end()) {
    const std::string version = string_at(*v, "version");
    if (!version.empty()) return "TGI " + version;
  }
  if (const auto v = endpoints.find("/get_server_info"); v != endpoints.end()) {
    const std::string version = string_at(*v, "version");
    if (!version.empty()) return "SGLang " + version;
  }
  if (const auto v = endpoints.find("/props"); v != endpoints.end()) {
    const std::string build = string_at(*v, "build_info");
    return build.empty() ? "llama.cpp server" : "llama.cpp " + build;
  }
  if (!server_header.empty()) return server_header;
  return nullptr;
}

std::string text_of(const json& o, const char* key) {
  const auto it = o.find(key);
  if (it == o.end() || it->is_null()) return "";
  return it->is_string() ? it->get<std::string>() : it->dump();
}

}  // namespace

std::string cpu_model_from_cpuinfo(std::string_view cpuinfo) {
  std::string fallback;
  std::istringstream in{std::string(cpuinfo)};
  std::string line;
  while (std::getline(in, line)) {
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string key = line.substr(0, colon);
    key.erase(key.find_last_not_of(" \t") + 1);
    std::string value = line.substr(colon + 1);
    value.erase(0, value.find_first_not_of(" \t"));
    value.erase(value.find_last_not_of(" \t\r") + 1);
    if (value.empty()) continue;
    if (key == "model name") return value;
    if ((key == "Model" || key == "Hardware") && fallback.empty()) fallback = value;
  }
  return fallback;
}

std::map<std::string, std::string> parse_labels(const std::vector<std::string>& items) {
  std::map<std::string, std::string> out;
  for (const auto& item : items) {
    const auto eq = item.find('=');
    if (eq == std::string::npos || eq == 0) {
      throw std::invalid_argument("--label '" + core::one_line(item) +
                                  "' must look like KEY=VALUE, e.g. --label cuda=12.4");
    }
    const std::string key = item.substr(0, eq);
    if (!out.emplace(key, item.substr(eq + 1)).second) {
      throw std::invalid_argument("--label " + core::one_line(key) +
                                  " is given twice: give each key once");
    }
  }
  return out;
}

json trim_json(const json& value, const TrimLimits& limits) { return trim(value, limits, 0); }

json models_summary(const std::string& models_body) {
  json out = json::array();
  const auto j = core::parse_json_or_discarded(models_body);
  if (!j.is_object() || !j.contains("data") || !j["data"].is_array()) return out;
  for (const auto& m : j["data"]) {
    if (!m.is_object() || !m.contains("id") || !m["id"].is_string()) continue;
    if (out.size() >= 16) break;
    const auto len = m.find("max_model_len");
    out.push_back(
        json{{"id", cut(m["id"].get<std::string>(), 200)},
             {"owned_by", m.contains("owned_by") && m["owned_by"].is_string()
                              ? json(cut(m["owned_by"].get<std::string>(), 200))
                              : json(nullptr)},
             {"max_model_len", len != m.end() && len->is_number_integer() ? *len : json(nullptr)}});
  }
  return out;
}

json describe_server(const std::string& url, const std::string& server_header,
                     const std::string& models_body,
                     const std::map<std::string, std::string>& answers) {
  json endpoints = json::object();
  for (const auto& [path, body] : answers) {
    const auto j = core::parse_json_or_discarded(body);
    if (j.is_object()) endpoints[path] = trim_json(j);
  }
  const std::string header = cut(server_header, 200);
  return json{{"url", url},
              {"software", software(endpoints, header)},
              {"server_header", header.empty() ? json(nullptr) : json(header)},
              {"models", models_summary(models_body)},
              {"endpoints", std::move(endpoints)}};
}

json gpus_summary(const std::vector<GpuSample>& samples, const GpuSamplerInfo& info) {
  if (samples.empty()) return nullptr;
  std::map<int, const GpuSample*> first;
  std::string driver;
  for (const auto& s : samples) {
    first.emplace(s.index, &s);
    if (driver.empty()) driver = s.driver;
  }
  json devices = json::array();
  for (const auto& [index, s] : first) {
    devices.push_back(json{{"index", index},
                           {"name", s->name},
                           {"uuid", s->uuid.empty() ? json(nullptr) : json(s->uuid)}});
  }
  return json{{"source", info.source},
              {"count", first.size()},
              {"driver", driver.empty() ? json(nullptr) : json(driver)},
              {"devices", std::move(devices)}};
}

json environment_json(const HostFacts& host, const std::vector<std::string>& command_line,
                      const std::string& started_at, const json& server, const json& gpus,
                      const std::map<std::string, std::string>& labels,
                      const std::function<std::string(std::string)>& redact) {
  json j{
      {"host", host.host},
      {"os",
       {{"sysname", host.os_sysname}, {"release", host.os_release}, {"machine", host.os_machine}}},
      {"cpu", {{"model", host.cpu_model}, {"count", host.cpu_count}}},
      {"tokenbench_version", std::string(core::kVersion)},
      {"command_line", command_line},
      {"started_at", started_at},
      {"server", server},
      {"gpus", gpus},
      {"labels", labels}};
  return redacted(j, redact);
}

std::string render_environment(const json& e) {
  const auto& os = e.value("os", json::object());
  const auto& cpu = e.value("cpu", json::object());
  std::string out = "\nEnvironment:\n";
  out += core::one_line(
      fmt::format("  client   {} ({} {} {}), {}, {} CPUs, tokenbench {}", text_of(e, "host"),
                  text_of(os, "sysname"), text_of(os, "release"), text_of(os, "machine"),
                  text_of(cpu, "model").empty() ? std::string("CPU") : text_of(cpu, "model"),
                  text_of(cpu, "count"), text_of(e, "tokenbench_version")));
  out += "\n";
  const json server = e.value("server", json());
  if (server.is_object()) {
    std::string models;
    for (const auto& m : server.value("models", json::array())) {
      models += (models.empty() ? "" : ", ") + text_of(m, "id");
      if (m.contains("max_model_len") && !m["max_model_len"].is_null()) {
        models += fmt::format(" (max_model_len {})", m["max_model_len"].dump());
      }
    }
    const std::string software = text_of(server, "software");
    out += core::one_line(fmt::format("  server   {}{}{}", software.empty() ? "-" : software,
                                      models.empty() ? "" : "; models: ", models));
    out += "\n";
  }
  const json gpus = e.value("gpus", json());
  if (gpus.is_object()) {
    std::map<std::string, int> names;
    for (const auto& d : gpus.value("devices", json::array())) ++names[text_of(d, "name")];
    std::string list;
    for (const auto& [name, n] : names) {
      list += fmt::format("{}{} x {}", list.empty() ? "" : ", ", n, name.empty() ? "GPU" : name);
    }
    const std::string driver = text_of(gpus, "driver");
    out += core::one_line(fmt::format("  GPUs     {}{} ({})", list,
                                      driver.empty() ? "" : ", driver " + driver,
                                      text_of(gpus, "source")));
    out += "\n";
  }
  const json labels = e.value("labels", json::object());
  if (!labels.empty()) {
    std::string list;
    for (const auto& [k, v] : labels.items()) {
      list += fmt::format("{}{}={}", list.empty() ? "" : ", ", k,
                          v.is_string() ? v.get<std::string>() : v.dump());
    }
    out += core::one_line("  labels   " + list) + "\n";
  }
  return out;
}

}  // namespace tokenbench::telemetry
