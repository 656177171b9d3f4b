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

}  // namespace tokenbench::core
