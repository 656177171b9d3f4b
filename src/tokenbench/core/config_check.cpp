#include "tokenbench/core/config_check.h"

#include <fmt/format.h>

#include <cmath>
#include <string_view>
#include <utility>

#include "tokenbench/core/run_options.h"
#include "tokenbench/core/secret_fields.h"
#include "tokenbench/core/text.h"

namespace tokenbench::core {
namespace {

// `value` in [lo, hi] (NaN never is); else ConfigError naming `flag` and the range.
template <typename T>
void in_range(std::string_view flag, T value, T lo, T hi, std::string_view unit = {}) {
  if (value >= lo && value <= hi) return;
  throw ConfigError(fmt::format("{} {} is out of range: give {} to {}{}", flag, value, lo, hi,
                                unit.empty() ? std::string() : " " + std::string(unit)));
}

// `value` in (0, hi]: a positive amount of something.
void positive(std::string_view flag, double value, double hi, std::string_view unit) {
  if (value > 0 && value <= hi) return;
  throw ConfigError(
      fmt::format("{} {} is out of range: give more than 0, at most {} {}", flag, value, hi, unit));
}

// A value config.yaml kept as <redacted> (a credential in a query string or the body) cannot be
// sent: the replay must give it again.
void refuse_redacted(const RunConfig& c) {
  const auto url = [](std::string_view flag, const std::string& value) {
    const std::string name = redacted_query_parameter(value);
    if (name.empty()) return;
    throw ConfigError(fmt::format(
        "{} has the query parameter '{}' as {}: config.yaml never keeps credentials; give {} "
        "again with its value",
        flag, name, kRedactedValue, flag));
  };
  url("--base-url", c.base_url);
  url("--endpoint", c.endpoint);
  for (const auto& m : server_metrics_source(c).urls) url("--server-metrics", m.url);
  for (const auto& r : c.replica_urls) url("--base-url", r);
  for (const auto& t : c.targets) url("--target", t.base_url);
  if (const std::string field = redacted_json_field(c.extra_body); !field.empty()) {
    throw ConfigError(fmt::format(
        "--extra-body has the field '{}' as {}: config.yaml never keeps credentials; give "
        "--extra-body again with its value",
        field, kRedactedValue));
  }
}

// Every number of a configuration is finite (--request-rate may be inf: all at once). A NaN
// passes no "out of range" test of the form !(lo <= v <= hi) only where a check is written so.
void finite_numbers(const RunConfig& c) {
  const std::pair<const char*, double> numbers[] = {
      {"--timeout", c.timeout_s},
      {"--connect-timeout", c.connect_timeout_s},
      {"--ttft-timeout", c.ttft_timeout_s},
      {"--stall-timeout", c.stall_timeout_s},
      {"--burstiness", c.burstiness},
      {"--replay-speed", c.replay_speed},
      {"--duration", c.duration_s},
      {"--ramp-up-start-rps", c.ramp_up_start_rps},
      {"--ramp-up-duration", c.ramp_up_duration_s},
      {"--drop-first", c.drop_first_pct},
      {"--range-ratio", c.range_ratio},
      {"--metrics-interval", c.metrics_interval_s},
      {"--max-error-rate", c.max_error_rate},
      {"--abort-on-error-rate", c.abort_on_error_rate},
  };
  for (const auto& [flag, value] : numbers) {
    if (!std::isfinite(value)) {
      throw ConfigError(
          fmt::format("{} {}: give a finite number (not NaN or infinity)", flag, value));
    }
  }
  if (std::isnan(c.request_rate) || c.request_rate < 0) {
    throw ConfigError(fmt::format("--request-rate {}: give a number > 0, or inf", c.request_rate));
  }
  for (const double p : c.percentiles) {
    if (!std::isfinite(p)) {
      throw ConfigError(fmt::format("--percentiles {}: give a finite number", p));
    }
  }
}

// --ramp-up-duration and --ramp-up-start-rps shape a ramp: without --ramp-up they would be kept
// in config.yaml with no effect (and a NaN there would not replay).
void ramp_flags(const RunConfig& c) {
  if (c.ramp_up != RampKind::kNone) return;
  const RunConfig d;
  if (c.ramp_up_duration_s != d.ramp_up_duration_s) {
    throw ConfigError(fmt::format(
        "--ramp-up-duration {} needs --ramp-up (linear or exponential): add it, or leave out "
        "--ramp-up-duration",
        c.ramp_up_duration_s));
  }
  if (c.ramp_up_start_rps != d.ramp_up_start_rps) {
    throw ConfigError(fmt::format(
        "--ramp-up-start-rps {} needs --ramp-up (linear or exponential): add it, or leave out "
        "--ramp-up-start-rps",
        c.ramp_up_start_rps));
  }
}

}  // namespace

void validate_load(const RunConfig& c) {
  if (c.num_prompts <= 0 && std::isinf(c.request_rate) && c.max_concurrency <= 0) {
    throw ConfigError(
        "--duration with an unlimited request rate needs --max-concurrency N (or --request-rate)");
  }
}

void validate(const RunConfig& c) {
  refuse_redacted(c);
  if (c.probe_rate > 0 && c.api != ApiKind::kOpenAIChat && c.api != ApiKind::kOpenAICompletions) {
    throw ConfigError(
        "--probe-rate sends OpenAI chat or completions requests: it does not speak --api " +
        std::string(to_string(c.api)));
  }
  if (c.steady_state != "off" && c.steady_state != "auto") {
    throw ConfigError("--steady-state '" + one_line(c.steady_state) +
                      "' is not known: give off or auto");
  }
  if (c.duration_s > 0 || c.num_prompts != 0) {
    in_range<std::int64_t>("--num-prompts", c.num_prompts, c.duration_s > 0 ? 0 : 1,
                           kMaxNumPrompts);
  } else {
    throw ConfigError(
        fmt::format("--num-prompts 0 is out of range: give 1 to {}, or a --duration to run for",
                    kMaxNumPrompts));
  }
  // The ranges of the option table (run_options.h), in its order.
  for (const auto& row : run_options()) check_option_range(row, c);
  if (!std::isinf(c.request_rate) || c.request_rate < 0) {
    if (!(c.request_rate >= kMinRequestRate && c.request_rate <= kMaxRequestRate)) {
      throw ConfigError(
          fmt::format("--request-rate {} is out of range: give {} to {} per second, or inf",
                      c.request_rate, kMinRequestRate, kMaxRequestRate));
    }
  }
  if (!(c.burstiness > 0 && c.burstiness <= 1000)) {
    throw ConfigError(fmt::format(
        "--burstiness {} is out of range: give more than 0, at most 1000 (1 is Poisson)",
        c.burstiness));
  }
  if (c.ramp_up != RampKind::kNone) {
    positive("--ramp-up-duration", c.ramp_up_duration_s, kMaxSeconds, "seconds");
    if (!(c.ramp_up_start_rps > 0 && c.ramp_up_start_rps <= c.request_rate)) {
      throw ConfigError(
          fmt::format("--ramp-up-start-rps {} is out of range: give more than 0, at most the "
                      "--request-rate ({})",
                      c.ramp_up_start_rps, c.request_rate));
    }
  }
  if (!(c.drop_first_pct >= 0 && c.drop_first_pct < 100)) {
    throw ConfigError(
        fmt::format("--drop-first {} is out of range: give a percentage from 0 to less than 100",
                    c.drop_first_pct));
  }
  in_range<std::int64_t>(
      "--output-len", c.output_len, c.dataset == Dataset::kRandom ? 1 : 0, kMaxTokens,
      c.dataset == Dataset::kRandom ? "tokens" : "tokens (0 leaves max_tokens unset)");
  if (!(c.range_ratio >= 0 && c.range_ratio < 1)) {
    throw ConfigError(
        fmt::format("--range-ratio {} is out of range: give 0 to less than 1", c.range_ratio));
  }
  if (c.nonstream_sample != 0) {
    const std::int64_t most = c.num_prompts > 0 ? c.num_prompts : 4096;  // a --duration pool
    in_range<std::int64_t>("--nonstream-sample", c.nonstream_sample, 0, most,
                           c.num_prompts > 0 ? "requests (at most --num-prompts)"
                                             : "requests (at most 4096 with --duration)");
    if (!c.stream) {
      throw ConfigError(
          "--nonstream-sample compares non-streamed requests with streamed ones: drop --no-stream");
    }
  }
  if (!(c.max_error_rate >= 0 && c.max_error_rate <= 1)) {
    throw ConfigError(fmt::format(
        "--max-error-rate {} is out of range: give a share from 0 (any failed request fails the "
        "run) to 1 (never), e.g. 0.05",
        c.max_error_rate));
  }
  if (!(c.abort_on_error_rate >= 0 && c.abort_on_error_rate < 1)) {
    throw ConfigError(fmt::format(
        "--abort-on-error-rate {} is out of range: give a share from 0 to less than 1, e.g. 0.5 "
        "(0: never)",
        c.abort_on_error_rate));
  }
  for (const double p : c.percentiles) {
    if (!(p > 0 && p < 100)) {
      throw ConfigError(fmt::format(
          "--percentiles {} is out of range: give numbers between 0 and 100 (e.g. 50,90,99)", p));
    }
  }
  // Last: a value that no range above caught (a setting checked only in some modes).
  finite_numbers(c);
  ramp_flags(c);
}

}  // namespace tokenbench::core
