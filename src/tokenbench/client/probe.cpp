#include "tokenbench/client/probe.h"

#include <fmt/core.h>
#include <netdb.h>
#include <sys/socket.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <mutex>

#include "tokenbench/client/api_adapter.h"
#include "tokenbench/client/credentials.h"
#include "tokenbench/client/error_classify.h"
#include "tokenbench/client/http_engine.h"
#include "tokenbench/client/http_get.h"
#include "tokenbench/client/http_target.h"
#include "tokenbench/core/clock.h"

namespace tokenbench::client {
namespace {

using Status = ProbeStep::Status;

ProbeStep step(std::string name, Status status, double ms, std::string detail,
               std::string hint = "") {
  return ProbeStep{std::move(name), status, ms, std::move(detail), std::move(hint)};
}

// The host of "scheme://[user@]host[:port]/...", without brackets around an IPv6 address.
std::string host_of(const std::string& url) {
  std::string rest = url.substr(url.find("://") == std::string::npos ? 0 : url.find("://") + 3);
  rest = rest.substr(0, rest.find('/'));
  if (const auto at = rest.rfind('@'); at != std::string::npos) rest = rest.substr(at + 1);
  if (!rest.empty() && rest.front() == '[') return rest.substr(1, rest.find(']') - 1);
  return rest.substr(0, rest.find(':'));
}

double since_ms(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

ProbeStep resolve_step(const ProbeTarget& target) {
  const std::string host = host_of(target.base_url);
  if (const std::string proxy = proxy_for(target.base_url); !proxy.empty()) {
    return step(
        "resolve", Status::kSkipped, -1,
        fmt::format("{} is set: the proxy resolves {} (NO_PROXY exempts hosts)", proxy, host));
  }
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  const auto t0 = std::chrono::steady_clock::now();
  const int rc = getaddrinfo(host.c_str(), nullptr, &hints, &found);
  const double ms = since_ms(t0);
  if (rc != 0) {
    return step("resolve", Status::kFail, ms,
                fmt::format("cannot resolve '{}': {}", host, gai_strerror(rc)),
                "check the host name in --base-url");
  }
  char text[NI_MAXHOST] = {};
  getnameinfo(found->ai_addr, found->ai_addrlen, text, sizeof text, nullptr, 0, NI_NUMERICHOST);
  freeaddrinfo(found);
  return step("resolve", Status::kOk, ms, fmt::format("{} is {}", host, text));
}

void stream_step(const ProbeTarget& target, const std::string& model, ProbeResult& result) {
  core::RunClock clock;
  EngineConfig config;
  config.endpoints = {{target.base_url + target.endpoint, target.headers}};
  config.api = target.api;
  config.timeout_s = target.timeout_s;
  config.connect_timeout_s = target.timeout_s;
  config.max_concurrency = 1;
  config.http2 = target.http2;
  config.tls = target.tls;
  HttpEngine engine(config, clock);
  std::vector<core::RequestSpec> specs(1);
  specs[0].prompt = "Say hello in one short sentence.";
  specs[0].max_tokens = 16;
  BodyOptions body;
  body.model = model;
  body.stream = true;
  const std::vector<std::string> bodies{make_adapter(target.api)->build_body(specs[0], body)};
  ImmediateSource source(specs, bodies, 1, clock.now());
  std::mutex m;
  core::RequestRecord rec;
  engine.run_phase(source, 1, [&](core::RequestRecord&& r) {
    std::lock_guard<std::mutex> lock(m);
    rec = std::move(r);
  });
  const double total = rec.done != core::kNever && rec.sent != core::kNever && rec.done >= rec.sent
                           ? core::to_seconds(rec.done - rec.sent) * 1000
                           : -1;
  const std::string name = "stream";
  if (!rec.ok()) {
    result.steps.push_back(
        step(name, Status::kFail, total,
             fmt::format("POST {}: {}: {}", target.endpoint, core::to_string(rec.error),
                         redact_all(rec.error_message, target.headers)),
             rec.error_message.find("drop --http2") != std::string::npos
                 ? std::string("drop --http2: the server speaks HTTP/1.1 only")
                 : std::string(core::error_hint(rec.error, rec.http_status))));
    return;
  }
  if (!rec.streamed) {
    // It ignored "stream": true and sent one JSON document: no token was ever stamped.
    result.steps.push_back(
        step(name, Status::kFail, total,
             fmt::format("POST {}: the server does not stream (one JSON reply)", target.endpoint),
             "the server ignored \"stream\": true, so there is no time to first token or between "
             "tokens to measure: enable streaming on the server, or run with --no-stream for "
             "end-to-end latency only"));
    return;
  }
  if (rec.first_token == core::kNever || rec.sent == core::kNever) {
    result.steps.push_back(step(
        name, Status::kWarn, total,
        fmt::format("POST {}: no token was stamped, so there is no time to first token ({} tokens)",
                    target.endpoint, rec.output_tokens)));
    return;
  }
  std::string detail = fmt::format(
      "POST {}: first token after {:.1f} ms, {} tokens ({}), finish_reason {}", target.endpoint,
      core::to_seconds(rec.first_token - rec.sent) * 1000, rec.output_tokens,
      rec.output_source == core::TokenSource::kUsage ? "from usage" : "counted as chunks",
      rec.finish_reason.empty() ? "none" : rec.finish_reason);
  if (rec.output_source != core::TokenSource::kUsage) {
    result.steps.push_back(step(name, Status::kWarn, total, detail,
                                "the server sent no usage: output tokens are counted one per "
                                "chunk; --tokenizer counts them exactly"));
    return;
  }
  result.steps.push_back(step(name, Status::kOk, total, detail));
}

// GET /v1/models got no HTTP reply: the step that failed is the connection, the TLS handshake,
// or the request itself when the connection was made (no answer in time, an HTTP/1.1 answer to
// --http2, a reply cut off).
void unanswered(const ProbeTarget& target, const HttpGetResult& models, ProbeResult& result) {
  const auto skip_rest = [&result](std::initializer_list<const char*> names) {
    for (const char* n : names) result.steps.push_back(step(n, Status::kSkipped, -1, "skipped"));
  };
  core::RequestRecord r;
  classify_transport_error(models.code, models.error.c_str(), false, false, r);
  const bool https = target.base_url.rfind("https://", 0) == 0;
  const bool connected =
      models.http1_answer || r.error == core::ErrorClass::kTls ||
      r.error == core::ErrorClass::kTimeout || r.error == core::ErrorClass::kStreamCut ||
      r.error == core::ErrorClass::kMalformed || r.error == core::ErrorClass::kProtocol;
  const double connect_ms = models.connect_ms - std::max(0.0, models.resolve_ms);
  if (!connected) {
    result.steps.push_back(step("connect", Status::kFail, -1,
                                fmt::format("{}: {}", core::to_string(r.error),
                                            redact_all(r.error_message, target.headers)),
                                std::string(core::error_hint(r.error, 0))));
    skip_rest({"tls", "auth", "models", "stream"});
    return;
  }
  result.steps.push_back(step("connect", Status::kOk, connect_ms,
                              fmt::format("{} accepts connections", host_of(target.base_url))));
  if (https && (r.error == core::ErrorClass::kTls || models.tls_ms < 0)) {
    result.steps.push_back(step(
        "tls", Status::kFail, -1,
        r.error == core::ErrorClass::kTls
            ? r.error_message
            : fmt::format("no TLS handshake within {} s: {}", target.timeout_s, r.error_message),
        std::string(core::error_hint(core::ErrorClass::kTls, 0))));
    skip_rest({"auth", "models", "stream"});
    return;
  }
  result.steps.push_back(
      https ? step("tls", Status::kOk, models.tls_ms - models.connect_ms, "certificate verified")
            : step("tls", Status::kSkipped, -1, "plain http"));
  if (models.http1_answer) {
    result.steps.push_back(step("auth", Status::kFail, -1, "GET /v1/models: " + models.error,
                                "drop --http2: the server speaks HTTP/1.1 only"));
  } else if (r.error == core::ErrorClass::kTimeout) {
    result.steps.push_back(
        step("auth", Status::kFail, -1,
             fmt::format("GET /v1/models: no answer within {} s (the connection was made)",
                         target.timeout_s),
             "the server accepted the connection but did not answer: is it still loading the "
             "model, or overloaded? --timeout S waits longer"));
  } else {
    result.steps.push_back(step("auth", Status::kFail, -1,
                                fmt::format("GET /v1/models: {}: {}", core::to_string(r.error),
                                            redact_all(r.error_message, target.headers)),
                                std::string(core::error_hint(r.error, 0))));
  }
  skip_rest({"models", "stream"});
}

}  // namespace

bool ProbeResult::ok() const {
  return std::none_of(steps.begin(), steps.end(),
                      [](const ProbeStep& s) { return s.status == Status::kFail; });
}

std::string redact_all(std::string text, const std::vector<std::string>& headers) {
  std::vector<std::string> secrets;
  add_header_secrets(headers, secrets);
  for (const auto& s : secrets) text = redact(std::move(text), s);
  return text;
}

ProbeResult probe(const ProbeTarget& target) {
  ProbeResult result;
  result.steps.push_back(resolve_step(target));
  const auto skip_rest = [&result](std::initializer_list<const char*> names) {
    for (const char* n : names) result.steps.push_back(step(n, Status::kSkipped, -1, "skipped"));
  };
  if (result.steps.back().status == Status::kFail) {
    skip_rest({"connect", "tls", "auth", "models", "stream"});
    return result;
  }

  const HttpGetResult models =
      http_get(target.base_url + "/v1/models", target.headers, target.timeout_s,
               {target.tls, target.http2 ? std::vector<std::string>{target.base_url}
                                         : std::vector<std::string>{}});
  const bool https = target.base_url.rfind("https://", 0) == 0;
  const double resolved = std::max(0.0, models.resolve_ms);
  if (!models.transport_ok) {
    unanswered(target, models, result);
    return result;
  }
  result.steps.push_back(step("connect", Status::kOk, models.connect_ms - resolved,
                              fmt::format("{} accepts connections", host_of(target.base_url))));
  if (https) {
    result.steps.push_back(
        step("tls", Status::kOk, models.tls_ms - models.connect_ms, "certificate verified"));
  } else {
    result.steps.push_back(step("tls", Status::kSkipped, -1, "plain http"));
  }

  const double answered = models.first_byte_ms - std::max(models.connect_ms, models.tls_ms);
  const std::string not_api = non_api_reply(models);
  if (models.status >= 300 && models.status < 400) {
    result.steps.push_back(
        step("auth", Status::kSkipped, -1,
             fmt::format("GET /v1/models answered HTTP {} (a redirect): the key was not judged",
                         models.status)));
  } else if (models.status == 401 || models.status == 403) {
    result.steps.push_back(
        step("auth", Status::kFail, answered,
             fmt::format("GET /v1/models answered HTTP {}: the server rejected {}", models.status,
                         target.key_origin),
             std::string(core::error_hint(core::ErrorClass::kHttp4xx, 401))));
    skip_rest({"models", "stream"});
    return result;
  }
  // key_origin reads "the API key from $X (...)" or "the request: no API key was sent (...)".
  const std::string unkeyed = "the request: ";
  const std::string sent = target.key_origin.rfind(unkeyed, 0) == 0
                               ? target.key_origin.substr(unkeyed.size())
                               : "it accepted " + target.key_origin;
  if (models.status < 300 || models.status >= 400) {
    result.steps.push_back(
        step("auth", Status::kOk, answered,
             fmt::format("GET /v1/models answered HTTP {}; {}", models.status, sent)));
  }

  const ModelList list = parse_model_list(models.body);
  result.model = target.model;
  if (list.ids.empty()) {
    const std::string what = !not_api.empty() ? "GET /v1/models " + not_api
                             : models.status == 200
                                 ? "GET /v1/models names no model"
                                 : fmt::format("GET /v1/models answered HTTP {}: {}", models.status,
                                               ApiAdapter::error_message_from_body(models.body));
    if (target.model.empty()) {
      result.steps.push_back(step("models", Status::kFail, -1, what,
                                  not_api.empty()
                                      ? "pass --model NAME (the name the server serves)"
                                      : "point --base-url at the API server itself (a login page "
                                        "or a proxy answered), or pass --model NAME"));
      skip_rest({"stream"});
      return result;
    }
    result.steps.push_back(step("models", Status::kWarn, -1, what + "; using --model"));
  } else {
    std::string ids;
    for (std::size_t i = 0; i < list.ids.size() && i < 5; ++i) {
      ids += (i ? ", " : "") + list.ids[i];
    }
    if (list.ids.size() > 5) ids += fmt::format(", and {} more", list.ids.size() - 5);
    if (target.model.empty()) {
      result.model = list.ids.front();
      result.steps.push_back(step("models", Status::kOk, -1, "serves " + ids));
    } else if (std::find(list.ids.begin(), list.ids.end(), target.model) == list.ids.end()) {
      result.steps.push_back(
          step("models", Status::kWarn, -1, fmt::format("serves {}, not '{}'", ids, target.model),
               "a server that ignores the name answers with another model: check --model"));
    } else {
      result.steps.push_back(step("models", Status::kOk, -1, "serves " + ids));
    }
  }
  if (target.stream_request) stream_step(target, result.model, result);
  return result;
}

}  // namespace tokenbench::client
