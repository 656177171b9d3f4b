#include "tokenbench/core/run_config.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <stdexcept>

#include "tokenbench/core/config_check.h"
#include "tokenbench/core/run_options.h"
#include "tokenbench/core/secret_fields.h"

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
    case ApiKind::kRerank:
      return "/v1/rerank";
    case ApiKind::kScore:
      return "/v1/score";
    case ApiKind::kSglangGenerate:
      return "/generate";
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

std::optional<MetricsUrl> parse_metrics_url(std::string_view text) {
  MetricsUrl out;
  if (const auto comma = text.rfind(",name="); comma != std::string_view::npos) {
    const std::string_view name = text.substr(comma + 6);
    const bool ok =
        !name.empty() && name.size() <= 64 && std::all_of(name.begin(), name.end(), [](char ch) {
          return std::isalnum(static_cast<unsigned char>(ch)) != 0 ||
                 std::string_view("-_.:").find(ch) != std::string_view::npos;
        });
    if (!ok) return std::nullopt;
    out.name = std::string(name);
    text = text.substr(0, comma);
  }
  if (!is_http_url(text)) return std::nullopt;
  out.url = std::string(text);
  return out;
}

std::string redact_metrics_value(const std::string& value) {
  const auto m = parse_metrics_url(value);
  if (!m) return value;
  return m->name.empty() ? redact_query(m->url) : redact_query(m->url) + ",name=" + m->name;
}

ServerMetricsSource server_metrics_source(const RunConfig& config) {
  ServerMetricsSource out;
  for (const std::string& value : config.server_metrics) {
    if (value == "auto") continue;
    if (value == "off") {
      out.off = true;
      continue;
    }
    auto url = parse_metrics_url(value);
    if (!url) {
      throw ConfigError(fmt::format(
          "--server-metrics '{}' is not auto, off or an http(s):// URL with an optional "
          ",name=NAME (letters, digits, - _ . :)",
          redact_query(value)));
    }
    out.urls.push_back(std::move(*url));
  }
  if (out.off && !out.urls.empty()) {
    throw ConfigError(
        "--server-metrics off scrapes nothing, yet a URL was given too: drop one of them");
  }
  return out;
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
