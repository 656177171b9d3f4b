#pragma once

#include <optional>
#include <string>
#include <vector>

namespace tokenbench::client {

/// Finds the API key: the environment variable `env_name` when set and not empty, else a
/// `env_name=VALUE` line of the dotenv file at `dotenv_path` (KEY=VALUE lines; `export ` prefixes,
/// surrounding quotes and # comments allowed). The key is returned to be put in a header and must
/// never be printed or written to any output.
std::optional<std::string> find_api_key(const std::string& env_name,
                                        const std::string& dotenv_path = ".env");

/// The first model id of a /v1/models reply ({"data":[{"id":...}]}), or nullopt.
std::optional<std::string> first_model_id(const std::string& models_body);

/// Removes credentials from text meant for people (error messages that echo a request):
/// every occurrence of `secret` becomes "<redacted>".
std::string redact(std::string text, const std::string& secret);

}  // namespace tokenbench::client
