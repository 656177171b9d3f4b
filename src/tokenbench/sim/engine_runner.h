#pragma once

#include <boost/asio/io_context.hpp>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "tokenbench/core/clock.h"
#include "tokenbench/sim/engine_model.h"
#include "tokenbench/sim/engine_params.h"
#include "tokenbench/sim/generation_plan.h"
#include "tokenbench/sim/sim_metrics.h"

namespace tokenbench::sim {

/// The receiving end of an engine request's tokens: implemented by the HTTP session that
/// submitted it. Called only on the io thread (event loop) named at submission.
class EngineSink {
 public:
  virtual ~EngineSink() = default;
  /// `tokens` more tokens of request `id` were generated; `finished` when it was its last (the
  /// engine then holds no reference to the sink any more). `cached_tokens`: with the request's
  /// first tokens, the prompt tokens its prefix cache held (-1: none said). Stale ids are to be
  /// ignored.
  virtual void on_engine_tokens(std::uint64_t id, std::int32_t tokens, bool finished,
                                std::int64_t cached_tokens) = 0;
};

/// One request handed to the engine by an HTTP session.
struct EngineSubmission {
  std::uint64_t id = 0;  ///< the arrival index; unique
  std::int64_t prompt_tokens = 0;
  std::int64_t output_tokens = 1;
  FinishReason finish = FinishReason::kLength;  ///< for vllm:request_success_total
  std::vector<std::uint64_t> block_hashes;      ///< for prefix caching (may be empty)
  core::Clock::time_point received;             ///< when its body had been read
  std::shared_ptr<EngineSink> sink;             ///< kept until the request leaves the engine
  std::size_t loop = 0;                         ///< the io loop that runs `sink`
  /// The reply is doomed by a fault (stream_cut, error_event): when the engine finishes the
  /// request before the session cancels it, it counts as finished_reason="abort" and observes no
  /// latency histogram, exactly as a cancel would.
  bool abort_on_finish = false;
  std::int32_t lora = -1;       ///< its LoRA adapter; -1: the base model
  bool kv_transferred = false;  ///< its prompt's KV came from a prefill worker (EngineRequest)
};

/// Runs the EngineModel on its own thread in (scaled) real time, as llama.cpp's server runs its
/// slots: HTTP threads talk to it only through a queue of commands (submit, cancel), and it
/// answers through the io loops' queues, with one post per loop per flush carrying every token
/// generated for that loop's sessions since the last one (several steps when the engine runs
/// behind, or with zero-cost presets).
///
/// Metrics: token counters count what the engine generated, aborted requests included (as
/// vLLM's); a request's latency histograms (TTFT, ITL, E2E and phases) are observed when it
/// finishes successfully, never for an aborted one.
///
/// Model time runs `time_scale` times faster than real time. A step starts when the previous one
/// ended (or at the arrival that wakes an idle engine), so timer lateness never accumulates and a
/// run is deterministic for given arrival times. Requests join at the first step starting at or
/// after their arrival.
///
/// Owned by the server. submit() and cancel() may be called from any thread; start(), stop() and
/// clear() only from the controlling thread.
class EngineRunner {
 public:
  /// `seed` drives the engine's random draws (speculative decoding's acceptances).
  EngineRunner(const EngineParams& params, double time_scale, SimMetrics& metrics,
               std::uint64_t seed = 0);
  ~EngineRunner();
  EngineRunner(const EngineRunner&) = delete;
  EngineRunner& operator=(const EngineRunner&) = delete;

  /// Starts the engine thread. `loops` must outlive every post (until clear()).
  void start(std::vector<boost::asio::io_context*> loops);
  /// Queues a request for the engine.
  void submit(EngineSubmission submission);
  /// Drops request `id` (a client went away, a fault ended its stream), freeing its KV blocks.
  /// Unknown or finished ids are ignored.
  void cancel(std::uint64_t id);
  /// Forgets the prefix cache's unheld blocks before any request submitted after this call is
  /// admitted (commands are applied in order).
  void reset_prefix_cache();
  /// Stops and joins the engine thread. Idempotent.
  void stop();
  /// Drops every request and sink reference; call after stop() once no io loop runs.
  void clear();

  const EngineParams& params() const { return params_; }

 private:
  struct Command {
    bool cancel = false;
    bool reset = false;  ///< reset_prefix_cache
    std::uint64_t id = 0;
    EngineSubmission submission;
  };
  struct Slot {
    std::shared_ptr<EngineSink> sink;
    std::size_t loop = 0;
    FinishReason finish = FinishReason::kLength;
    ModelNanos arrival = 0;
    std::int64_t batch_pos = -1;  // index of its event in the loop's open batch, or -1
    bool abort_on_finish = false;
    // Latency observations, merged into the metrics only when the request finishes successfully.
    double ttft = 0;
    Histogram itl{itl_buckets()};
  };
  struct TokenEvent {
    EngineSink* sink = nullptr;
    std::uint64_t id = 0;
    std::uint32_t tag = 0;
    std::int32_t tokens = 0;
    bool finished = false;
    std::int64_t cached = -1;
  };
  struct TokenBatch {
    std::vector<TokenEvent> events;
    std::vector<std::shared_ptr<EngineSink>> released;  // dropped after the events ran
  };

  void run();
  void apply(std::vector<Command>& commands);
  void add_due(ModelNanos start);
  void record(const StepOutcome& outcome);
  void release(std::uint32_t tag);
  void flush();
  void publish_loras();
  void deliver(std::unique_ptr<TokenBatch> batch);
  ModelNanos to_model(core::Clock::time_point t) const;
  core::Clock::time_point to_wall(ModelNanos t) const;
  double to_seconds(ModelNanos d) const;

  EngineParams params_;
  std::uint64_t seed_;
  double time_scale_;
  SimMetrics& metrics_;
  std::vector<boost::asio::io_context*> loops_;
  core::Clock::time_point origin_;

  std::mutex mu_;  // guards inbox_, stopping_, idle_, pool_
  std::condition_variable cv_;
  std::vector<Command> inbox_;
  bool stopping_ = false;
  bool idle_ = false;
  std::vector<std::unique_ptr<TokenBatch>> pool_;

  // Engine thread only.
  std::unique_ptr<EngineModel> model_;
  std::deque<EngineRequest> pending_;  // submitted, arrival not yet reached by a step
  std::vector<Slot> slots_;
  std::vector<std::uint32_t> free_slots_;
  std::vector<std::unique_ptr<TokenBatch>> open_;  // one per loop
  MetricsDelta delta_;
  std::vector<char> running_loras_;  // publish_loras() scratch
  std::vector<char> waiting_loras_;
  ModelNanos last_end_ = 0;
  std::thread thread_;
};

}  // namespace tokenbench::sim
