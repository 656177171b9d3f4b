#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tokenbench/core/input_limits.h"
#include "tokenbench/core/names.h"

namespace tokenbench::core {

/// Which API shape the requests use (docs/WORKLOADS.md, "APIs").
enum class ApiKind {
  kOpenAIChat,         ///< /v1/chat/completions
  kOpenAICompletions,  ///< /v1/completions (legacy)
  kEmbeddings,         ///< /v1/embeddings: no output; inputs per request (--batch-size)
  kAnthropicMessages,  ///< Anthropic's /v1/messages
  kOpenAIResponses,    ///< OpenAI's /v1/responses
  kRerank,             ///< /v1/rerank (vLLM, Jina, Cohere's shape): a query and --documents to rank
  kScore,              ///< /v1/score (vLLM): a text scored against each of --documents
  kSglangGenerate,     ///< SGLang's native /generate: text and sampling_params, cumulative text
};

/// The APIs whose replies carry no generated text: a vector or a score per input.
inline bool scores_inputs(ApiKind api) {
  return api == ApiKind::kEmbeddings || api == ApiKind::kRerank || api == ApiKind::kScore;
}

/// How arrivals are spaced in rate mode.
enum class ArrivalKind { kGamma, kConstant };

/// How the arrival rate climbs to --request-rate at the start of the measure phase.
enum class RampKind { kNone, kLinear, kExponential };

/// How requests are spread over several replicas of one deployment (a repeated --base-url).
enum class BalanceKind { kRoundRobin, kLeastInflight };

/// --transport: auto (the native HTTP/1.1 and HTTP/2 transport where it carries the endpoint,
/// libcurl otherwise) or curl (libcurl for every endpoint).
enum class TransportMode { kAuto, kCurl };
/// --stamps: auto or kernel (the kernel's receive time where the native transport carries the
/// endpoint), user (the client's clock when the read returned).
enum class StampsMode { kAuto, kKernel, kUser };
/// --connection-mode: keep-alive (connections opened before the run and reused) or per-request.
enum class ConnectionMode { kKeepAlive, kPerRequest };
/// --target-load: how the targets compared share the load (RunConfig::target_load).
enum class TargetLoad { kEach, kShared };
/// --concurrency-unit: what --max-concurrency counts in a --multi-turn run (session or request)
/// or a --dataset jobs run (job or call: the same values under the names that run uses).
enum class ConcurrencyUnit { kSession, kRequest };
/// --dataset: where the prompts come from (docs/WORKLOADS.md).
enum class Dataset {
  kRandom,        ///< random token ids of --input-len
  kFixed,         ///< --prompt, sent by every request
  kSharedPrefix,  ///< groups of prompts that share a prefix
  kJsonl,         ///< the rest read --dataset-path
  kLines,
  kCsv,
  kShareGpt,
  kSonnet,
  kBurstGpt,
  kAzure,
  kMooncake,
  kJobs,  ///< agentic jobs: graphs of calls (workload/jobs.h)
};
/// --group-order: how shared-prefix prompts are ordered.
enum class GroupOrder { kInterleaved, kGrouped };
/// --lora-assignment: how each request's adapter of --lora-modules is chosen.
enum class LoraAssignment { kRoundRobin, kRandom };
/// How requests.jsonl is stored (--records-compress).
enum class RecordsCompression {
  kNone,  ///< requests.jsonl, plain text
  kZstd,  ///< requests.jsonl.zst: one zstd frame, flushed with every batch of records
};
/// How the console shows a run (--console-style).
enum class ConsoleStyle {
  kMilliseconds,      ///< "ms" (default): latencies in milliseconds, as vLLM and evalscope now do
  kCompact,           ///< "compact": milliseconds, no rule between rows
  kEvalscopeSeconds,  ///< "evalscope-s": latencies in seconds with four decimals (older evalscope)
};

inline constexpr auto kApiNames = make_names<ApiKind>({
    {ApiKind::kOpenAIChat, "openai-chat"},
    {ApiKind::kOpenAICompletions, "openai"},
    {ApiKind::kEmbeddings, "openai-embeddings"},
    {ApiKind::kAnthropicMessages, "anthropic-messages"},
    {ApiKind::kOpenAIResponses, "openai-responses"},
    {ApiKind::kSglangGenerate, "sglang-generate"},
    {ApiKind::kRerank, "rerank"},
    {ApiKind::kScore, "score"},
    {ApiKind::kOpenAIChat, "chat"},
    {ApiKind::kOpenAICompletions, "completions"},
    {ApiKind::kEmbeddings, "embeddings"},
    {ApiKind::kAnthropicMessages, "anthropic"},
    {ApiKind::kAnthropicMessages, "messages"},
    {ApiKind::kOpenAIResponses, "responses"},
    {ApiKind::kSglangGenerate, "generate"},
});
inline constexpr auto kArrivalNames =
    make_names<ArrivalKind>({{ArrivalKind::kGamma, "gamma"}, {ArrivalKind::kConstant, "constant"}});
inline constexpr auto kRampNames = make_names<RampKind>({{RampKind::kNone, "none"},
                                                         {RampKind::kLinear, "linear"},
                                                         {RampKind::kExponential, "exponential"}});
inline constexpr auto kBalanceNames = make_names<BalanceKind>(
    {{BalanceKind::kRoundRobin, "round-robin"}, {BalanceKind::kLeastInflight, "least-inflight"}});
inline constexpr auto kTransportNames =
    make_names<TransportMode>({{TransportMode::kAuto, "auto"}, {TransportMode::kCurl, "curl"}});
inline constexpr auto kStampsNames = make_names<StampsMode>(
    {{StampsMode::kAuto, "auto"}, {StampsMode::kKernel, "kernel"}, {StampsMode::kUser, "user"}});
inline constexpr auto kConnectionModeNames = make_names<ConnectionMode>(
    {{ConnectionMode::kKeepAlive, "keep-alive"}, {ConnectionMode::kPerRequest, "per-request"}});
inline constexpr auto kTargetLoadNames =
    make_names<TargetLoad>({{TargetLoad::kEach, "each"}, {TargetLoad::kShared, "shared"}});
inline constexpr auto kConcurrencyUnitNames =
    make_names<ConcurrencyUnit>({{ConcurrencyUnit::kSession, "session"},
                                 {ConcurrencyUnit::kRequest, "request"},
                                 {ConcurrencyUnit::kSession, "job"},
                                 {ConcurrencyUnit::kRequest, "call"}});
inline constexpr auto kDatasetNames = make_names<Dataset>({
    {Dataset::kRandom, "random"},
    {Dataset::kFixed, "fixed"},
    {Dataset::kSharedPrefix, "shared-prefix"},
    {Dataset::kJsonl, "jsonl"},
    {Dataset::kLines, "lines"},
    {Dataset::kCsv, "csv"},
    {Dataset::kShareGpt, "sharegpt"},
    {Dataset::kSonnet, "sonnet"},
    {Dataset::kBurstGpt, "burstgpt"},
    {Dataset::kAzure, "azure"},
    {Dataset::kMooncake, "mooncake"},
    {Dataset::kJobs, "jobs"},
});
/// Whether the dataset reads --dataset-path (all but random, fixed and shared-prefix).
constexpr bool reads_file(Dataset d) {
  return d != Dataset::kRandom && d != Dataset::kFixed && d != Dataset::kSharedPrefix;
}
/// Whether its requests carry arrival times (what --replay follows).
constexpr bool has_arrival_times(Dataset d) {
  return d == Dataset::kBurstGpt || d == Dataset::kAzure || d == Dataset::kMooncake;
}
inline constexpr auto kGroupOrderNames = make_names<GroupOrder>(
    {{GroupOrder::kInterleaved, "interleaved"}, {GroupOrder::kGrouped, "grouped"}});
inline constexpr auto kLoraAssignmentNames = make_names<LoraAssignment>(
    {{LoraAssignment::kRoundRobin, "round-robin"}, {LoraAssignment::kRandom, "random"}});
inline constexpr auto kRecordsCompressionNames = make_names<RecordsCompression>(
    {{RecordsCompression::kNone, "none"}, {RecordsCompression::kZstd, "zstd"}});
inline constexpr auto kConsoleStyleNames =
    make_names<ConsoleStyle>({{ConsoleStyle::kMilliseconds, "ms"},
                              {ConsoleStyle::kCompact, "compact"},
                              {ConsoleStyle::kEvalscopeSeconds, "evalscope-s"}});

/// One extra /metrics URL of --server-metrics URL[,name=NAME]: a prefill or decode worker, a
/// router, a replica tokenbench does not send to.
struct MetricsUrl {
  std::string url;   ///< an http:// or https:// URL
  std::string name;  ///< how the console and summary.json call it; empty: the URL's host:port
  bool operator==(const MetricsUrl&) const = default;
};
/// --server-metrics, parsed: where the server's Prometheus metrics are scraped from.
struct ServerMetricsSource {
  /// Nothing is scraped (`off`). Otherwise every --base-url replica's <base-url>/metrics is,
  /// when it answers with names tokenbench knows (`auto`, the default), and every URL besides.
  bool off = false;
  std::vector<MetricsUrl> urls;
  bool operator==(const ServerMetricsSource&) const = default;
};
/// --gpu-metrics, parsed: the GPU sampler.
struct GpuMetricsSource {
  enum class Mode {
    kAuto,  ///< nvidia-smi when it is on PATH
    kOff,
    kNvidiaSmi,  ///< nvidia-smi, which must be on PATH
    kDcgm,       ///< a DCGM exporter's /metrics at `url` ("dcgm=URL")
  };
  Mode mode = Mode::kAuto;
  std::string url;  ///< kDcgm: an http:// or https:// URL
  bool operator==(const GpuMetricsSource&) const = default;
};

/// One of several targets compared in one run (--target / --model a,b,c). Plain data.
struct TargetSpec {
  std::string name;         ///< label of its results subdirectory and table row (default: model)
  std::string base_url;     ///< empty: RunConfig::base_url
  std::string model;        ///< sent as `model`
  std::string api_key_env;  ///< empty: RunConfig::api_key_env
};

/// The effective configuration of one `tokenbench run`: everything needed to repeat it, and nothing
/// secret. The API key itself is never stored here, only the name of the variable it came from.
/// Plain data; written once by the CLI before the run, read-only afterwards.
struct RunConfig {
  // Target
  std::string base_url = "http://127.0.0.1:8000";
  std::string endpoint = "/v1/chat/completions";
  ApiKind api = ApiKind::kOpenAIChat;
  std::string model;  ///< empty until resolved from /v1/models
  std::vector<std::string>
      headers;             ///< extra "K: V" headers (values of auth headers redacted on write)
  std::string extra_body;  ///< JSON object merged into every request body
  /// The body field of the output limit for chat and completions: max_tokens, or
  /// max_completion_tokens for servers that reject the older name.
  std::string max_tokens_field = "max_tokens";
  /// Embeddings: inputs per request (--batch-size); --num-prompts counts requests.
  int batch_size = 1;
  /// Rerank and score: documents per request, each a prompt of the workload (--input-len).
  int documents = 8;
  /// Rerank and score with --dataset random: the query's length in tokens (0: as a document's).
  std::int64_t query_len = 0;
  double timeout_s = 600.0;         ///< per request, from send to the reply's end
  double connect_timeout_s = 30.0;  ///< to establish a connection
  /// keep-alive (connections opened before the run and reused) or per-request (each request
  /// opens its own, its set-up stamped as RequestRecord::connected).
  ConnectionMode connection_mode = ConnectionMode::kKeepAlive;
  /// auto or kernel: the kernel's receive time of each read where the native transport carries
  /// the endpoint; user: the client's clock when the read returned.
  StampsMode stamps = StampsMode::kAuto;
  /// auto: the native HTTP/1.1 transport for http:// without a proxy, libcurl otherwise; curl:
  /// libcurl for every endpoint.
  TransportMode transport = TransportMode::kAuto;
  /// HTTP/2 (--http2): h2c with prior knowledge, or ALPN h2 over TLS; up to http2_streams
  /// requests share a connection (--http2-streams).
  bool http2 = false;
  int http2_streams = 100;
  /// https: a PEM bundle to verify servers against instead of the system's (--cacert), and no
  /// verification at all (--insecure).
  std::string ca_file;
  bool insecure = false;
  double ttft_timeout_s = 0;   ///< no first token within it fails a request; 0: none
  double stall_timeout_s = 0;  ///< no byte for it mid-reply fails a request; 0: none
  std::int64_t max_event_bytes = std::int64_t{4} << 20;  ///< the largest SSE event accepted
  std::int64_t max_reply_bytes = 0;  ///< the most bytes of one reply; 0: derived from max_tokens
  int retries = 0;                   ///< attempts after a retryable failure; 0: none
  bool preflight = true;             ///< ask /v1/models before the run
  /// Server hooks (measure/server_hooks.h): reset each server's prefix cache before the run;
  /// profile the measure phase (POST /start_profile, /stop_profile).
  bool reset_prefix_cache = false;
  bool profile = false;
  std::string api_key_env = "OPENAI_API_KEY";
  bool stream = true;
  /// Send X-Request-Id and traceparent with every request (--no-request-id turns them off).
  bool request_id = true;
  /// --lora-modules: LoRA adapters served beside the base model; each request's `model` is one of
  /// them, chosen by lora_assignment (round-robin by request index, or at random from the seed).
  /// Empty: every request names `model`.
  std::vector<std::string> lora_modules;
  LoraAssignment lora_assignment = LoraAssignment::kRoundRobin;
  /// --lora-weights: each adapter's share of the requests ("a=0.6"); empty: uniform.
  std::vector<std::string> lora_weights;
  /// --continuous-usage: ask for usage in every streamed chunk (vLLM's
  /// stream_options.continuous_usage_stats), making each chunk's token count exact.
  bool continuous_usage = false;
  /// --model-mix: base models behind one gateway, each request's `model` one of them, as given
  /// ("a" or "a=0.6"; core/request_mix.h). --model a,b compares them instead.
  std::vector<std::string> model_mix;

