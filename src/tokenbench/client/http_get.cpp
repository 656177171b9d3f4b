#include "tokenbench/client/http_get.h"

#include <curl/curl.h>
#include <poll.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <string_view>

#include "tokenbench/client/credentials.h"

namespace tokenbench::client {
namespace {

std::size_t append(char* data, std::size_t size, std::size_t n, void* userp) {
  auto* body = static_cast<std::string*>(userp);
  if (body->size() + size * n > kMaxGetBody) return 0;  // a reply that does not end
  body->append(data, size * n);
  return size * n;
}

// The value of header `line` when its name is `name` (lower case, with the colon), trimmed.
bool header_value(std::string_view line, std::string_view name, std::string_view& value) {
  if (line.size() <= name.size()) return false;
  for (std::size_t i = 0; i < name.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(line[i])) != name[i]) return false;
  }
  value = line.substr(name.size());
  while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) value.remove_prefix(1);
  while (!value.empty() && (value.back() == '\n' || value.back() == '\r' || value.back() == ' ')) {
    value.remove_suffix(1);
  }
  return true;
}

// Keeps the `Server:`, `Location:` and `Content-Type:` headers of the reply (of the last one,
// when curl reads several).
std::size_t on_header(char* data, std::size_t size, std::size_t n, void* userp) {
  auto* result = static_cast<HttpGetResult*>(userp);
  const std::string_view line(data, size * n);
  if (line.rfind("HTTP/", 0) == 0) {
    result->server_header.clear();
    result->location.clear();
    result->content_type.clear();
  }
  std::string_view value;
  if (header_value(line, "server:", value)) {
    result->server_header.assign(value.substr(0, 256));
  } else if (header_value(line, "location:", value)) {
    result->location.assign(value.substr(0, 512));
  } else if (header_value(line, "content-type:", value)) {
    result->content_type.assign(value.substr(0, 256));
  }
  return size * n;
}

// Whether the server at `url` (http://) answers the HTTP/2 connection preface in HTTP/1.x: the
// first bytes it sends back begin "HTTP/1.". libcurl reports such an answer as an empty reply.
bool answers_preface_in_http1(const std::string& url, double timeout_s) {
  CURL* easy = curl_easy_init();
  if (easy == nullptr) return false;
  curl_easy_setopt(easy, CURLOPT_URL, url.c_str());
  curl_easy_setopt(easy, CURLOPT_CONNECT_ONLY, 1L);
  curl_easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(easy, CURLOPT_TIMEOUT_MS, static_cast<long>(timeout_s * 1000));
  std::string got;
  if (curl_easy_perform(easy) == CURLE_OK) {
    // The preface, then an empty SETTINGS frame.
    static constexpr char kPreface[] = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n\0\0\0\4\0\0\0\0\0";
    std::size_t sent = 0;
    curl_socket_t fd = CURL_SOCKET_BAD;
    curl_easy_getinfo(easy, CURLINFO_ACTIVESOCKET, &fd);
    const auto deadline = std::chrono::steady_clock::now() +
                          std::chrono::milliseconds(static_cast<long>(timeout_s * 1000));
    bool ok = curl_easy_send(easy, kPreface, sizeof kPreface - 1, &sent) == CURLE_OK &&
              sent == sizeof kPreface - 1;
    while (ok && got.size() < 7 && std::chrono::steady_clock::now() < deadline) {
      char buf[64];
      std::size_t n = 0;
      const CURLcode rc = curl_easy_recv(easy, buf, sizeof buf, &n);
      if (rc == CURLE_AGAIN) {
        pollfd p{fd, POLLIN, 0};
        poll(&p, 1, 50);
        continue;
      }
      ok = rc == CURLE_OK && n > 0;
      got.append(buf, n);
    }
  }
  curl_easy_cleanup(easy);
  return got.rfind("HTTP/1.", 0) == 0;
}

double info_ms(CURL* easy, CURLINFO info) {
  curl_off_t us = 0;
  if (curl_easy_getinfo(easy, info, &us) != CURLE_OK || us <= 0) return -1;
  return static_cast<double>(us) / 1000.0;
}

bool speaks_http2(const HttpGetOptions& options, const std::string& url) {
  const std::string origin = origin_of(url);
  return std::any_of(options.http2_servers.begin(), options.http2_servers.end(),
                     [&origin](const std::string& base) { return origin_of(base) == origin; });
}

}  // namespace

HttpGetOptions get_options(const core::RunConfig& config) {
  HttpGetOptions options;
  options.tls = {config.ca_file, config.insecure};
  if (config.http2) {
    options.http2_servers.push_back(config.base_url);
    options.http2_servers.insert(options.http2_servers.end(), config.replica_urls.begin(),
                                 config.replica_urls.end());
    for (const auto& t : config.targets) {
      if (!t.base_url.empty()) options.http2_servers.push_back(t.base_url);
    }
  }
  return options;
}

void ensure_curl_initialized() {
  static const bool done = [] { return curl_global_init(CURL_GLOBAL_ALL) == CURLE_OK; }();
  (void)done;
}

void apply_tls_options(CURL* easy, const TlsOptions& tls) {
  if (!tls.ca_file.empty()) curl_easy_setopt(easy, CURLOPT_CAINFO, tls.ca_file.c_str());
  if (tls.insecure) {
    curl_easy_setopt(easy, CURLOPT_SSL_VERIFYPEER, 0L);
    curl_easy_setopt(easy, CURLOPT_SSL_VERIFYHOST, 0L);
  }
}

