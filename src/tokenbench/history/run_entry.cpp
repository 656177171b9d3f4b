#include "tokenbench/history/run_entry.h"

#include <fmt/format.h>
#include <openssl/evp.h>

#include <algorithm>
#include <array>
#include <filesystem>
#include <iterator>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "tokenbench/core/clock.h"
#include "tokenbench/core/json_parse.h"
#include "tokenbench/experiment/compare.h"
#include "tokenbench/experiment/figures.h"
#include "tokenbench/records/results_dir.h"

namespace tokenbench::history {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::string sha256_hex(const std::string& text) {
  std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
  unsigned int size = 0;
  if (EVP_Digest(text.data(), text.size(), digest.data(), &size, EVP_sha256(), nullptr) != 1) {
    throw std::runtime_error("SHA-256 failed");
  }
  std::string out;
  for (unsigned int i = 0; i < size; ++i) out += fmt::format("{:02x}", digest[i]);
  return out;
}

void flatten(const json& node, const std::string& path, std::map<std::string, std::string>& out) {
  if (node.is_object()) {
    for (const auto& [key, value] : node.items()) {
      flatten(value, path.empty() ? key : fmt::format("{}.{}", path, key), out);
    }
  } else if (node.is_array()) {
    for (std::size_t i = 0; i < node.size(); ++i) {
      flatten(node[i], fmt::format("{}.{}", path, i), out);
    }
  } else if (node.is_string()) {
    out[path] = node.get<std::string>();
  } else if (!node.is_null()) {
    out[path] = node.dump();
  }
}

// A repeat's directory (DIR/repeat-N under --repeats) names its root.
std::string repeat_root_of(const fs::path& dir) {
  const std::string name = dir.filename().string();
  constexpr std::string_view kPrefix = "repeat-";
  if (name.size() <= kPrefix.size() || name.compare(0, kPrefix.size(), kPrefix) != 0) return "";
  const bool number = std::all_of(name.begin() + static_cast<std::ptrdiff_t>(kPrefix.size()),
                                  name.end(), [](unsigned char c) { return std::isdigit(c); });
  return number ? dir.parent_path().string() : "";
}

}  // namespace

std::vector<std::pair<std::string, std::string>> identity_values(const core::RunConfig& config) {
  auto values = experiment::workload_values(config);
  std::erase_if(values, [](const auto& kv) { return kv.first == "load.seed"; });
  return values;
}

std::string workload_identity(const std::vector<std::pair<std::string, std::string>>& values) {
  std::string text;
  for (const auto& [key, value] : values)
    fmt::format_to(std::back_inserter(text), "{}={}\n", key, value);
  return sha256_hex(text).substr(0, 16);
}

std::map<std::string, std::string> flatten_environment(const std::string& environment_json) {
  json env = core::parse_json(environment_json);
  std::map<std::string, std::string> out;
  if (!env.is_object()) return out;
  env.erase("command_line");
  env.erase("started_at");
  flatten(env, "", out);
  return out;
}

bool is_run_results(const std::string& dir) {
  std::error_code ec;
  return fs::is_regular_file(fs::path(dir) / records::kSummaryFile, ec) &&
         fs::is_regular_file(fs::path(dir) / records::kConfigFile, ec) &&
         (fs::is_regular_file(fs::path(dir) / records::kRequestsFile, ec) ||
          fs::is_regular_file(fs::path(dir) / records::kRequestsZstFile, ec));
}

RunEntry entry_from_results(const std::string& dir) {
  std::error_code ec;
  const fs::path root = fs::absolute(dir, ec).lexically_normal();
  if (!is_run_results(root.string())) {
    throw std::runtime_error(
        fmt::format("{} is not a run's results directory (it needs summary.json, config.yaml and "
                    "requests.jsonl)",
                    dir));
  }
  RunEntry e;
  e.dir = root.string();
  if (!e.dir.empty() && e.dir.back() == '/') e.dir.pop_back();
  e.repeat_of = repeat_root_of(fs::path(e.dir));
  const std::string summary_path = (root / records::kSummaryFile).string();
  e.summary = records::read_text_file(summary_path);
  json summary;
  try {
    summary = core::parse_json(e.summary);
  } catch (const std::exception& ex) {
    throw std::runtime_error(fmt::format("{}: {}", summary_path, ex.what()));
  }
  const std::string config_path = (root / records::kConfigFile).string();
  core::RunConfig config;
  try {
    config = core::run_config_from_yaml(records::read_text_file(config_path));
  } catch (const std::exception& ex) {
    throw std::runtime_error(fmt::format("{}: {}", config_path, ex.what()));
  }
  e.workload = identity_values(config);
  e.identity = workload_identity(e.workload);
  e.model = config.model;
  e.base_url = config.base_url;
  e.started_at = config.started_at;
  if (const auto it = summary.find("tokenbench"); it != summary.end() && it->is_object()) {
    if (const auto s = it->find("started_at"); s != it->end() && s->is_string()) {
      e.started_at = s->get<std::string>();
    }
  }
  e.recorded_at = core::wall_clock_iso8601();
  for (const auto& [name, value] : experiment::figures_from_summary(summary)) {
    if (std::isfinite(value)) e.figures[name] = value;
  }
  const std::string env_path = (root / records::kEnvironmentFile).string();
  if (fs::is_regular_file(env_path, ec)) {
    try {
      e.environment = flatten_environment(records::read_text_file(env_path));
    } catch (const std::exception& ex) {
      throw std::runtime_error(fmt::format("{}: {}", env_path, ex.what()));
    }
  }
  for (auto it = e.environment.begin(); it != e.environment.end();) {
    if (it->first.rfind("labels.", 0) == 0) {
      e.labels[it->first.substr(7)] = it->second;
      it = e.environment.erase(it);
    } else {
      ++it;
    }
  }
  return e;
}

}  // namespace tokenbench::history
