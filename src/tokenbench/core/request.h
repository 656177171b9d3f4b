#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tokenbench/core/clock.h"

namespace tokenbench::core {

/// Which part of a run a request belongs to. Only kMeasure is aggregated; kDropped is the start
/// of the measure phase that --drop-first leaves out of the figures (sent under the measured
/// load, recorded, never aggregated).
enum class Phase { kWarmup, kMeasure, kCooldown, kDropped };

/// Why a request failed. kNone means it completed.
enum class ErrorClass {
  kNone,
  kConnect,         ///< could not connect or resolve
  kTls,             ///< TLS handshake or certificate failure
  kTimeout,         ///< the per-request total timeout (--timeout) expired
  kHttp4xx,         ///< HTTP 4xx other than 429 (status kept in RequestRecord::http_status)
  kHttp5xx,         ///< HTTP 5xx
  kRateLimited,     ///< HTTP 429
  kStreamCut,       ///< the stream ended before [DONE] / a finish
  kMalformed,       ///< a reply that could not be parsed
  kServerError,     ///< an error object inside an otherwise 200 stream
  kCanceled,        ///< the run stopped before the request ended
  kConnectTimeout,  ///< no connection within --connect-timeout
  kTtftTimeout,     ///< no first token within --ttft-timeout of the send
  kStallTimeout,    ///< no byte for --stall-timeout in the middle of a reply
  kRedirect,        ///< HTTP 3xx: the URL is not the API's final address
  kProtocol,        ///< a reply beyond the client's bounds or the protocol (too large, encoded)
  kEmptyReply,      ///< a 200 reply with no output: no content, reasoning or tool call
};

/// One line telling the user what to try for a failure of `error` (with its HTTP status, 0 when
/// none); empty when there is nothing better to say than the message itself.
std::string_view error_hint(ErrorClass error, int http_status);

/// Where a token count came from.
enum class TokenSource {
  kUnknown,
  kUsage,        ///< the server's usage object
  kTokenizer,    ///< the local tokenizer
  kChunks,       ///< one token per content chunk
  kDataset,      ///< given by the dataset (e.g. jsonl input_len)
  kApproximate,  ///< a documented approximation (random prompts before a tokenizer exists)
};

/// Where a request's receive stamps came from (RequestRecord::stamps).
enum class StampSource {
  kUser,    ///< the client's clock, read in user space when the read returned
  kKernel,  ///< the kernel's receive time of the read (SO_TIMESTAMPING), on the run's clock
};

std::string_view to_string(Phase p);
std::string_view to_string(ErrorClass e);
std::string_view to_string(TokenSource s);
std::string_view to_string(StampSource s);
std::optional<StampSource> stamp_source_from_string(std::string_view s);
std::optional<Phase> phase_from_string(std::string_view s);
std::optional<ErrorClass> error_class_from_string(std::string_view s);
std::optional<TokenSource> token_source_from_string(std::string_view s);

/// One request of a workload, fixed before the run. Owned by the workload; the engine reads it.
struct RequestSpec {
  std::uint64_t id = 0;
  /// The prompt text for the completions API; for chat, the single user message (when messages_json
  /// is empty).
  std::string prompt;
  /// A JSON array of chat messages, used verbatim for chat when not empty.
  std::string messages_json;
  /// Prompt length in tokens as far as the workload knows it, and where that figure came from.
  std::int64_t input_tokens = 0;
  TokenSource input_source = TokenSource::kUnknown;
  /// Requested output length (max_tokens); 0 leaves it to the server.
  std::int64_t max_tokens = 0;
  /// Which target (client::EngineConfig::endpoints) serves it when a run compares targets.
  std::uint32_t target = 0;
  /// Which member of the run's mix (--lora-modules, --model-mix: core/request_mix.h) its
  /// `model` names; -1 when the run has no mix.
  std::int32_t mix = -1;
  /// Its arrival in a trace (BurstGPT, Azure, Mooncake, a CSV's --timestamp-field), seconds since
  /// the trace's first request; negative when the dataset has no times.
  double trace_s = -1;
  /// Embeddings (--batch-size): the inputs after `prompt` that the same request embeds;
  /// input_tokens counts them all.
  std::vector<std::string> more_inputs;
  /// The session (conversation) the prompt belongs to, from --session-field; empty when none.
  /// --multi-turn groups a dataset's prompts by it, in file order.
  std::string session_key;
  /// The prompt's block hashes and tokens as an ideal prefix cache sees them
  /// (core/ideal_cache.h), made with the request when the run models one (--cache-block); empty
  /// and 0 otherwise.
  std::vector<std::uint64_t> prefix_blocks;
  std::int64_t prefix_tokens = 0;
};

/// Arrival of one content-bearing chunk: when, and how many output tokens it carried.
struct ChunkStamp {
  Nanos t = kNever;
  std::int32_t tokens = 1;
};

/// The server's own account of one request, from llama.cpp's per-reply `timings` object (sent in
/// the final chunk of a stream or in a whole reply). Milliseconds and counts as the server wrote
/// them.
struct ServerTimings {
  std::int64_t cache_n = 0;      ///< prompt tokens taken from the server's cache
  std::int64_t prompt_n = 0;     ///< prompt tokens processed (cache_n excluded)
  double prompt_ms = 0;          ///< processing them: the server's prefill
  std::int64_t predicted_n = 0;  ///< tokens generated
  double predicted_ms = 0;       ///< generating them, from the first token to the last
};

/// Where a request stands in an agentic job (--dataset jobs, workload/jobs.h). Written to
/// requests.jsonl, so that the job figures are rebuilt from the records alone.
struct JobCallTag {
  std::int64_t job = -1;   ///< the job's number in the run, from 0; -1: not a job's call
  std::string name;        ///< the job's name in its file (jobs are cycled: many numbers, one name)
  std::string call;        ///< the call's id
  std::int32_t depth = 0;  ///< 0 for a call that waits for none, else 1 + its deepest dependency's
  std::vector<std::string> after;  ///< the ids of the calls it waited for
  std::int32_t calls = 0;          ///< the job's number of calls
  /// Milliseconds it waited after its last dependency ended, as the job file asks (delay_ms).
  double delay_ms = 0;
};

/// The longest server response id a record keeps, in bytes.
inline constexpr std::size_t kMaxResponseIdBytes = 128;

/// --save-detailed: the most bytes of a request's prompt, and of its generated text, that its
/// record keeps (64 KiB, about 16,000 tokens); longer text is cut at a UTF-8 boundary.
inline constexpr std::size_t kMaxDetailTextBytes = std::size_t{64} << 10;

/// Everything measured about one request. Stamps are Nanos since the run's origin; kNever when the
/// moment did not happen. Written by one worker thread, then handed over to the recorder.
struct RequestRecord {
  std::uint64_t id = 0;
  Phase phase = Phase::kMeasure;
  bool streamed = true;
  /// The endpoint (target or replica) that served it; 0 when the run has one.
  std::uint32_t endpoint = 0;
  /// The member of the run's mix (--lora-modules, --model-mix) the request named; -1: no mix.
  std::int32_t mix = -1;
  /// 0 for a request's first attempt, k for its k-th retry (--retries); attempts share the id.
  std::uint32_t attempt = 0;
  /// A failed attempt that a later attempt of the same request replaced: counted as a retry, never
  /// in the request figures.
  bool retried = false;
  /// Attempts the engine had in flight for the same target (handed to a transport, not yet
  /// finished; every phase; all replicas of one deployment) just after this one was, itself
  /// included; -1 when not counted (a record of an
  /// earlier version). The most requests in flight at once is the most of these (at a send the
  /// count only grows), found without keeping every request's stamps.
  std::int64_t in_flight = -1;