std::string curl_http2_problem(const std::string& url) {
  if (url.rfind("http://", 0) != 0) return "";
  const curl_version_info_data* info = curl_version_info(CURLVERSION_NOW);
  if (info->version_num >= 0x080000) return "";
  return std::string("libcurl ") + info->version +
         " cannot reuse an HTTP/2 connection without TLS (h2c; curl issue 10634, fixed in 8.0), "
         "so --http2 to " +
         url +
         " needs tokenbench's own transport: drop --transport curl, or exempt the host "
         "from the proxy (no_proxy)";
}

std::string non_api_reply(const HttpGetResult& reply) {
  const std::string status = "answered HTTP " + std::to_string(reply.status);
  if (reply.status >= 300 && reply.status < 400) {
    return status +
           (reply.location.empty() ? std::string(", a redirect without a Location")
                                   : ", a redirect to " + reply.location) +
           " (tokenbench follows no redirect)";
  }
  if (reply.status < 200 || reply.status >= 300) return "";
  std::string type = reply.content_type.substr(0, reply.content_type.find(';'));
  for (char& c : type) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (type.find("json") != std::string::npos) return "";
  const std::size_t first = reply.body.find_first_not_of(" \t\r\n");
  if (type.empty() && first != std::string::npos &&
      (reply.body[first] == '{' || reply.body[first] == '[')) {
    return "";  // unlabelled, but JSON
  }
  return status + (type.empty() ? std::string(" with no Content-Type") : " with " + type) +
         ", not JSON";
}

HttpGetResult http_get(const std::string& url, const std::vector<std::string>& headers,
                       double timeout_s, const HttpGetOptions& options) {
  ensure_curl_initialized();
  HttpGetResult result;
  CURL* easy = curl_easy_init();
  if (easy == nullptr) {
    result.error = "curl_easy_init failed";
    return result;
  }
  curl_slist* list = nullptr;
  for (const auto& h : headers) list = curl_slist_append(list, h.c_str());
  if (options.post) list = curl_slist_append(list, "Content-Type: application/json");
  char error[CURL_ERROR_SIZE] = {};
  curl_easy_setopt(easy, CURLOPT_URL, url.c_str());
  if (options.post) {
    curl_easy_setopt(easy, CURLOPT_POST, 1L);
    curl_easy_setopt(easy, CURLOPT_POSTFIELDS, options.post->c_str());
    curl_easy_setopt(easy, CURLOPT_POSTFIELDSIZE, static_cast<long>(options.post->size()));
  }
  const bool http2 = speaks_http2(options, url);
  if (http2) {
    // A fresh handle, so a fresh connection: libcurl 7.88's h2c reuse bug does not apply.
    curl_easy_setopt(easy, CURLOPT_HTTP_VERSION,
                     url.rfind("https://", 0) == 0 ? CURL_HTTP_VERSION_2TLS
                                                   : CURL_HTTP_VERSION_2_PRIOR_KNOWLEDGE);
  }
  curl_easy_setopt(easy, CURLOPT_HTTPHEADER, list);
  curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, &append);
  curl_easy_setopt(easy, CURLOPT_WRITEDATA, &result.body);
  curl_easy_setopt(easy, CURLOPT_HEADERFUNCTION, &on_header);
  curl_easy_setopt(easy, CURLOPT_HEADERDATA, &result);
  curl_easy_setopt(easy, CURLOPT_ERRORBUFFER, error);
  curl_easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(easy, CURLOPT_TIMEOUT_MS, static_cast<long>(timeout_s * 1000));
  apply_tls_options(easy, options.tls);
  const CURLcode rc = curl_easy_perform(easy);
  result.code = rc;
  result.resolve_ms = info_ms(easy, CURLINFO_NAMELOOKUP_TIME_T);
  result.connect_ms = info_ms(easy, CURLINFO_CONNECT_TIME_T);
  result.tls_ms = info_ms(easy, CURLINFO_APPCONNECT_TIME_T);
  result.first_byte_ms = info_ms(easy, CURLINFO_STARTTRANSFER_TIME_T);
  result.total_ms = info_ms(easy, CURLINFO_TOTAL_TIME_T);
  if (rc == CURLE_WRITE_ERROR) {
    result.error = "the reply exceeded " + std::to_string(kMaxGetBody >> 20) + " MiB";
  } else if (rc == CURLE_OK) {
    result.transport_ok = true;
    curl_easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &result.status);
  } else {
    result.error = error[0] != '\0' ? error : curl_easy_strerror(rc);
    if (http2 && url.rfind("http://", 0) == 0 &&
        (rc == CURLE_GOT_NOTHING || rc == CURLE_HTTP2 || rc == CURLE_RECV_ERROR ||
         rc == CURLE_SEND_ERROR ||  // it answered and closed while libcurl still sent
         rc == CURLE_HTTP2_STREAM || rc == CURLE_WEIRD_SERVER_REPLY) &&
        answers_preface_in_http1(url, timeout_s)) {
      result.http1_answer = true;
      result.error = "the server answered in HTTP/1.1: it does not speak h2c; drop --http2";
    }
    if (result.error.find("HTTP/0.9") != std::string::npos && url.rfind("http://", 0) == 0) {
      // An h2c-only server answers an HTTP/1.1 request with HTTP/2 frames, which libcurl takes
      // for a headerless HTTP/0.9 reply.
      result.error +=
          " (the server did not answer in HTTP/1.1: an HTTP/2-only server does this; add --http2)";
    }
  }
  curl_slist_free_all(list);
  curl_easy_cleanup(easy);
  return result;
}

}  // namespace tokenbench::client
