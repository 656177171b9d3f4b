#include "tokenbench/core/request.h"

#include <array>
#include <utility>

namespace tokenbench::core {
namespace {

constexpr std::array<std::pair<Phase, std::string_view>, 4> kPhases{{{Phase::kWarmup, "warmup"},
                                                                     {Phase::kMeasure, "measure"},
                                                                     {Phase::kCooldown, "cooldown"},
                                                                     {Phase::kDropped, "dropped"}}};

constexpr std::array<std::pair<ErrorClass, std::string_view>, 17> kErrors{{
    {ErrorClass::kNone, "none"},
    {ErrorClass::kConnect, "connect"},
    {ErrorClass::kTls, "tls"},
    {ErrorClass::kTimeout, "timeout"},
    {ErrorClass::kHttp4xx, "http_4xx"},
    {ErrorClass::kHttp5xx, "http_5xx"},
    {ErrorClass::kRateLimited, "rate_limited"},
    {ErrorClass::kStreamCut, "stream_cut"},
    {ErrorClass::kMalformed, "malformed"},
    {ErrorClass::kServerError, "server_error"},
    {ErrorClass::kCanceled, "canceled"},
    {ErrorClass::kConnectTimeout, "connect_timeout"},
    {ErrorClass::kTtftTimeout, "ttft_timeout"},
    {ErrorClass::kStallTimeout, "stall_timeout"},
    {ErrorClass::kRedirect, "redirect"},
    {ErrorClass::kProtocol, "protocol"},
    {ErrorClass::kEmptyReply, "empty_reply"},
}};

constexpr std::array<std::pair<TokenSource, std::string_view>, 6> kSources{{
    {TokenSource::kUnknown, "unknown"},
    {TokenSource::kUsage, "usage"},
    {TokenSource::kTokenizer, "tokenizer"},
    {TokenSource::kChunks, "chunks"},
    {TokenSource::kDataset, "dataset"},
    {TokenSource::kApproximate, "approximate"},
}};

constexpr std::array<std::pair<StampSource, std::string_view>, 2> kStampSources{{
    {StampSource::kUser, "user"},
    {StampSource::kKernel, "kernel"},
}};

template <typename E, std::size_t N>
std::string_view name_of(const std::array<std::pair<E, std::string_view>, N>& table, E value) {
  for (const auto& [v, name] : table) {
    if (v == value) return name;
  }
  return "unknown";
}

template <typename E, std::size_t N>
std::optional<E> value_of(const std::array<std::pair<E, std::string_view>, N>& table,
                          std::string_view name) {
  for (const auto& [v, n] : table) {
    if (n == name) return v;
  }
  return std::nullopt;
}

}  // namespace

std::string_view to_string(Phase p) { return name_of(kPhases, p); }
std::string_view to_string(ErrorClass e) { return name_of(kErrors, e); }
std::string_view to_string(TokenSource s) { return name_of(kSources, s); }
std::string_view to_string(StampSource s) { return name_of(kStampSources, s); }
std::optional<StampSource> stamp_source_from_string(std::string_view s) {
  return value_of(kStampSources, s);
}
std::optional<Phase> phase_from_string(std::string_view s) { return value_of(kPhases, s); }
std::optional<ErrorClass> error_class_from_string(std::string_view s) {
  return value_of(kErrors, s);
}
std::optional<TokenSource> token_source_from_string(std::string_view s) {
  return value_of(kSources, s);
}

std::string_view error_hint(ErrorClass error, int http_status) {
  switch (error) {
    case ErrorClass::kConnect:
      return "is the server running at --base-url? Behind a proxy, check HTTP_PROXY/HTTPS_PROXY, "
             "and NO_PROXY for hosts that must be reached directly";
    case ErrorClass::kConnectTimeout:
      return "the host did not accept a connection in time: check the address, a firewall, or "
             "HTTP(S)_PROXY/NO_PROXY; raise --connect-timeout for a slow network";
    case ErrorClass::kTls:
      return "check https:// against http:// and the server's certificate (verified against the "
             "system's CA store; --cacert FILE trusts a private CA or a self-signed server, "
             "--insecure skips the check on a test server)";
    case ErrorClass::kTimeout:
      return "the reply took longer than --timeout: raise it, lower the load, or cap --output-len";
    case ErrorClass::kTtftTimeout:
      return "no first token within --ttft-timeout: the server is queueing; lower the load or "
             "raise --ttft-timeout";
    case ErrorClass::kStallTimeout:
      return "the reply stopped mid-way for longer than --stall-timeout: the server or a proxy "
             "stalled; raise --stall-timeout if the pauses are expected";
    case ErrorClass::kHttp4xx:
      if (http_status == 401 || http_status == 403) {
        return "check the API key and how it is passed: --api-key-env names its variable "
               "(default OPENAI_API_KEY), or --header 'Authorization: Bearer ...'";
      }
      if (http_status == 404) {
        return "check --endpoint (or --api) and --model against what the server serves "
               "(GET /v1/models)";
      }
      if (http_status == 400 || http_status == 413 || http_status == 422) {
        return "the server refused the request body: check --model, --input-len/--output-len "
               "against its context length, and --extra-body";
      }
      return "";
    case ErrorClass::kRateLimited:
      return "the server or gateway is rate-limiting: lower --request-rate or --max-concurrency, "
             "or let --retries retry with backoff";
    case ErrorClass::kHttp5xx:
      return "the server failed: see its log; a 502/503/504 often means an overloaded server or "
             "a proxy in front of it";
    case ErrorClass::kRedirect:
      return "the URL redirects: give the final URL (the Location shown) as --base-url";
    case ErrorClass::kStreamCut:
      return "the connection closed mid-reply: see the server's log (a crash, an OOM, a proxy "
             "timeout)";
    case ErrorClass::kMalformed:
      return "the reply is not the OpenAI API: check --base-url, --endpoint and --api";
    case ErrorClass::kProtocol:
      return "the reply broke the client's bounds or the protocol (HTTP/2 frames it refused, an "
             "HTTP/1.1 answer to --http2): see the message; --max-event-bytes and "
             "--max-reply-bytes raise the limits for a server that needs them";
    case ErrorClass::kEmptyReply:
      return "the server answered 200 with no output: check --model and the prompt (or the "
             "server's log); a content filter or a template error can do this";
    case ErrorClass::kServerError:
    case ErrorClass::kCanceled:
    case ErrorClass::kNone:
      return "";
  }
  return "";
}

}  // namespace tokenbench::core
