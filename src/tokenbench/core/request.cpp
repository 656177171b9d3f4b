#include "tokenbench/core/request.h"

#include <array>
#include <utility>

namespace tokenbench::core {
namespace {

constexpr std::array<std::pair<Phase, std::string_view>, 4> kPhases{{{Phase::kWarmup, "warmup"},
                                                                     {Phase::kMeasure, "measure"},
                                                                     {Phase::kCooldown, "cooldown"},
                                                                     {Phase::kDropped, "dropped"}}};

constexpr std::array<std::pair<ErrorClass, std::string_view>, 11> kErrors{{
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
}};

constexpr std::array<std::pair<TokenSource, std::string_view>, 6> kSources{{
    {TokenSource::kUnknown, "unknown"},
    {TokenSource::kUsage, "usage"},
    {TokenSource::kTokenizer, "tokenizer"},
    {TokenSource::kChunks, "chunks"},
    {TokenSource::kDataset, "dataset"},
    {TokenSource::kApproximate, "approximate"},
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
std::optional<Phase> phase_from_string(std::string_view s) { return value_of(kPhases, s); }
std::optional<ErrorClass> error_class_from_string(std::string_view s) {
  return value_of(kErrors, s);
}
std::optional<TokenSource> token_source_from_string(std::string_view s) {
  return value_of(kSources, s);
}

}  // namespace tokenbench::core
