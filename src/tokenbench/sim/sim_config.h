#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tokenbench/sim/engine_params.h"
#include "tokenbench/sim/fault_injector.h"
#include "tokenbench/sim/generation_plan.h"
#include "tokenbench/sim/token_timeline.h"

namespace tokenbench::sim {

/// The server's part in a disaggregated prefill/decode pair (--role).
enum class Role {
  kBoth,     ///< prefill and decode, as one server (the default)
  kPrefill,  ///< every generation request is prefilled and answered with one token
  kDecode,   ///< every generation request is first prefilled by the prefill worker
};

/// Where token timing comes from.
enum class TimingMode {
  kFixed,   ///< fixed per-request delays (TimingConfig): the first simulator version
  kEngine,  ///< the continuous-batching engine model (EngineParams) on its own thread
};

/// Everything `tokenbench serve-sim` needs to run: where to listen, what to serve, how fast, and
/// which faults to inject. Plain data; filled once (by the CLI or a test), then copied into the
/// SimServer, which never changes it.
struct SimConfig {
  std::string host = "127.0.0.1";
  std::uint16_t port = 8000;        ///< 0 picks a free port (see SimServer::port())
  std::string model = "sim-model";  ///< the served model name
  /// What GET /version answers as "version" (--server-version); "": "tokenbench-sim VERSION".
  std::string server_version;
  int threads = 1;                        ///< io threads, each with its own event loop
  std::uint64_t seed = 0;                 ///< drives token text, EOS lengths, jitter and faults
  std::int64_t default_max_tokens = 256;  ///< output limit when a request sets none
  /// Longest sequence (prompt + max_tokens) accepted, as vLLM's max_model_len; the engine model
  /// lowers it further to what its KV cache can hold.
  std::int64_t max_model_len = 131072;
  std::string api_key;  ///< when not empty, /v1/* requires "Bearer <api_key>"
  /// A connection that sends no complete request header within this many seconds (of its accept
  /// or of the end of its previous response), or no complete body within as long after its
  /// header, is closed. Real seconds, never scaled; 0 waits forever.
  double idle_timeout_s = 60;
  TimingMode mode = TimingMode::kFixed;
  TimingConfig timing;  ///< kFixed: the delays (already divided by the time scale)
  EngineParams engine;  ///< kEngine: the model's parameters
  /// Model time runs this many times faster than real time (kEngine: the engine's clock; kFixed:
  /// `timing` is already divided by it). Every response says it (X-Sim-Time-Scale) and so does
  /// GET /v1/models; a value that is not positive means 1.
  double time_scale = 1.0;
  /// The preset's name as GET /v1/models reports it. Empty: "fixed" in kFixed mode, else the name
  /// of the engine preset whose parameters equal `engine`, else "custom".
  std::string preset;
  /// Add llama.cpp's `timings` object to the final event of a stream (the usage event, else the
  /// finish event) and to a whole reply, from the simulator's own times (--llama-timings).
  bool llama_timings = false;
  /// The first this many generated tokens of a reply are reasoning (--reasoning-tokens): chat
  /// reasoning_content deltas, Responses reasoning items, Messages thinking blocks (when the
  /// request enables thinking). Capped by the reply's length.
  std::int64_t reasoning_tokens = 0;
  /// Debug: record how late each streamed token of a fixed-delay reply is written (its write
  /// minus its due time) and add the histogram to GET /metrics (--debug-lateness,
  /// write_lateness.h).
  bool measure_lateness = false;
  /// When not empty, a JSON line per generation request received is written here
  /// (--request-log, request_log.h).
  std::string request_log;
  int embedding_dim = 8;    ///< floats per embedding vector (--embedding-dim)
  EosConfig eos;            ///< how EOS lengths are drawn
  Role role = Role::kBoth;  ///< --role
  /// kDecode: the KV transfer's model time after the prefill worker answered (--kv-transfer-ms).
  double kv_transfer_ms = 0;
  /// kDecode: the prefill worker, `http://HOST[:PORT][/PREFIX]` (--prefill-url).
  std::string prefill_url;
  std::vector<FaultRule> faults;  ///< checked in order; the first that fires wins
};

}  // namespace tokenbench::sim