  // Load
  int max_concurrency = 0;  ///< 0: unlimited
  double request_rate = std::numeric_limits<double>::infinity();
  double burstiness = 1.0;  ///< gamma shape; 1 is Poisson
  /// --replay: send each request at its trace time (RequestSpec::trace_s) divided by
  /// replay_speed, instead of --request-rate's arrivals.
  bool replay = false;
  double replay_speed = 1.0;
  ArrivalKind arrival = ArrivalKind::kGamma;
  std::int64_t num_prompts = 0;  ///< 0 with duration_s > 0: run for the duration
  double duration_s = 0.0;
  std::int64_t warmup = 0;
  std::uint64_t seed = 0;
  int workers = 0;  ///< 0: one per core, at most the concurrency
  RampKind ramp_up = RampKind::kNone;
  double ramp_up_start_rps = 1.0;  ///< the rate at the measure phase's start when ramping
  double ramp_up_duration_s = 0;   ///< how long the ramp to request_rate takes
  double drop_first_pct = 0;       ///< the first PCT % of the measure phase is phase `dropped`
  /// Measured requests sent non-streamed among the streamed ones, to compare their E2EL
  /// (--nonstream-sample K); 0: none.
  std::int64_t nonstream_sample = 0;

  /// Replicas of one deployment: every base URL (base_url first) when more than one is given.
  std::vector<std::string> replica_urls;
  BalanceKind balance = BalanceKind::kRoundRobin;

