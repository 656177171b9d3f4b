// `tokenbench serve-sim`: parses flags into a SimConfig, runs a SimServer until SIGINT/SIGTERM.

#include <pthread.h>

#include <csignal>
#include <cstdio>
#include <exception>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "tokenbench/cli/commands.h"
#include "tokenbench/sim/fault_injector.h"
#include "tokenbench/sim/sim_config.h"
#include "tokenbench/sim/sim_server.h"

namespace tokenbench::cli {
namespace {

struct ServeSimOptions {
  sim::SimConfig config;
  std::vector<std::string> faults;
};

// The URL form of a host: IPv6 literals go in brackets.
std::string url_host(const std::string& host) {
  return host.find(':') != std::string::npos ? "[" + host + "]" : host;
}

int run_serve_sim(ServeSimOptions& options) {
  sim::SimConfig& config = options.config;
  try {
    for (const std::string& f : options.faults) config.faults.push_back(sim::parse_fault_rule(f));
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "tokenbench serve-sim: error: %s\n", e.what());
    return kExitUsage;
  }

  // Block the stop signals before any io thread exists, so that every thread inherits the mask
  // and only sigwait() below sees them.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  const std::string host = config.host;
  sim::SimServer server(std::move(config));
  try {
    server.start();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tokenbench serve-sim: error: %s\n", e.what());
    return kExitUsage;
  }
  std::printf("serve-sim listening on http://%s:%u\n", url_host(host).c_str(),
              static_cast<unsigned>(server.port()));
  std::fflush(stdout);

  int signal_number = 0;
  sigwait(&stop_signals, &signal_number);
  server.stop();
  return kExitOk;
}

}  // namespace

void add_serve_sim_command(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<ServeSimOptions>();
  sim::SimConfig& c = options->config;
  CLI::App* cmd = app.add_subcommand(
      "serve-sim", "Run an OpenAI-compatible simulated LLM server (see docs/SIMULATOR.md)");
  cmd->add_option("--host", c.host, "Address to listen on")->capture_default_str();
  cmd->add_option("--port", c.port, "Port to listen on; 0 picks a free one")->capture_default_str();
  cmd->add_option("--model", c.model, "Served model name")->capture_default_str();
  cmd->add_option("--threads", c.threads, "I/O threads, each with its own event loop")
      ->check(CLI::Range(1, 1024))
      ->capture_default_str();
  cmd->add_option("--seed", c.seed, "Seed of token text, EOS lengths, jitter and faults")
      ->capture_default_str();
  cmd->add_option("--default-max-tokens", c.default_max_tokens,
                  "Output limit for requests that set no max_tokens")
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{1} << 40))
      ->capture_default_str();
  cmd->add_option("--api-key", c.api_key,
                  "Require 'Authorization: Bearer KEY' on /v1/* (empty: no key needed)");
  cmd->add_option("--ttft-ms", c.timing.ttft_ms, "Delay from request receipt to the first token")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  cmd->add_option("--itl-ms", c.timing.itl_ms, "Delay between consecutive tokens")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  cmd->add_option("--jitter-ms", c.timing.jitter_ms,
                  "Uniform noise in [-J, +J] added to each delay (clamped at 0)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  cmd->add_option("--fault", options->faults,
                  "Inject a fault, KIND:SPEC[:SECONDS]; SPEC is a probability or every=N; KIND is "
                  "http_429, http_500, http_503, stream_cut, malformed, error_event, stall, "
                  "slow_first_byte (repeatable)");
  cmd->callback([options, &exit_code] { exit_code = run_serve_sim(*options); });
}

}  // namespace tokenbench::cli
