#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "tokenbench/core/run_config.h"

namespace tokenbench::core {

/// The accepted range of every numeric setting of a run, named by its flag. Beyond these a run
/// would allocate without bound (--num-prompts, --max-concurrency), overflow its schedule
/// (--request-rate, --duration) or mean nothing; within them it is a run someone could want.
inline constexpr std::int64_t kMaxNumPrompts = 10'000'000;
inline constexpr int kMaxConcurrency = 100'000;
inline constexpr double kMinRequestRate = 1e-3;  ///< one request every 1000 s
inline constexpr double kMaxRequestRate = 1e7;
inline constexpr double kMaxSeconds =
    1e6;  ///< --duration, --timeout, --ramp-up-duration: 11.6 days
/// The shortest timeout (--timeout, --connect-timeout, --ttft-timeout, --stall-timeout): 1 ms. The
/// engine counts in milliseconds, so a smaller one would truncate to 0, which means none.
inline constexpr double kMinTimeoutSeconds = 1e-3;
inline constexpr std::int64_t kMaxTokens = 10'000'000;  ///< --input-len, --output-len, prefix
inline constexpr int kMaxWorkers = 1024;

/// A setting out of its range: one line naming the flag, the value and the range.
class ConfigError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

/// Checks every numeric setting of `config` against its range (above; --num-prompts from 1 unless
/// --duration bounds the run) and throws ConfigError on the first out of range, e.g.
/// "--request-rate 1e-300 is out of range: give 0.001 to 1e+07 per second, or inf". Every number
/// must be finite (--request-rate may be inf), and --ramp-up-duration and --ramp-up-start-rps
/// need --ramp-up (they would be kept in config.yaml with no effect). Pure; any
/// thread. The CLI calls it once the flags (and defaults) are merged into the config, and again
/// for each level of a sweep.
void validate(const RunConfig& config);

/// The load of one measurement as it will run: a --duration run at an unlimited --request-rate
/// needs --max-concurrency (it would otherwise send its whole prompt pool at once, and again).
/// Throws ConfigError. The CLI calls it for each level of a sweep; `search` does not, since each
/// of its probes sets the rate or the concurrency.
void validate_load(const RunConfig& config);

/// validate, then every check across the options of one run that needs no network and no file:
/// the options only some APIs take, replicas and targets, --ramp-up's rate, --header's syntax,
/// --extra-body's JSON, the dataset's flags, --replay, --multi-turn's, --lora-modules. Throws
/// ConfigError naming the flags (the CLI prints it as it is). The CLI calls it once, after the
/// flags are merged into the config; what needs the environment, a file or another module's
/// parser (URLs and proxies, --dataset-path, --input-dist's syntax, --slo) stays in cli/.
void validate_run(const RunConfig& config);

/// Each --header must look like "Name: value" on one line, its name an RFC 9110 token (no
/// spaces, not empty). Throws ConfigError naming it.
void check_headers(const std::vector<std::string>& headers);

/// Throws ConfigError unless --otlp-endpoint is empty or an http(s) URL and every --otlp-header
/// is NAME=VALUE with an HTTP token for a name and no line break (given with an endpoint); a
/// message names a header by its name alone (part of validate_run; `report` checks it too).
void check_otlp(const RunConfig& config);

}  // namespace tokenbench::core
