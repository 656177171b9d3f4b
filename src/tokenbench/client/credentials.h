#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tokenbench/core/run_config.h"

namespace tokenbench::client {

/// Finds the API key: the environment variable `env_name` when set and not empty, else a
/// `env_name=VALUE` line of the dotenv file at `dotenv_path` (KEY=VALUE lines; `export ` prefixes,
/// surrounding quotes and # comments allowed). The key is returned to be put in a header and must
/// never be printed or written to any output.
std::optional<std::string> find_api_key(const std::string& env_name,
                                        const std::string& dotenv_path = ".env");

/// What a GET /v1/models reply says. Plain data.
struct ModelList {
  std::vector<std::string> ids;  ///< every model id, in the reply's order
  /// serve-sim's --time-scale, from a model's "tokenbench_sim": {"time_scale": X}; absent for
  /// any other server, and when X is not a finite positive number.
  std::optional<double> sim_time_scale;
};

/// Parses a /v1/models reply ({"data":[{"id":...}, ...]}); an unparseable one gives no ids.
ModelList parse_model_list(const std::string& models_body);

/// The first model id of a /v1/models reply ({"data":[{"id":...}]}), or nullopt.
std::optional<std::string> first_model_id(const std::string& models_body);

/// Splits "scheme://user:pass@host/..." into the URL without its credentials and the credentials
/// ("user:pass"; "" when none).
std::pair<std::string, std::string> split_userinfo(const std::string& url);

/// Adds the secrets of a URL's user-info ("user:pass", and "pass" alone) to `secrets`.
void add_userinfo_secrets(const std::string& userinfo, std::vector<std::string>& secrets);

/// Adds the values of credential headers (core::is_secret_header; a Bearer token also alone).
void add_header_secrets(const std::vector<std::string>& headers, std::vector<std::string>& secrets);

/// The origin of an absolute URL, as RFC 6454 compares them: "scheme://host:port", scheme and
/// host in lower case, the port written even when it is the scheme's default (http 80, https
/// 443), user-info dropped; "" for text that is not an absolute URL.
std::string origin_of(const std::string& url);

/// The headers to send to `url` on behalf of a target at `target_url`: all of `headers` when both
/// share an origin or `cross_origin` is allowed, else those without credentials
/// (core::is_secret_header). `withheld`, when given, says whether any was left out.
std::vector<std::string> headers_for_origin(const std::string& url, const std::string& target_url,
                                            const std::vector<std::string>& headers,
                                            bool cross_origin, bool* withheld = nullptr);

/// Where the API key came from, in words, for a message that must not show it: "the API key from
/// $OPENAI_API_KEY (sent as 'Authorization: Bearer <key>')", or that none was sent.
std::string key_origin(const std::string& env_name, core::ApiKind api = core::ApiKind::kOpenAIChat);

/// The header that carries `key` for `api`: 'x-api-key: KEY' for Anthropic's Messages API,
/// 'Authorization: Bearer KEY' for the others.
std::string auth_header(core::ApiKind api, const std::string& key);

/// Adds to `headers` what `api` requires beside the user's: Anthropic's 'anthropic-version'
/// (client::kAnthropicVersion) unless `headers` names one.
void add_api_headers(core::ApiKind api, std::vector<std::string>& headers);

/// A secret this long or longer is cut wherever it occurs; a shorter one (a local server's
/// "--api-key test") only where it stands alone, so that tokenbench's own words stay whole.
inline constexpr std::size_t kWholeWordSecret = 16;

/// An API key shorter than this is too short to be a real one: the run warns.
inline constexpr std::size_t kShortestRealKey = 8;

/// A one-line warning (no newline, the key not shown) when `key`, read from `env_name`, is
/// shorter than kShortestRealKey; "" otherwise.
std::string short_key_warning(const std::string& key, const std::string& env_name);

/// Whether the occurrence of a secret of `size` bytes at `at` in `text` is one to cut: always
/// when size >= kWholeWordSecret; else unless it lies inside a longer run of letters and digits
/// (the "x" in "maximum" is not the key "x"; the one in "Bearer x" or "key=x" is).
bool stands_alone(std::string_view text, std::size_t at, std::size_t size);

/// Removes credentials from text meant for people (error messages that echo a request): every
/// occurrence of `secret` that stands_alone becomes "<redacted>".
std::string redact(std::string text, const std::string& secret);

}  // namespace tokenbench::client