  /// When the arrival schedule meant the request to arrive (open-loop runs only; kNever in a
  /// closed loop). Differs from `scheduled` when the request waited for a free slot
  /// (--max-concurrency): `scheduled` then moves to when the slot freed, and this stays.
  Nanos intended = kNever;
  Nanos scheduled = kNever;    ///< when the schedule wanted the request sent
  Nanos sent = kNever;         ///< when the engine handed it to the transport
  Nanos headers = kNever;      ///< response headers complete
  Nanos first_token = kNever;  ///< first chunk carrying output content (or reasoning)
  Nanos last_token = kNever;   ///< last chunk carrying output content
  Nanos done = kNever;         ///< transfer finished (after [DONE] or error)
  /// A reasoning model's first chunk of reasoning (thinking) text, and its first chunk of answer
  /// (content or a tool call); first_token is the earlier of the two. first_answer is kNever
  /// when no answer came; first_reasoning when no reasoning did.
  Nanos first_reasoning = kNever;
  Nanos first_answer = kNever;
  /// --connection-mode per-request: when the request's own connection was established (TCP, and
  /// TLS for https), between `sent` and the first byte; kNever when it reused a connection
  /// opened before the measure phase.
  Nanos connected = kNever;
  /// Where headers, first_token, last_token, done and the chunk stamps came from: the kernel's
  /// receive time when the transport could read it, else user space.
  StampSource stamps = StampSource::kUser;

