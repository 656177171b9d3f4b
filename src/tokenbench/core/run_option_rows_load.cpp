// The load: section of config.yaml (run_options.h).

#include <yaml-cpp/yaml.h>

#include <cmath>
#include <limits>

#include "tokenbench/core/config_check.h"
#include "tokenbench/core/run_option_rows.h"

namespace tokenbench::core::rows {
namespace {

using C = RunConfig;

constexpr TextSyntax<3> kGpuMetricsSyntax{
    "auto, nvidia-smi, off or dcgm=URL (an http(s):// URL of a DCGM exporter's /metrics)",
    {"auto", "nvidia-smi", "off"}};

// One value as it was given, a list when several were; URLs with their query's credentials cut.
void write_server_metrics(YAML::Emitter& out, const C& c) {
  out << YAML::Key << "server_metrics" << YAML::Value;
  std::vector<std::string> shown;
  shown.reserve(c.server_metrics.size());
  for (const auto& value : c.server_metrics) shown.push_back(redact_metrics_value(value));
  if (shown.size() == 1) {
    out << shown.front();
  } else {
    out << YAML::Flow << shown;
  }
}

// A value or a list of them (config.yaml of older runs: one value).
void read_server_metrics(const YAML::Node& l, C& c) {
  const YAML::Node n = l["server_metrics"];
  if (!n) return;
  c.server_metrics = n.IsSequence() ? n.as<std::vector<std::string>>()
                                    : std::vector<std::string>{n.as<std::string>()};
}

// YAML has no infinity literal that every reader agrees on; we write ".inf" as YAML 1.2 does.
void write_request_rate(YAML::Emitter& out, const C& c) {
  out << YAML::Key << "request_rate" << YAML::Value;
  if (std::isinf(c.request_rate)) {
    out << ".inf";
  } else {
    out << c.request_rate;
  }
}

void read_request_rate(const YAML::Node& l, C& c) {
  const YAML::Node n = l["request_rate"];
  if (!n) return;
  const auto s = n.as<std::string>();
  c.request_rate =
      s == ".inf" || s == "inf" ? std::numeric_limits<double>::infinity() : n.as<double>();
}

// A config.yaml from before abort_on_error_rate: its max_error_rate was the in-run stop.
void read_error_rates(const YAML::Node& l, C& c) {
  if (l["abort_on_error_rate"]) {
    c.max_error_rate = l["max_error_rate"] ? l["max_error_rate"].as<double>() : 0.5;
    c.abort_on_error_rate = l["abort_on_error_rate"].as<double>();
  } else if (l["max_error_rate"]) {
    c.abort_on_error_rate = l["max_error_rate"].as<double>();
  }
}

void read_nothing(const YAML::Node&, C&) {}

}  // namespace

std::vector<RunOption> load_rows() {
  return {
      {.flag = "--max-concurrency",
       .section = "load",
       .key = "max_concurrency",
       .field = &C::max_concurrency,
       .help = "Requests in flight at most (closed loop); 0: unlimited. A list (1,8,32) "
               "sweeps",
       .cli = OptionCli::kNone,
       .rule = ConfigRule::kJoin,
       .range = {OptionRange::kInRange, 0, kMaxConcurrency, "(0: unlimited)"}},
      {.flag = "--request-rate",
       .section = "load",
       .key = "request_rate",
       .field = &C::request_rate,
       .help = "Arrivals per second (open loop); inf: all at once. A list (1,2,4) sweeps",
       .cli = OptionCli::kNone,
       .rule = ConfigRule::kJoin,
       .write = write_request_rate,
       .read = read_request_rate},
      {.flag = "--burstiness",
       .section = "load",
       .key = "burstiness",
       .field = &C::burstiness,
       .help = "Gamma shape of inter-arrival gaps; 1 is Poisson"},
      {.flag = "--replay",
       .section = "load",
       .key = "replay",
       .field = &C::replay,
       .help = "Send each request at its time in the trace (burstgpt, azure, mooncake, csv "
               "--timestamp-field) instead of --request-rate's arrivals",
       .cli = OptionCli::kSwitch,
       .written = [](const C& c) { return c.replay; }},
      {.flag = "--replay-speed",
       .section = "load",
       .key = "replay_speed",
       .field = &C::replay_speed,
       .help = "With --replay: compress the trace's time by this factor (2: twice as fast)",
       .written = [](const C& c) { return c.replay; }},
      {.flag = "--arrival",
       .section = "load",
       .key = "arrival",
       .field = enum_field<&C::arrival, kArrivalNames>(),
       .help = "gamma | poisson | constant",
       .cli = OptionCli::kNone,
       .lenient = true},
      {.flag = "--num-prompts",
       .section = "load",
       .key = "num_prompts",
       .field = &C::num_prompts,
       .help = "Requests to measure (default 1000 when --duration is not given); per target "
               "when comparing targets",
       .cli = OptionCli::kValueBare},
      {.flag = "--duration",
       .section = "load",
       .key = "duration_s",
       .field = &C::duration_s,
       .help = "Stop issuing requests after this many seconds",
       .cli = OptionCli::kValueBare,
       .rule = ConfigRule::kNonZero,
       .range = {OptionRange::kInRange, 0, kMaxSeconds, "seconds (0: bounded by --num-prompts)"}},
      {.flag = "--warmup",
       .section = "load",
       .key = "warmup",
       .field = &C::warmup,
       .help = "Requests sent before measuring, not aggregated",
       .range = {OptionRange::kInRange, 0, double(kMaxNumPrompts), {}}},
      {.flag = "--seed",
       .section = "load",
       .key = "seed",
       .field = &C::seed,
       .help = "Seed of the workload and the arrival schedule"},
      {.flag = "--workers",
       .section = "load",
       .key = "workers",
       .field = &C::workers,
       .help = "Worker threads; 0: one per core (at most the concurrency)",
       .range = {OptionRange::kInRange, 0, kMaxWorkers, "(0: one per core)"}},
      {.flag = "--ramp-up",
       .section = "load",
       .key = "ramp_up",
       .field = enum_field<&C::ramp_up, kRampNames>(),
       .help = "none | linear | exponential: climb from --ramp-up-start-rps to --request-rate",
       .cli = OptionCli::kNone,
       .lenient = true},
      {.flag = "--ramp-up-start-rps",
       .section = "load",
       .key = "ramp_up_start_rps",
       .field = &C::ramp_up_start_rps,
       .help = "Arrival rate at the start of a ramp"},
      {.flag = "--ramp-up-duration",
       .section = "load",
       .key = "ramp_up_duration_s",
       .field = &C::ramp_up_duration_s,
       .help = "Seconds the ramp takes",
       .cli = OptionCli::kValueBare,
       .rule = ConfigRule::kNonZero},
      {.flag = "--drop-first",
       .section = "load",
       .key = "drop_first_pct",
       .field = &C::drop_first_pct,
       .help = "Leave the first PCT % of the measure phase out of the figures (phase "
               "'dropped' in requests.jsonl)",
       .rule = ConfigRule::kValue},
      {.flag = "--fail-fast",
       .section = "load",
       .key = "fail_fast",
       .field = &C::fail_fast,
       .help = "Stop when the first N requests all fail with one client error (4xx but "
               "429); 0: never",
       .range = {OptionRange::kInRange, 0, 1'000'000, "(0: never)"},
       .compared = false,
       .resumed = false},
      {.flag = "--server-metrics",
       .section = "load",
       .key = "server_metrics",
       .field = &C::server_metrics,
       .help = "The server's Prometheus endpoints, scraped during the run: auto (every "
               "--base-url replica's /metrics when it answers), off, or URL[,name=NAME] "
               "scraped besides (repeatable: prefill and decode workers, a router)",
       .compared = false,
       .write = write_server_metrics,
       .read = read_server_metrics},
      {.flag = "--server-metrics-auth",
       .section = "load",
       .key = "server_metrics_auth",
       .field = &C::server_metrics_auth,
       .help = "Send the API key and secret --header values to a --server-metrics URL of "
               "another origin (scheme, host, port) than --base-url too; by default only the "
               "target's own origin receives them",
       .cli = OptionCli::kSwitch,
       .rule = ConfigRule::kIfTrue,
       .written = [](const C& c) { return c.server_metrics_auth; },
       .compared = false},
      {.flag = "--metrics-interval",
       .section = "load",
       .key = "metrics_interval_s",
       .field = &C::metrics_interval_s,
       .help = "Seconds between scrapes of --server-metrics (plus one at each edge of the "
               "measure phase) and between GPU samples",
       .rule = ConfigRule::kValue,
       .range = {OptionRange::kInRange, 0.1, 3600, "seconds"},
       .compared = false},
      {.flag = "--gpu-metrics",
       .section = "load",
       .key = "gpu_metrics",
       .field = parsed_field<&C::gpu_metrics, parse_gpu_metrics, kGpuMetricsSyntax>(),
       .help = "GPU sampler, every --metrics-interval: auto (nvidia-smi when on PATH), "
               "nvidia-smi, dcgm=URL (a DCGM exporter's /metrics), or off",
       .compared = false,
       .unknown = "--gpu-metrics '{0}' is not {1}"},
      {.flag = "--max-error-rate",
       .section = "load",
       .key = "max_error_rate",
       .field = &C::max_error_rate,
       .help = "The run fails (exit 2) when more than this share of its measured requests "
               "failed (canceled ones aside); 0: any failure, 1: never",
       .compared = false,
       .read = read_error_rates},
      {.flag = "--abort-on-error-rate",
       .section = "load",
       .key = "abort_on_error_rate",
       .field = &C::abort_on_error_rate,
       .help = "Stop the run when more than this share of the last 50 requests failed (e.g. "
               "0.5); 0: never",
       .read = read_nothing},
      {.flag = "--probe-rate",
       .section = "load",
       .key = "probe_rate",
       .field = &C::probe_rate,
       .help = "Also send this many tiny requests a second (a 1-token prompt, max_tokens 1) "
               "beside the load, outside its concurrency, during the measure phase: the wait a "
               "new user would see, reported apart (tokenbench.probes); 0: none",
       .cli = OptionCli::kValueBare,
       .range = {OptionRange::kInRange, 0, 1000, "probes a second (0: none)"},
       .written = [](const C& c) { return c.probe_rate > 0; }},
      {.flag = "--stop-on-saturation",
       .section = "load",
       .key = "stop_on_saturation",
       .field = &C::stop_on_saturation,
       .help = "With --request-rate: stop the run (and a sweep after it) once the users' wait "
               "for a first token keeps growing: the server cannot keep up with the rate",
       .cli = OptionCli::kSwitch,
       .rule = ConfigRule::kIfTrue,
       .written = [](const C& c) { return c.stop_on_saturation; },
       .compared = false},
  };
}

}  // namespace tokenbench::core::rows
