// `tokenbench serve-sim`: parses flags into a SimConfig, runs a SimServer until SIGINT/SIGTERM.

#include <pthread.h>
#include <sys/resource.h>

#include <cmath>
#include <csignal>
#include <cstdio>
#include <exception>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "tokenbench/cli/commands.h"
#include "tokenbench/cli/option_values.h"
#include "tokenbench/sim/engine_params.h"
#include "tokenbench/sim/fault_injector.h"
#include "tokenbench/sim/generation_plan.h"
#include "tokenbench/sim/prefill_client.h"
#include "tokenbench/sim/sim_config.h"
#include "tokenbench/sim/sim_server.h"
#include "tokenbench/sim/spec_decode.h"

namespace tokenbench::cli {
namespace {

// The most LoRA adapters served (each costs the engine a few bytes of bookkeeping).
constexpr std::int64_t kMaxLoraAdapters = 100000;

// One engine flag: where CLI11 writes it, and where it goes in EngineParams when given.
struct EngineFlag {
  CLI::Option* option = nullptr;
  double value = 0;
  double sim::EngineParams::*real = nullptr;
  std::int64_t sim::EngineParams::*integer = nullptr;
};

struct ServeSimOptions {
  sim::SimConfig config;
  std::vector<std::string> faults;
  std::string preset;
  std::string eos = "uniform";
  bool prefix_caching = false;
  std::string spec_decode;    // --spec-decode k=K,accept=P
  std::string role = "both";  // --role
  CLI::Option* kv_transfer_flag = nullptr;
  std::vector<CLI::Option*> fixed_flags;  // --ttft-ms, --itl-ms, --jitter-ms
  CLI::Option* prefix_caching_flag = nullptr;
  std::vector<EngineFlag> engine_flags;
};

// The URL form of a host: IPv6 literals go in brackets.
std::string url_host(const std::string& host) {
  return host.find(':') != std::string::npos ? "[" + host + "]" : host;
}

std::vector<std::string> preset_values() {
  std::vector<std::string> names{"fixed"};
  for (const auto& p : sim::engine_presets()) names.emplace_back(p.name);
  return names;
}

std::string preset_names() {
  std::string names;
  for (const auto& name : preset_values()) names += (names.empty() ? "" : ", ") + name;
  return names;
}

// Chooses fixed delays or the engine, and fills the engine's parameters. Throws
// std::invalid_argument with a one-line message.
void resolve_timing(ServeSimOptions& options) {
  sim::SimConfig& config = options.config;
  bool fixed_given = false;
  for (const CLI::Option* o : options.fixed_flags) fixed_given = fixed_given || o->count() > 0;
  bool engine_given = options.prefix_caching_flag->count() > 0;
  for (const EngineFlag& f : options.engine_flags) engine_given = engine_given || f.option->count();

  const bool fixed = options.preset == "fixed" || (options.preset.empty() && fixed_given);
  if (fixed && !options.spec_decode.empty()) {
    throw std::invalid_argument(
        "--spec-decode applies only to the engine model, not to fixed delays");
  }
  if (fixed) {
    if (engine_given) {
      throw std::invalid_argument(
          "engine flags (--max-num-seqs, --kv-cache-tokens, ...) do not apply to fixed delays "
          "(--preset fixed, or --ttft-ms/--itl-ms/--jitter-ms)");
    }
    config.mode = sim::TimingMode::kFixed;
    config.timing.ttft_ms /= config.time_scale;
    config.timing.itl_ms /= config.time_scale;
    config.timing.jitter_ms /= config.time_scale;
    return;
  }
  if (fixed_given) {
    throw std::invalid_argument("--ttft-ms, --itl-ms and --jitter-ms apply only to --preset fixed");
  }
  const std::string name =
      options.preset.empty() ? std::string(sim::kDefaultPreset) : options.preset;
  const auto params = sim::find_engine_preset(name);
  if (!params) {
    throw std::invalid_argument("unknown preset '" + name + "' (known: " + preset_names() + ")");
  }
  config.mode = sim::TimingMode::kEngine;
  config.engine = *params;
  for (const EngineFlag& f : options.engine_flags) {
    if (f.option->count() == 0) continue;
    if (f.real != nullptr) config.engine.*f.real = f.value;
    if (f.integer != nullptr) {
      if (f.value != std::floor(f.value)) {
        throw std::invalid_argument(f.option->get_name() + " must be a whole number");
      }
      config.engine.*f.integer = static_cast<std::int64_t>(f.value);
    }
  }
  if (options.prefix_caching) config.engine.enable_prefix_caching = true;
  if (config.engine.lora_adapters > kMaxLoraAdapters) {
    throw std::invalid_argument("--lora-adapters must be at most " +
                                std::to_string(kMaxLoraAdapters));
  }
  if (config.engine.lora_adapters == 0) {
    for (const EngineFlag& f : options.engine_flags) {
      if (f.option->count() > 0 && (f.integer == &sim::EngineParams::max_loras ||
                                    f.real == &sim::EngineParams::lora_load_ms)) {
        throw std::invalid_argument(f.option->get_name() + " needs --lora-adapters N (N >= 1)");
      }
    }
  }
  if (!options.spec_decode.empty()) {
    config.engine.spec_decode = sim::parse_spec_decode(options.spec_decode);
  }
  if (config.engine.kv_cache_tokens < config.engine.block_size) {
    throw std::invalid_argument("--kv-cache-tokens must hold at least one block (--block-size)");
  }
}

// --role, --kv-transfer-ms, --prefill-url: a disaggregated prefill/decode pair. Throws
// std::invalid_argument with a one-line message.
void resolve_role(ServeSimOptions& options) {
  sim::SimConfig& config = options.config;
  if (options.role == "both") {
    config.role = sim::Role::kBoth;
  } else if (options.role == "prefill") {
    config.role = sim::Role::kPrefill;
  } else if (options.role == "decode") {
    config.role = sim::Role::kDecode;
  } else {
    throw std::invalid_argument("--role must be prefill or decode (or both, the default), not '" +
                                options.role + "'");
  }
  const bool decode = config.role == sim::Role::kDecode;
  if (!decode && (!config.prefill_url.empty() || options.kv_transfer_flag->count() > 0)) {
    throw std::invalid_argument("--prefill-url and --kv-transfer-ms apply only to --role decode");
  }
  if (!decode) return;
  if (config.prefill_url.empty()) throw std::invalid_argument("--role decode needs --prefill-url");
  if (config.mode != sim::TimingMode::kEngine) {
    throw std::invalid_argument("--role decode needs the engine model, not fixed delays");
  }
  sim::parse_prefill_url(config.prefill_url);
}

// 10,000 concurrent streams need as many descriptors: take the hard limit.
void raise_file_limit() {
  rlimit lim{};
  if (getrlimit(RLIMIT_NOFILE, &lim) == 0 && lim.rlim_cur < lim.rlim_max) {
    lim.rlim_cur = lim.rlim_max;
    setrlimit(RLIMIT_NOFILE, &lim);
  }
}

int run_serve_sim(ServeSimOptions& options) {
  sim::SimConfig& config = options.config;
  try {
    for (const std::string& f : options.faults) config.faults.push_back(sim::parse_fault_rule(f));
    config.eos = sim::parse_eos_config(options.eos);
    resolve_timing(options);
    resolve_role(options);
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "tokenbench serve-sim: error: %s\n", e.what());
    return kExitUsage;
  }
  raise_file_limit();

