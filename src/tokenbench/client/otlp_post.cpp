#include "tokenbench/client/otlp_post.h"

#include <fmt/format.h>

#include "tokenbench/client/credentials.h"
#include "tokenbench/core/secret_fields.h"
#include "tokenbench/core/text.h"

namespace tokenbench::client {

std::string otlp_metrics_url(const std::string& endpoint) {
  const auto scheme = endpoint.find("://");
  const std::size_t authority = scheme == std::string::npos ? 0 : scheme + 3;
  const auto path = endpoint.find_first_of("/?#", authority);
  if (path == std::string::npos) return endpoint + "/v1/metrics";
  // "http://host:4318/" and "http://host:4318/?q": no path of its own.
  const auto query = endpoint.find_first_of("?#", path);
  const std::string path_text = endpoint.substr(path, query - path);
  if (path_text.empty() || path_text == "/") {
    return endpoint.substr(0, path) + "/v1/metrics" +
           (query == std::string::npos ? std::string() : endpoint.substr(query));
  }
  return endpoint;
}

std::string shown_otlp_url(const std::string& endpoint) {
  return core::one_line(core::redact_query(split_userinfo(otlp_metrics_url(endpoint)).first));
}

std::vector<std::string> otlp_header_lines(const std::vector<std::string>& items) {
  std::vector<std::string> lines;
  for (const auto& item : items) {
    const auto eq = item.find('=');
    if (eq == std::string::npos || eq == 0) continue;
    lines.push_back(item.substr(0, eq) + ": " + item.substr(eq + 1));
  }
  return lines;
}

std::string post_otlp_metrics(const std::string& endpoint, const std::vector<std::string>& headers,
                              const std::string& body, const HttpGetOptions& options,
                              double timeout_s) {
  const std::string url = otlp_metrics_url(endpoint);
  HttpGetOptions post = options;
  post.post = body;
  post.http2_servers.clear();  // a collector speaks HTTP/1.1 (or h2 by ALPN over TLS)
  const HttpGetResult r = http_get(url, otlp_header_lines(headers), timeout_s, post);
  const std::string shown = shown_otlp_url(endpoint);
  if (!r.transport_ok) {
    std::string error = r.error;
    for (const auto& h : headers) {  // libcurl's message never holds one; be sure
      if (const auto eq = h.find('='); eq != std::string::npos && eq + 1 < h.size()) {
        error = redact(std::move(error), h.substr(eq + 1));
      }
    }
    return fmt::format("the OTLP export to {} failed: {}", shown, core::one_line(error));
  }
  if (r.status >= 200 && r.status < 300) return "";
  return fmt::format("the OTLP export to {} was refused: HTTP {}", shown, r.status);
}

}  // namespace tokenbench::client
