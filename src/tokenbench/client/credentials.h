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

/// Removes credentials from text meant for people (error messages that echo a request):
/// every occurrence of `secret` becomes "<redacted>".
std::string redact(std::string text, const std::string& secret);

}  // namespace tokenbench::client