  // Block the stop signals before any io thread exists, so that every thread inherits the mask
  // and only sigwait() below sees them.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  const std::string host = config.host;
  std::unique_ptr<sim::SimServer> server;
  try {
    server = std::make_unique<sim::SimServer>(std::move(config));  // opens --request-log
    server->start();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tokenbench serve-sim: error: %s\n", e.what());
    return kExitUsage;
  }
  std::printf("serve-sim listening on http://%s:%u\n", url_host(host).c_str(),
              static_cast<unsigned>(server->port()));
  std::fflush(stdout);

  int signal_number = 0;
  sigwait(&stop_signals, &signal_number);
  server->stop();
  return kExitOk;
}

void add_engine_flag(CLI::App* cmd, ServeSimOptions& options, const std::string& name,
                     const std::string& help, double sim::EngineParams::*real,
                     std::int64_t sim::EngineParams::*integer, double min) {
  options.engine_flags.push_back({});
  EngineFlag& f = options.engine_flags.back();
  f.real = real;
  f.integer = integer;
  const sim::EngineParams defaults = *sim::find_engine_preset(sim::kDefaultPreset);
  f.value = real != nullptr ? defaults.*real : static_cast<double>(defaults.*integer);
  f.option = cmd->add_option(name, f.value, help + " (engine; default from the preset)")
                 ->check(CLI::Range(min, 1e15));
}

// The engine's parameters, each overriding the preset's value when given.
void add_engine_flags(CLI::App* cmd, ServeSimOptions& options) {
  add_engine_flag(cmd, options, "--max-num-seqs", "Most sequences in the running batch", nullptr,
                  &sim::EngineParams::max_num_seqs, 1);
  add_engine_flag(cmd, options, "--max-num-batched-tokens", "Token budget of one step", nullptr,
                  &sim::EngineParams::max_num_batched_tokens, 1);
  add_engine_flag(cmd, options, "--kv-cache-tokens", "KV cache capacity in tokens", nullptr,
                  &sim::EngineParams::kv_cache_tokens, 1);
  add_engine_flag(cmd, options, "--block-size", "Tokens per KV block", nullptr,
                  &sim::EngineParams::block_size, 1);
  add_engine_flag(cmd, options, "--step-overhead-ms", "Fixed cost of every step",
                  &sim::EngineParams::step_overhead_ms, nullptr, 0);
  add_engine_flag(cmd, options, "--prefill-us-per-token", "Cost of each prompt token computed",
                  &sim::EngineParams::prefill_us_per_token, nullptr, 0);
  add_engine_flag(cmd, options, "--decode-us-per-seq", "Cost of each sequence decoding a token",
                  &sim::EngineParams::decode_us_per_seq, nullptr, 0);
  add_engine_flag(cmd, options, "--decode-us-per-kv-token",
                  "Cost of each context token a decode reads (memory-bound)",
                  &sim::EngineParams::decode_us_per_kv_token, nullptr, 0);
  add_engine_flag(cmd, options, "--lora-adapters",
                  "LoRA adapters served beside the model, named lora-0 ... lora-{N-1}; a request "
                  "whose model names one uses it",
                  nullptr, &sim::EngineParams::lora_adapters, 0);
  add_engine_flag(cmd, options, "--max-loras",
                  "Most LoRA adapters loaded at once (LRU; vLLM's max_loras), so most distinct "
                  "adapters in the running batch",
                  nullptr, &sim::EngineParams::max_loras, 1);
  add_engine_flag(cmd, options, "--lora-load-ms",
                  "Model time that loading a LoRA adapter adds to the step admitting its request",
                  &sim::EngineParams::lora_load_ms, nullptr, 0);
}

}  // namespace

