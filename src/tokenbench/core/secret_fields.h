#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "tokenbench/core/run_config.h"

namespace tokenbench::core {

/// What a credential's value is written as, wherever it is kept or shown.
inline constexpr std::string_view kRedactedValue = "<redacted>";

/// Whether a query parameter or a JSON field named `name` looks like it holds a credential. The
/// name is cut into words (at any character but a letter or digit, and where a lower-case letter
/// meets an upper-case one: "apiKey" is "api" and "Key"); it does when a word, ignoring case,
/// ends with key, token, secret, password, passwd, signature, credential or credentials, is auth
/// or sig, or begins with authoriz or authent. So api-key, X-Amz-Signature, access_token and
/// Authorization do; max_tokens, tokenizer and author do not.
bool is_credential_name(std::string_view name);

/// `url` with the value of each query parameter whose name is_credential_name written as
/// kRedactedValue; each value cut (as written, and percent-decoded when that differs) is added
/// to `values` when given. A URL without such a parameter comes back unchanged.
std::string redact_query(const std::string& url, std::vector<std::string>* values = nullptr);

/// A JSON text (the request body's --extra-body) with the value of each field, at any depth,
/// whose name is_credential_name and whose value is a string written as kRedactedValue; the
/// strings cut are added to `values` when given. Text that is not JSON comes back unchanged.
std::string redact_json_fields(const std::string& json_text,
                               std::vector<std::string>* values = nullptr);

/// A shell command line (--serve-cmd, a hook) as results keep it: the value after a flag whose
/// name is_credential_name ("--api-key K", "--api-key=K", "--hf-token K") and of an environment
/// assignment whose name is one ("HF_TOKEN=K") written as kRedactedValue; words split at spaces.
std::string redact_command(const std::string& command);

/// The name of the first query parameter of `url` whose value is kRedactedValue, or "".
std::string redacted_query_parameter(const std::string& url);

/// The path (a.b.c) of the first field of a JSON text whose value is kRedactedValue, or "".
std::string redacted_json_field(const std::string& json_text);

/// `level` (read back from config.yaml text) with each value that config.yaml redacted (the
/// base URL's and endpoint's query, --server-metrics, the extra body) taken from `own`, the same
/// run's configuration as given, when `level`'s is exactly `own`'s redacted form.
RunConfig with_secrets_of(RunConfig level, const RunConfig& own);

}  // namespace tokenbench::core