  /// Several targets compared in one interleaved run; empty: the single target above.
  std::vector<TargetSpec> targets;
  /// How the targets compared share the load (--target-load): "each" gives every target its own
  /// --max-concurrency slots and its own --request-rate schedule, so that a target's throughput
  /// is its own; "shared" sends them one schedule under one set of slots, which the slowest
  /// target then holds.
  TargetLoad target_load = TargetLoad::kEach;

  // Workload
  Dataset dataset = Dataset::kRandom;
  std::string dataset_path;
  std::string prompt;                   ///< --prompt, the fixed dataset's prompt
  std::string prompt_field = "prompt";  ///< csv: the prompt's column
  std::string output_len_field;         ///< csv: a column of output lengths
  std::string timestamp_field;          ///< csv: a column of arrival times (seconds)
  std::string session_field;  ///< jsonl, csv: a field naming each prompt's session (--multi-turn)
  // Multi-turn sessions (docs/WORKLOADS.md, "Multi-turn sessions").
  bool multi_turn = false;  ///< each conversation is a session of turns sent in order
  std::int64_t turns = 0;   ///< turns per session where the dataset has none; 0: the dataset's
  /// Pause between a reply and the session's next turn: seconds ("2"), "uniform:LO,HI" or
  /// "exponential:MEAN".
  std::string think_time = "0";
  ConcurrencyUnit concurrency_unit = ConcurrencyUnit::kSession;  ///< what --max-concurrency counts
  // shared-prefix: groups of prompts, each group sharing a prefix.
  std::int64_t prefix_groups = 8;       ///< G
  std::int64_t prompts_per_group = 16;  ///< P
  std::int64_t prefix_len = 512;        ///< L, the shared prefix's tokens
  GroupOrder group_order = GroupOrder::kInterleaved;
  std::int64_t sonnet_prefix_len = 200;  ///< sonnet: tokens of the head every prompt shares
  std::int64_t input_len = 1024;
  std::int64_t output_len = 128;
  /// True unless --output-len was given: a dataset that carries output lengths (ShareGPT's
  /// replies, a trace's, a csv column) uses them; --output-len replaces them.
  bool output_len_from_dataset = true;
  double range_ratio = 0.0;
  std::int64_t random_prefix_len =
      0;  ///< a random prefix of this many tokens shared by all prompts
  /// --cache-block: the block of the ideal prefix cache the run models (core/ideal_cache.h), in
  /// tokens; 0: none; -1: 16 for a workload that shares prefixes (ideal_cache_block).
  std::int64_t cache_block = -1;
  /// --prefix-hit-rate: --dataset random's prompts share prefixes so that an ideal prefix cache
  /// (in blocks of ideal_cache_block) holds this share of their tokens; -1: none.
  double prefix_hit_rate = -1;
  /// --jobs: the shape of the synthetic agentic jobs of --dataset jobs
  /// (workload/synthetic_jobs.h: "fanout:3,depth:1,tools:2,prefix:512"); "": read a job file.
  std::string jobs_spec;
  /// --input-dist / --output-dist (workload::parse_length_dist): "fixed" keeps input_len and
  /// output_len; uniform:LO,HI, normal:MEAN,SD, lognormal:MEAN,SD or empirical:FILE replace them.
  std::string input_dist = "fixed";
  std::string output_dist = "fixed";
  /// Synthetic PNG images sent with each chat request's prompt (--image-count, --image-size WxH).
  std::int64_t image_count = 0;
  std::string image_size = "512x512";
  bool ignore_eos = true;  ///< ask the server to ignore EOS so that outputs reach max_tokens
  std::string
      tokenizer;  ///< tokenizer.json / tokenizer.model / *.tiktoken (or folder); empty: none
  std::string tiktoken_encoding;  ///< cl100k_base | o200k_base for a rank file not named after one
  /// The longest line read from a file: datasets, --input-dist empirical files, tokenizer rank
  /// files (--max-line-bytes; core/input_limits.h).
  std::int64_t max_line_bytes = kDefaultMaxLineBytes;