void add_serve_sim_command(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<ServeSimOptions>();
  options->engine_flags.reserve(16);  // add_engine_flag keeps pointers into it
  sim::SimConfig& c = options->config;
  CLI::App* cmd = app.add_subcommand(
      "serve-sim", "Run an OpenAI-compatible simulated LLM server (see docs/SIMULATOR.md)");
  cmd->add_option("--host", c.host, "Address to listen on")->capture_default_str();
  cmd->add_option("--port", c.port, "Port to listen on; 0 picks a free one")->capture_default_str();
  cmd->add_option("--model", c.model, "Served model name")->capture_default_str();
  cmd->add_option("--server-version", c.server_version,
                  "What GET /version answers, to stand for an engine build (a bare number such "
                  "as 0.9.1 reads as vLLM's; default tokenbench-sim VERSION)");
  cmd->add_option("--threads", c.threads, "I/O threads, each with its own event loop")
      ->check(CLI::Range(1, 1024))
      ->capture_default_str();
  cmd->add_option("--seed", c.seed, "Seed of token text, EOS lengths, jitter and faults")
      ->capture_default_str();
  cmd->add_option("--default-max-tokens", c.default_max_tokens,
                  "Output limit for requests that set no max_tokens")
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{1} << 40))
      ->capture_default_str();
  cmd->add_option("--max-model-len", c.max_model_len,
                  "Longest prompt + max_tokens accepted (400 beyond); the engine's KV cache may "
                  "lower it")
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{1} << 40))
      ->capture_default_str();
  cmd->add_option("--api-key", c.api_key,
                  "Require 'Authorization: Bearer KEY' or 'x-api-key: KEY' on /v1/* (empty: no "
                  "key needed)");
  cmd->add_option("--idle-timeout-s", c.idle_timeout_s,
                  "Close a connection that sends no complete request within this many seconds "
                  "(of its accept or of its previous response; real seconds); 0: never")
      ->check(CLI::Range(0.0, 1e9))
      ->capture_default_str();
  cmd->add_option("--preset", options->preset,
                  "Timing model: an engine preset, or 'fixed' for fixed delays (known: " +
                      preset_names() + "; default " + std::string(sim::kDefaultPreset) +
                      ", or fixed when --ttft-ms/--itl-ms/--jitter-ms are given)");
  cmd->add_option("--time-scale", c.time_scale,
                  "Run the model this many times faster than real time (reported times shrink "
                  "by as much)")
      ->check(CLI::Range(1e-3, 1e6))
      ->capture_default_str();
  add_engine_flags(cmd, *options);
  options->prefix_caching_flag =
      cmd->add_flag("--enable-prefix-caching", options->prefix_caching,
                    "Shared prompt prefixes skip prefill (block-hash based, as vLLM)");
  cmd->add_option("--spec-decode", options->spec_decode,
                  "Engine: speculative decoding, k=K,accept=P: each decoding sequence drafts K "
                  "tokens (1..16) per step, each accepted with probability P in [0,1) until the "
                  "first rejection; a decode costs --decode-us-per-seq x (1+K)");
  offer_values(cmd->get_option("--preset"), preset_values());
  cmd->add_option("--role", options->role,
                  "Part in a disaggregated pair: prefill (answer every generation request with "
                  "one token) or decode (prefill each at --prefill-url first); default both")
      ->capture_default_str();
  offer_values(cmd->get_option("--role"), {"both", "prefill", "decode"});
  options->kv_transfer_flag =
      cmd->add_option("--kv-transfer-ms", c.kv_transfer_ms,
                      "Role decode: model time of the KV transfer after the prefill worker answers")
          ->check(CLI::Range(0.0, 1e9))
          ->capture_default_str();
  cmd->add_option("--prefill-url", c.prefill_url,
                  "Role decode (required): the prefill worker, http://HOST[:PORT][/PREFIX]");
  cmd->add_flag("--llama-timings", c.llama_timings,
                "Add llama.cpp's per-reply `timings` object (prompt_ms: receipt to first token; "
                "predicted_ms: first to last token)");
  cmd->add_option("--reasoning-tokens", c.reasoning_tokens,
                  "The first N tokens of each reply are reasoning: chat reasoning_content, "
                  "Responses reasoning items, Messages thinking blocks (when thinking is enabled)")
      ->check(CLI::Range(std::int64_t{0}, std::int64_t{1} << 40))
      ->capture_default_str();
  cmd->add_flag("--debug-lateness", c.measure_lateness,
                "Debug: histogram of how late each streamed token is written (fixed delays) in "
                "GET /metrics, tokenbench_sim:token_lateness_seconds");
  cmd->add_option("--request-log", c.request_log,
                  "Write a JSON line per generation request received to FILE: its API, stream, "
                  "prompt tokens (as the server counts them), max_tokens, min_tokens, "
                  "ignore_eos, LoRA adapter and arrival time (docs/SIMULATOR.md)");
  cmd->add_option("--embedding-dim", c.embedding_dim, "Floats per /v1/embeddings vector")
      ->check(CLI::Range(1, 65536))
      ->capture_default_str();
  cmd->add_option("--eos-dist", options->eos,
                  "EOS length of requests without ignore_eos: uniform, exponential:MEAN, "
                  "normal:MEAN:STDDEV or none")
      ->capture_default_str();
  options->fixed_flags.push_back(
      cmd->add_option("--ttft-ms", c.timing.ttft_ms,
                      "Fixed delays: from request receipt to the first token")
          ->check(CLI::NonNegativeNumber)
          ->capture_default_str());
  options->fixed_flags.push_back(
      cmd->add_option("--itl-ms", c.timing.itl_ms, "Fixed delays: between consecutive tokens")
          ->check(CLI::NonNegativeNumber)
          ->capture_default_str());
  options->fixed_flags.push_back(
      cmd->add_option("--jitter-ms", c.timing.jitter_ms,
                      "Fixed delays: uniform noise in [-J, +J] added to each delay (clamped at 0)")
          ->check(CLI::NonNegativeNumber)
          ->capture_default_str());
  cmd->add_option("--fault", options->faults,
                  "Inject a fault, KIND:SPEC[:SECONDS]; SPEC is a probability or every=N; KIND is "
                  "http_429, http_500, http_503, stream_cut, malformed, error_event, stall, "
                  "slow_first_byte (repeatable)");
  cmd->callback([options, &exit_code] { exit_code = run_serve_sim(*options); });
}

}  // namespace tokenbench::cli
