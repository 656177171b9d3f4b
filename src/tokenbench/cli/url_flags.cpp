// --base-url, --endpoint, --api, --target and --model: what is measured, and where.

#include <fmt/core.h>

#include <cstdio>
#include <string_view>

#include "tokenbench/cli/run_flag_parts.h"
#include "tokenbench/client/credentials.h"
#include "tokenbench/client/http_get.h"
#include "tokenbench/client/http_target.h"
#include "tokenbench/core/text.h"

namespace tokenbench::cli {
namespace {

std::string trim_slashes(std::string url) {
  while (!url.empty() && url.back() == '/') url.pop_back();
  return url;
}

// The authority of an http(s) URL (after "scheme://", before the path): [userinfo@]host[:port]
// with a host name, an IPv4 address or a bracketed IPv6 address, and a port from 1 to 65535.
// Returns why it is not one, or "".
std::string authority_problem(std::string_view authority) {
  if (const auto at = authority.rfind('@'); at != std::string_view::npos) {
    authority.remove_prefix(at + 1);  // user:password@ (credentials, never shown)
  }
  std::string_view host = authority;
  std::string_view port;
  if (!authority.empty() && authority.front() == '[') {
    const auto close = authority.find(']');
    if (close == std::string_view::npos) return "its IPv6 address has no closing ']'";
    host = authority.substr(0, close + 1);
    const std::string_view rest = authority.substr(close + 1);
    if (!rest.empty() && rest.front() != ':') return "text follows its IPv6 address's ']'";
    if (!rest.empty()) port = rest.substr(1);
    if (host.size() == 2) return "its IPv6 address is empty";
  } else {
    if (const auto colon = authority.rfind(':'); colon != std::string_view::npos) {
      host = authority.substr(0, colon);
      port = authority.substr(colon + 1);
      if (host.find(':') != std::string_view::npos) {
        return "an IPv6 address goes in brackets, e.g. http://[::1]:8000";
      }
    }
    if (host.find_first_of("[]") != std::string_view::npos) return "its host holds a bracket";
  }
  if (host.empty()) return "it names no host";
  if (host.find_first_of(" \t<>\"{}|\\^`") != std::string_view::npos) {
    return "its host holds a character a host name cannot";
  }
  if (authority.size() != host.size() && port.empty()) return "its port is empty";
  if (!port.empty()) {
    if (port.size() > 5 || port.find_first_not_of("0123456789") != std::string_view::npos) {
      return "its port '" + std::string(port) + "' is not a number from 1 to 65535";
    }
    const int n = std::stoi(std::string(port));
    if (n < 1 || n > 65535) return "its port " + std::to_string(n) + " is not from 1 to 65535";
  }
  return "";
}

std::string checked_url(const std::string& given) {
  std::string url = trim_slashes(given);
  const bool https = url.rfind("https://", 0) == 0;
  if (url.rfind("http://", 0) != 0 && !https) {
    throw UsageError("--base-url '" + core::one_line(url) +
                     "' must start with http:// or https:// (e.g. http://127.0.0.1:8000)");
  }
  const std::size_t start = https ? 8 : 7;
  const std::size_t end = url.find_first_of("/?#", start);
  const std::size_t length = end == std::string::npos ? std::string::npos : end - start;
  const std::string problem = authority_problem(std::string_view(url).substr(start, length));
  if (!problem.empty()) {
    throw UsageError("--base-url '" + core::one_line(client::split_userinfo(url).first) +
                     "' is not a valid URL: " + problem + " (e.g. http://127.0.0.1:8000)");
  }
  return url;
}

// Every server URL the flags name: --base-url and each --target's url=.
std::vector<std::string> target_urls(const RunFlags& f) {
  std::vector<std::string> urls = f.base_urls;
  for (const auto& t : f.target_items) {
    if (const auto at = t.find("url="); at != std::string::npos) {
      urls.push_back(t.substr(at + 4, t.find(',', at) - at - 4));
    }
  }
  return urls;
}

}  // namespace

std::pair<std::string, std::string> split_api_path(const std::string& url) {
  const auto scheme_end = url.find("://");
  const auto path_start = url.find('/', scheme_end == std::string::npos ? 0 : scheme_end + 3);
  if (path_start == std::string::npos) return {url, ""};
  const std::string path = url.substr(path_start);
  for (const char* endpoint : {"/v1/chat/completions", "/v1/completions", "/v1/embeddings",
                               "/v1/messages", "/v1/responses", "/v1/rerank", "/v1/score"}) {
    const std::string e(endpoint);
    if (path.size() >= e.size() && path.compare(path.size() - e.size(), e.size(), e) == 0) {
      return {url.substr(0, url.size() - e.size()), e};
    }
  }
  if (path.size() >= 3 && path.compare(path.size() - 3, 3, "/v1") == 0) {
    return {url.substr(0, url.size() - 3), "/v1"};
  }
  return {url, ""};
}

// checked_url, then split_api_path; says in one line what it changed. A whole endpoint found in
// the URL becomes `endpoint`; an --endpoint given that differs from it is refused.
std::string forgiving_url(const std::string& given, std::string& endpoint, bool endpoint_given,
                          bool* from_url) {
  const std::string url = checked_url(given);
  auto [base, found] = split_api_path(url);
  if (found.empty()) return url;
  // Said without the URL's user:password@, which is a credential.
  const std::string shown_url = client::split_userinfo(url).first;
  const std::string shown_base = client::split_userinfo(base).first;
  if (found == "/v1") {
    std::fprintf(stderr,
                 "tokenbench: note: --base-url ends in /v1: using %s as the server root (the "
                 "endpoint %s carries the /v1)\n",
                 shown_base.c_str(), endpoint.c_str());
    return base;
  }
  if (endpoint_given && endpoint != found) {
    throw UsageError(fmt::format(
        "--base-url {} names the endpoint {}, but --endpoint says {}: give the server root as "
        "--base-url, or leave out --endpoint (the URL decides)",
        shown_url, found, endpoint));
  }
  endpoint = found;
  if (from_url != nullptr) *from_url = true;
  std::fprintf(stderr,
               "tokenbench: note: --base-url %s is a whole endpoint URL: using base %s and "
               "--endpoint %s\n",
               shown_url.c_str(), shown_base.c_str(), endpoint.c_str());
  return base;
}

core::ApiKind resolve_api(const std::string& api, const std::string& endpoint) {
  if (api.empty()) {
    const auto ends_with = [&endpoint](std::string_view tail) {
      return endpoint.size() >= tail.size() &&
             endpoint.compare(endpoint.size() - tail.size(), tail.size(), tail) == 0;
    };
    if (ends_with("/embeddings")) return core::ApiKind::kEmbeddings;
    if (ends_with("/rerank")) return core::ApiKind::kRerank;
    if (ends_with("/score")) return core::ApiKind::kScore;
    if (ends_with("/messages")) return core::ApiKind::kAnthropicMessages;
    if (ends_with("/responses")) return core::ApiKind::kOpenAIResponses;
    if (ends_with("/generate")) return core::ApiKind::kSglangGenerate;
    return endpoint.find("chat") != std::string::npos ? core::ApiKind::kOpenAIChat
                                                      : core::ApiKind::kOpenAICompletions;
  }
  if (const auto kind = core::api_kind_from_string(api)) return *kind;
  throw UsageError("--api '" + api +
                   "' is not known: use openai-chat, openai (legacy completions), "
                   "openai-embeddings, anthropic-messages, openai-responses, rerank, score or "
                   "sglang-generate");
}

core::ApiKind settle_api(const std::string& api, std::string& endpoint, bool endpoint_given,
                         bool endpoint_from_url) {
  const core::ApiKind kind = resolve_api(api, endpoint);
  if (api.empty() || endpoint_given) return kind;
  if (endpoint_from_url) {
    // The URL names what is measured: an --api of another API would change it.
    if (resolve_api("", endpoint) != kind) {
      throw UsageError(fmt::format(
          "--api {} does not fit the endpoint {} that the URL names: leave out --api (the URL "
          "decides), or give the server root as --base-url",
          api, endpoint));
    }
    return kind;
  }
  // --api alone moves the endpoint to that API's usual path.
  if (endpoint == core::RunConfig{}.endpoint) endpoint = core::default_endpoint(kind);
  return kind;
}

core::TargetSpec parse_target(const std::string& item) {
  core::TargetSpec t;
  for (const auto& part : split_commas(item)) {
    const auto eq = part.find('=');
    const std::string key = part.substr(0, eq);
    const std::string value = eq == std::string::npos ? "" : part.substr(eq + 1);
    if (eq == std::string::npos || value.empty()) {
      if (item.find("://") != std::string::npos && item.find('=') == std::string::npos) {
        throw UsageError("--target '" + item +
                         "': GuideLLM's --target URL is --base-url URL here (tokenbench's "
                         "--target is model=NAME[,url=URL], one of several targets compared)");
      }
      throw UsageError("--target '" + item +
                       "': each part is KEY=VALUE, e.g. --target model=llama,url=http://h:8000");
    }
    if (key == "model") {
      t.model = value;
    } else if (key == "url") {
      t.base_url = value;
    } else if (key == "key-env") {
      t.api_key_env = value;
    } else if (key == "name") {
      t.name = value;
    } else {
      throw UsageError(fmt::format(
          "--target '{}': unknown key '{}' (use model, url, key-env, name)", item, key));
    }
  }
  if (t.model.empty()) throw UsageError("--target '" + item + "' needs model=NAME");
  return t;
}

void settle_base_urls(RunFlags& f, bool& endpoint_from_url) {
  core::RunConfig& c = f.config;
  if (f.base_urls.empty()) throw UsageError("--base-url needs a URL");
  c.replica_urls.clear();
  for (const auto& url : f.base_urls) {
    c.replica_urls.push_back(forgiving_url(url, c.endpoint, f.endpoint_given, &endpoint_from_url));
  }
  c.base_url = c.replica_urls.front();
  if (c.replica_urls.size() == 1) c.replica_urls.clear();
  const auto balance = core::kBalanceNames.parse(f.balance);
  if (!balance) {
    throw UsageError("--balance '" + f.balance +
                     "' is not known: use round-robin or least-inflight");
  }
  c.balance = *balance;
}

void check_transport_urls(const RunFlags& f) {
  const core::RunConfig& c = f.config;
  const bool curl = c.transport == core::TransportMode::kCurl;
  if (c.stamps == core::StampsMode::kKernel) {
    // Kernel stamps need the native transport: refuse rather than silently fall back.
    for (const auto& url : target_urls(f)) {
      const std::string proxy = client::proxy_for(url);
      const bool web = url.rfind("http://", 0) == 0 || url.rfind("https://", 0) == 0;
      if (curl || !web || !proxy.empty()) {
        throw UsageError(
            "--stamps kernel needs the native transport, which carries http:// and https:// "
            "without a proxy; " +
            (curl             ? std::string("--transport curl is set")
             : !proxy.empty() ? fmt::format("{} applies to {}", proxy, url)
                              : url + " is not http(s)://") +
            ": use --stamps auto (user-space stamps there)");
      }
    }
  }
  if (c.http2) {
    // libcurl carries proxied endpoints (and all with --transport curl); old ones break h2c.
    for (const auto& url : target_urls(f)) {
      if (curl || !client::proxy_for(url).empty()) {
        if (const std::string problem = client::curl_http2_problem(url); !problem.empty()) {
          throw UsageError(problem);
        }
      }
    }
  }
}

void settle_targets(RunFlags& f, bool& endpoint_from_url) {
  core::RunConfig& c = f.config;
  c.targets.clear();
  for (const auto& item : f.target_items) {
    c.targets.push_back(parse_target(item));
    auto& url = c.targets.back().base_url;
    if (!url.empty()) url = forgiving_url(url, c.endpoint, f.endpoint_given, &endpoint_from_url);
  }
}

void settle_models(RunFlags& f) {
  core::RunConfig& c = f.config;
  const auto models = split_commas(f.models);
  if (models.size() > 1) {
    if (!c.targets.empty()) throw UsageError("use either --target or --model a,b,c, not both");
    for (const auto& m : models) {
      if (m.empty()) throw UsageError("--model '" + f.models + "' has an empty name");
      c.targets.push_back({m, "", m, ""});
    }
  } else {
    c.model = f.models;
  }
  if (c.targets.size() == 1) {  // one target is a plain run
    if (!c.targets[0].base_url.empty()) c.base_url = c.targets[0].base_url;
    c.model = c.targets[0].model;
    if (!c.targets[0].api_key_env.empty()) c.api_key_env = c.targets[0].api_key_env;
    c.targets.clear();
  }
}

}  // namespace tokenbench::cli