  // Figures
  std::vector<double> percentiles{50, 90, 95, 99};
  std::vector<std::string> goodput;  ///< "ttft:MS", "tpot:MS", "itl:MS", "e2el:MS"
  /// The cost figures (metrics/cost.h): the price of one GPU for an hour, USD (0: no cost
  /// figures), and the GPUs the deployment runs on.
  double gpu_hour_price = 0;
  double gpus = 1;
  std::vector<std::string> slo;  ///< run-level objectives, e.g. "p95_ttft_ms<=500"
  ConsoleStyle console_style = ConsoleStyle::kMilliseconds;
  /// --steady-state: "off", or "auto" (the figures also over the steady-state window the records
  /// show: metrics/steady_state.h).
  std::string steady_state = "off";
  /// serve-sim's --time-scale as its /v1/models advertised it (1: real time, or not serve-sim).
  double sim_time_scale = 1.0;
  bool sim_time = false;  ///< report figures rescaled to the simulator's model time

  // Telemetry
  /// --server-metrics as given, one value a flag: auto (every replica's <base-url>/metrics when
  /// it answers), off, or URL[,name=NAME] (scraped besides); server_metrics_source parses it.
  std::vector<std::string> server_metrics{"auto"};
  /// Send the target's credentials (the API key, secret --header values) to a --server-metrics
  /// URL of another origin too; by default only the target's own origin receives them.
  bool server_metrics_auth = false;
  double metrics_interval_s = 1.0;  ///< between periodic scrapes (and GPU samples)
  /// The GPU sampler: auto (nvidia-smi when it is on PATH), nvidia-smi, dcgm=URL (a DCGM
  /// exporter's /metrics) or off.
  GpuMetricsSource gpu_metrics;
  /// --label KEY=VALUE items, what the environment record cannot discover (CUDA version, ...).
  std::vector<std::string> labels;
  /// --buckets items ("input:0,256,1024"): summary figures per prompt or output length bucket.
  std::vector<std::string> buckets;

