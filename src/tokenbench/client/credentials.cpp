#include "tokenbench/client/credentials.h"

#include <fmt/core.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string_view>

#include "tokenbench/client/api_adapter.h"
#include "tokenbench/core/input_limits.h"
#include "tokenbench/core/json_parse.h"
#include "tokenbench/core/run_config.h"

namespace tokenbench::client {
namespace {

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return "";
  const auto e = s.find_last_not_of(" \t\r\n");
  return s.substr(b, e - b + 1);
}

}  // namespace

std::optional<std::string> find_api_key(const std::string& env_name,
                                        const std::string& dotenv_path) {
  if (env_name.empty()) return std::nullopt;
  if (const char* v = std::getenv(env_name.c_str()); v != nullptr && v[0] != '\0') {
    return std::string(v);
  }
  std::ifstream in(dotenv_path);
  std::string line;
  core::LineReader lines(in, dotenv_path);
  while (lines.next(line)) {
    std::string t = trim(line);
    if (t.empty() || t[0] == '#') continue;
    if (t.rfind("export ", 0) == 0) t = trim(t.substr(7));
    const auto eq = t.find('=');
    if (eq == std::string::npos || trim(t.substr(0, eq)) != env_name) continue;
    std::string value = trim(t.substr(eq + 1));
    if (value.size() >= 2 && (value.front() == '"' || value.front() == '\'') &&
        value.back() == value.front()) {
      value = value.substr(1, value.size() - 2);
    } else if (const auto hash = value.find(" #"); hash != std::string::npos) {
      value = trim(value.substr(0, hash));
    }
    if (!value.empty()) return value;
  }
  return std::nullopt;
}

ModelList parse_model_list(const std::string& models_body) {
  ModelList out;
  const auto j = core::parse_json_or_discarded(models_body);
  if (!j.is_object() || !j.contains("data") || !j["data"].is_array()) return out;
  for (const auto& m : j["data"]) {
    if (!m.is_object()) continue;
    if (m.contains("id") && m["id"].is_string()) out.ids.push_back(m["id"].get<std::string>());
    const auto sim = m.find("tokenbench_sim");
    if (sim != m.end() && sim->is_object() && sim->contains("time_scale") &&
        (*sim)["time_scale"].is_number()) {
      // A scale of zero or below would turn --sim-time's rescaled stamps into nonsense: such
      // a reply is not serve-sim's.
      const double scale = (*sim)["time_scale"].get<double>();
      if (std::isfinite(scale) && scale > 0) out.sim_time_scale = scale;
    }
  }
  return out;
}

std::optional<std::string> first_model_id(const std::string& models_body) {
  const ModelList list = parse_model_list(models_body);
  if (list.ids.empty()) return std::nullopt;
  return list.ids.front();
}

std::string short_key_warning(const std::string& key, const std::string& env_name) {
  if (key.size() >= kShortestRealKey) return "";
  return fmt::format(
      "tokenbench: warning: the API key from ${} is {} character{} long, too short to be a real "
      "key; it is hidden in outputs only where it stands alone as a value",
      env_name, key.size(), key.size() == 1 ? "" : "s");
}

bool stands_alone(std::string_view text, std::size_t at, std::size_t size) {
  const auto alnum = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; };
  if (size >= kWholeWordSecret) return true;
  const bool glued_before = at > 0 && alnum(text[at - 1]) && alnum(text[at]);
  const bool glued_after =
      at + size < text.size() && alnum(text[at + size]) && alnum(text[at + size - 1]);
  return !glued_before && !glued_after;
}

std::string redact(std::string text, const std::string& secret) {
  if (secret.empty()) return text;
  static constexpr std::string_view kRedacted = "<redacted>";
  // The search resumes after each replacement: a key that occurs in "<redacted>" itself (say
  // "d") would otherwise be found in it again and again, without end.
  for (auto pos = text.find(secret); pos != std::string::npos; pos = text.find(secret, pos)) {
    if (!stands_alone(text, pos, secret.size())) {
      ++pos;
      continue;
    }
    text.replace(pos, secret.size(), kRedacted);
    pos += kRedacted.size();
  }
  return text;
}