  /// Content-bearing chunks in arrival order. Role-only and empty chunks are absent.
  std::vector<ChunkStamp> chunks;
  /// Each chunk's token count came from the server's running usage in the chunk itself
  /// (stream_options.continuous_usage_stats): exact, not apportioned from the text.
  bool chunk_usage = false;
  /// Of the content chunks from the second on, the share the client read late: more than one ITL
  /// (the request's mean inter-chunk gap up to that chunk) after the kernel received it, or in
  /// one read with the chunk after it (docs/METRICS.md, "Read lag"). -1 when not measured (no
  /// kernel stamps, or fewer than two chunks).
  double read_late_share = -1;

  std::int64_t prompt_tokens = 0;
  TokenSource prompt_source = TokenSource::kUnknown;
  std::int64_t output_tokens = 0;
  TokenSource output_source = TokenSource::kUnknown;
  std::int64_t output_chars = 0;  ///< bytes of generated text (content + reasoning)
  /// Reasoning tokens, in output_tokens, as the server's usage details say
  /// (completion_tokens_details.reasoning_tokens, output_tokens_details.reasoning_tokens); -1
  /// when the server did not say.
  std::int64_t reasoning_tokens = -1;
  /// Prompt tokens the server took from its prefix cache, and wrote to it (Anthropic's
  /// cache_creation_input_tokens), as its usage says (client/api_adapter.h: ApiEvent); in
  /// prompt_tokens; -1 when the server did not say.
  std::int64_t cached_tokens = -1;
  std::int64_t cache_write_tokens = -1;
  /// --cache-block: the prompt's tokens that an ideal prefix cache held when it was sent, and its
  /// tokens as that cache counts them (words; core/ideal_cache.h); -1 when not modelled.
  std::int64_t ideal_cached_tokens = -1;
  std::int64_t ideal_prompt_tokens = -1;
  /// Embeddings: the vectors the reply carried (one per input); 0 for generation APIs.
  std::int32_t embeddings = 0;
  /// Multi-turn runs (--multi-turn): the session (conversation) the request belongs to and its
  /// turn index from 0; -1 outside sessions.
  std::int64_t session = -1;
  std::int32_t turn = -1;
  /// Agentic jobs (--dataset jobs): the job and call the request is; job.job is -1 otherwise.
  JobCallTag job;
  /// The answer's text (content, without reasoning or tool calls), kept in memory only in
  /// multi-turn runs, where it becomes the assistant's message of the next turn's history;
  /// never written to requests.jsonl.
  std::string answer_text;
  /// The local tokenizer's count of the generated text (--tokenizer), kept beside a usage count
  /// for the consistency check; -1 when not counted.
  std::int64_t tokenizer_output_tokens = -1;
  /// Bytes of generated text each content chunk carried, parallel to `chunks` (in memory only;
  /// not written to requests.jsonl).
  std::vector<std::int32_t> chunk_text_bytes;
  /// The generated text (reasoning, content and tool calls), kept in memory only when the run
  /// needs it (a local tokenizer counts output tokens from it, or --save-detailed writes it to
  /// requests.jsonl, cut to kMaxDetailTextBytes).
  std::string output_text;
  /// --save-detailed: the prompt as sent (the text, or a chat request's messages as their JSON
  /// array), at most kMaxDetailTextBytes; empty otherwise.
  std::string prompt_text;
  /// --save-detailed: prompt_text or output_text was cut to kMaxDetailTextBytes.
  bool text_truncated = false;
  /// --save-detailed: the run's budget of kept text was spent before this record (Recorder): it
  /// holds no texts.
  bool text_dropped = false;

  int http_status = 0;
  ErrorClass error = ErrorClass::kNone;
  std::string error_message;
  std::string finish_reason;

  /// The id sent as X-Request-Id and as the trace id of `traceparent` (client/request_id.h);
  /// the same for every attempt. Empty when the run sends none (--no-request-id).
  std::string request_id;
  /// The server's id of its reply: the `id` of the first chunk that carried one (streamed) or of
  /// the body; at most kMaxResponseIdBytes (longer ones are cut). Empty when the server sent none.
  std::string response_id;
  /// The server's `timings` (llama.cpp), when the reply carried them.
  std::optional<ServerTimings> server_timings;
  /// Sent non-streamed by --nonstream-sample among streamed requests: compared with them
  /// (metrics/stream_check.h) and left out of the run's latency figures.
  bool nonstream_sample = false;

  bool ok() const { return error == ErrorClass::kNone; }
};

}  // namespace tokenbench::core