  // Safety
  int fail_fast = 5;  ///< stop when the first N requests all fail with one client error; 0: never
  /// The run fails (exit 2) when more than this share of its measured requests failed (canceled
  /// ones aside); 1: never. Sweeps and searches judge each level by it.
  double max_error_rate = 0.5;
  /// Stop when more than this share of the last requests failed (ErrorRateGuard); 0: never.
  double abort_on_error_rate = 0;
  /// --stop-on-saturation: stop an open-loop run once the users' wait grows without bound
  /// (SaturationGuard; docs/EXPERIMENTS.md).
  bool stop_on_saturation = false;
  /// --probe-rate: 1-token requests a second sent beside the load, outside its concurrency
  /// (collect/probe_sender.h); 0: none.
  double probe_rate = 0;

  // Output
  std::string output_dir;
  /// --result-filename NAME (vLLM's flag): summary.json also written as NAME in output_dir.
  std::string result_filename;
  /// --export formats written beside the results ("csv": requests.csv, and levels.csv at a
  /// sweep's root; report/csv_export.h).
  std::vector<std::string> exports;
  /// --otlp-endpoint: an OTLP/HTTP collector that receives the run's figures as OpenTelemetry
  /// metrics (JSON) once its results are written (client/otlp_post.h, report/otlp_export.h);
  /// empty: none.
  std::string otlp_endpoint;
  /// --otlp-header NAME=VALUE items sent with the export (a collector's credentials): secret,
  /// never written to config.yaml, the environment record, logs or reports.
  std::vector<std::string> otlp_headers;
  /// --records-compress: "none" (requests.jsonl) or "zstd" (requests.jsonl.zst;
  /// records/records_sink.h).
  RecordsCompression records_compress = RecordsCompression::kNone;
  /// --save-detailed (vLLM's flag): requests.jsonl also keeps each request's prompt and generated
  /// text (prompt_text, output_text), bounded per request and per run (records/recorder.h).
  bool save_detailed = false;
  std::string started_at;  ///< ISO 8601 wall-clock label of the run's start
};

/// "openai-chat" | "openai" | "openai-embeddings" | "anthropic-messages" | "openai-responses"
std::string to_string(ApiKind a);
/// The ApiKind named `name` (to_string's names, and the short "chat", "completions",
/// "embeddings", "anthropic", "messages", "responses"); nullopt when unknown.
std::optional<ApiKind> api_kind_from_string(const std::string& name);
/// The usual endpoint path of `api` ("/v1/messages" for Anthropic's Messages API).
std::string default_endpoint(ApiKind api);
std::string to_string(ArrivalKind a);  ///< "gamma" | "constant"
std::string to_string(RampKind r);     ///< "none" | "linear" | "exponential"
std::string to_string(BalanceKind b);  ///< "round-robin" | "least-inflight"
std::string to_string(Dataset d);      ///< its --dataset name: "random", "sharegpt", ...
/// The default block of --cache-block, in tokens.
inline constexpr std::int64_t kDefaultCacheBlock = 16;
/// The block of the ideal prefix cache `config` models, 0 for none: --cache-block when given
/// (0 turns it off), else kDefaultCacheBlock for a workload whose prompts share prefixes by design
/// (--dataset jobs, shared-prefix or mooncake, --multi-turn, --random-prefix-len,
/// --prefix-hit-rate), else 0.
std::int64_t ideal_cache_block(const RunConfig& config);
/// One --server-metrics URL[,name=NAME] parsed; nullopt unless an http(s):// URL with at most a
/// `name=` of letters, digits and `-_.:` after it.
std::optional<MetricsUrl> parse_metrics_url(std::string_view text);
/// A --server-metrics value as config.yaml keeps it: its URL's query credentials cut.
std::string redact_metrics_value(const std::string& value);
/// config.server_metrics parsed. Throws ConfigError naming a value that is not auto, off or
/// URL[,name=NAME], and `off` beside a URL.
ServerMetricsSource server_metrics_source(const RunConfig& config);
/// "auto", "off", "nvidia-smi" or "dcgm=URL": what --gpu-metrics was given as.
std::string to_string(const GpuMetricsSource& s);
/// --gpu-metrics's text parsed; nullopt unless auto, off, nvidia-smi or dcgm=http(s)://...
std::optional<GpuMetricsSource> parse_gpu_metrics(std::string_view text);

/// True when a "Name: value" header carries a credential: its name contains auth, key, token,
/// secret, password, cookie or session (Authorization, X-Api-Key, Ocp-Apim-Subscription-Key, ...).
bool is_secret_header(const std::string& header);

/// Serialises the configuration as YAML (config.yaml). The values of secret headers
/// (is_secret_header) are written as "<redacted>".
std::string to_yaml(const RunConfig& config);

/// Parses what to_yaml wrote. Throws std::runtime_error with a one-line message on bad input.
RunConfig run_config_from_yaml(const std::string& text);

}  // namespace tokenbench::core