std::pair<std::string, std::string> split_userinfo(const std::string& url) {
  const auto scheme_end = url.find("://");
  if (scheme_end == std::string::npos) return {url, ""};
  const auto authority = scheme_end + 3;
  const auto authority_end = url.find('/', authority);
  const auto at = url.rfind('@', authority_end == std::string::npos ? url.size() : authority_end);
  if (at == std::string::npos || at < authority) return {url, ""};
  return {url.substr(0, authority) + url.substr(at + 1), url.substr(authority, at - authority)};
}

void add_userinfo_secrets(const std::string& userinfo, std::vector<std::string>& secrets) {
  if (userinfo.empty()) return;
  secrets.push_back(userinfo);
  if (const auto colon = userinfo.find(':'); colon != std::string::npos) {
    secrets.push_back(userinfo.substr(colon + 1));
  }
}

void add_header_secrets(const std::vector<std::string>& headers,
                        std::vector<std::string>& secrets) {
  for (const auto& h : headers) {
    if (!core::is_secret_header(h)) continue;
    std::string value = h.substr(h.find(':') + 1);
    value.erase(0, value.find_first_not_of(' '));
    if (value.rfind("Bearer ", 0) == 0) secrets.push_back(value.substr(7));
    if (!value.empty()) secrets.push_back(value);
  }
}

std::string origin_of(const std::string& url) {
  const auto scheme_end = url.find("://");
  if (scheme_end == std::string::npos || scheme_end == 0) return "";
  std::string scheme = url.substr(0, scheme_end);
  std::string authority = split_userinfo(url).first.substr(scheme_end + 3);
  authority = authority.substr(0, authority.find_first_of("/?#"));
  const auto lower = [](std::string s) {
    std::transform(s.begin(), s.end(), s.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return s;
  };
  scheme = lower(scheme);
  authority = lower(authority);
  const auto close = authority.rfind(']');
  const auto colon = authority.rfind(':');
  const bool has_port = colon != std::string::npos && (close == std::string::npos || colon > close);
  std::string host = has_port ? authority.substr(0, colon) : authority;
  std::string port = has_port ? authority.substr(colon + 1) : "";
  if (port.empty()) port = scheme == "https" ? "443" : scheme == "http" ? "80" : "";
  if (host.empty()) return "";
  return scheme + "://" + host + (port.empty() ? "" : ":" + port);
}

std::vector<std::string> headers_for_origin(const std::string& url, const std::string& target_url,
                                            const std::vector<std::string>& headers,
                                            bool cross_origin, bool* withheld) {
  if (withheld != nullptr) *withheld = false;
  const std::string origin = origin_of(url);
  if (cross_origin || (!origin.empty() && origin == origin_of(target_url))) return headers;
  std::vector<std::string> out;
  for (const auto& h : headers) {
    if (!core::is_secret_header(h)) {
      out.push_back(h);
    } else if (withheld != nullptr) {
      *withheld = true;
    }
  }
  return out;
}

std::string key_origin(const std::string& env_name, core::ApiKind api) {
  const std::string sent =
      api == core::ApiKind::kAnthropicMessages ? "x-api-key: <key>" : "Authorization: Bearer <key>";
  const char* env = std::getenv(env_name.c_str());
  if (env != nullptr && *env != '\0') {
    return fmt::format("the API key from ${} (sent as '{}')", env_name, sent);
  }
  if (find_api_key(env_name)) {
    return fmt::format("the API key from {}= in ./.env (sent as '{}')", env_name, sent);
  }
  return fmt::format("the request: no API key was sent (${} is not set, nor in ./.env)", env_name);
}

std::string auth_header(core::ApiKind api, const std::string& key) {
  return api == core::ApiKind::kAnthropicMessages ? "x-api-key: " + key
                                                  : "Authorization: Bearer " + key;
}

void add_api_headers(core::ApiKind api, std::vector<std::string>& headers) {
  if (api != core::ApiKind::kAnthropicMessages) return;
  constexpr std::string_view kName = "anthropic-version:";
  for (const auto& h : headers) {
    if (h.size() >= kName.size() &&
        std::equal(kName.begin(), kName.end(), h.begin(), [](char a, char b) {
          return a == std::tolower(static_cast<unsigned char>(b));
        })) {
      return;
    }
  }
  headers.push_back(std::string("anthropic-version: ") + kAnthropicVersion);
}

}  // namespace tokenbench::client
