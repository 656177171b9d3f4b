#include "tokenbench/core/run_config.h"

#include <algorithm>
#include <cctype>
#include <stdexcept>

#include "tokenbench/core/run_options.h"

namespace tokenbench::core {
bool is_secret_header(const std::string& header) {
  std::string name = header.substr(0, header.find(':'));
  std::transform(name.begin(), name.end(), name.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  for (const char* word : {"auth", "key", "token", "secret", "password", "cookie", "session"}) {
    if (name.find(word) != std::string::npos) return true;
  }
  return false;
}

std::string to_string(ApiKind a) { return name_of(kApiNames, a); }

std::optional<ApiKind> api_kind_from_string(const std::string& name) {
  return kApiNames.parse(name);
}

std::string default_endpoint(ApiKind api) {
  switch (api) {
    case ApiKind::kOpenAIChat:
      return "/v1/chat/completions";
    case ApiKind::kOpenAICompletions:
      return "/v1/completions";
    case ApiKind::kEmbeddings:
      return "/v1/embeddings";
    case ApiKind::kAnthropicMessages:
      return "/v1/messages";
    case ApiKind::kOpenAIResponses:
      return "/v1/responses";
  }
  return "/v1/chat/completions";
}

std::string to_string(ArrivalKind a) { return name_of(kArrivalNames, a); }

std::string to_string(RampKind r) { return name_of(kRampNames, r); }

std::string to_string(BalanceKind b) { return name_of(kBalanceNames, b); }
std::string to_string(Dataset d) { return name_of(kDatasetNames, d); }

std::int64_t ideal_cache_block(const RunConfig& c) {
  if (c.cache_block >= 0) return c.cache_block;
  const bool shares = c.dataset == Dataset::kJobs || c.dataset == Dataset::kSharedPrefix ||
                      c.dataset == Dataset::kMooncake || c.multi_turn || c.random_prefix_len > 0 ||
                      c.prefix_hit_rate >= 0;
  return shares ? kDefaultCacheBlock : 0;
}

namespace {

bool is_http_url(std::string_view text) {
  return text.starts_with("http://") || text.starts_with("https://");
}

}  // namespace

std::string to_string(const ServerMetricsSource& s) {
  switch (s.mode) {
    case ServerMetricsSource::Mode::kAuto:
      return "auto";
    case ServerMetricsSource::Mode::kOff:
      return "off";
    case ServerMetricsSource::Mode::kUrl:
      return s.url;
  }
  return "auto";
}

std::optional<ServerMetricsSource> parse_server_metrics(std::string_view text) {
  using Mode = ServerMetricsSource::Mode;
  if (text == "auto") return ServerMetricsSource{Mode::kAuto, ""};
  if (text == "off") return ServerMetricsSource{Mode::kOff, ""};
  if (is_http_url(text)) return ServerMetricsSource{Mode::kUrl, std::string(text)};
  return std::nullopt;
}

std::string to_string(const GpuMetricsSource& s) {
  switch (s.mode) {
    case GpuMetricsSource::Mode::kAuto:
      return "auto";
    case GpuMetricsSource::Mode::kOff:
      return "off";
    case GpuMetricsSource::Mode::kNvidiaSmi:
      return "nvidia-smi";
    case GpuMetricsSource::Mode::kDcgm:
      return "dcgm=" + s.url;
  }
  return "auto";
}

std::optional<GpuMetricsSource> parse_gpu_metrics(std::string_view text) {
  using Mode = GpuMetricsSource::Mode;
  if (text == "auto") return GpuMetricsSource{Mode::kAuto, ""};
  if (text == "off") return GpuMetricsSource{Mode::kOff, ""};
  if (text == "nvidia-smi") return GpuMetricsSource{Mode::kNvidiaSmi, ""};
  constexpr std::string_view kDcgm = "dcgm=";
  if (text.starts_with(kDcgm) && is_http_url(text.substr(kDcgm.size()))) {
    return GpuMetricsSource{Mode::kDcgm, std::string(text.substr(kDcgm.size()))};
  }
  return std::nullopt;
}

}  // namespace tokenbench::core
