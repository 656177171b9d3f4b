#pragma once

#include <cstdint>
#include <memory>

#include "tokenbench/sim/sim_config.h"

namespace tokenbench::sim {

/// An OpenAI-compatible simulated LLM server (`tokenbench serve-sim`): GET /v1/models, GET /health,
/// GET /metrics, POST /v1/chat/completions and /v1/completions, streaming or not, with token
/// timing from a continuous-batching engine model (or fixed delays) and injected faults
/// (docs/SIMULATOR.md).
///
/// Owns its io threads: `config.threads` event loops, each owning the connections it was handed,
/// and in engine mode one engine thread that talks to them only through queues.
/// start(), port() and stop() are meant for one controlling thread (not an io thread); stop() and
/// the destructor must never be called from an io thread.
class SimServer {
 public:
  explicit SimServer(SimConfig config);
  ~SimServer();  ///< stops
  SimServer(const SimServer&) = delete;
  SimServer& operator=(const SimServer&) = delete;

  /// Binds and listens, starts the io threads, and returns. Throws std::runtime_error with a
  /// one-line message when the address cannot be bound (e.g. the port is in use). Call once.
  void start();

  /// The bound port (useful with port 0); 0 before start().
  std::uint16_t port() const;

  /// Closes the acceptor and every connection (streams in flight end abruptly) and joins the io
  /// threads. Idempotent; a no-op before start().
  void stop();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace tokenbench::sim
