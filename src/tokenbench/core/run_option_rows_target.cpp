// The target: section of config.yaml (run_options.h).

#include <yaml-cpp/yaml.h>

#include "tokenbench/core/config_check.h"
#include "tokenbench/core/run_option_rows.h"

namespace tokenbench::core::rows {
namespace {

using C = RunConfig;

std::string shown_body(const std::string& body) { return redact_json_fields(body); }

std::string redact_header(const std::string& header) {
  if (!is_secret_header(header)) return header;
  return header.substr(0, header.find(':')) + ": <redacted>";
}

void write_headers(YAML::Emitter& out, const C& c) {
  out << YAML::Key << "headers" << YAML::Value << YAML::BeginSeq;
  for (const auto& h : c.headers) out << redact_header(h);
  out << YAML::EndSeq;
}

void write_replicas(YAML::Emitter& out, const C& c) {
  std::vector<std::string> replicas;
  for (const auto& url : c.replica_urls) replicas.push_back(redact_query(url));
  out << YAML::Key << "replicas" << YAML::Value << YAML::Flow << replicas;
}

void write_targets(YAML::Emitter& out, const C& c) {
  out << YAML::Key << "targets" << YAML::Value << YAML::BeginSeq;
  for (const auto& t : c.targets) {
    out << YAML::Flow << YAML::BeginMap << YAML::Key << "name" << YAML::Value << t.name << YAML::Key
        << "base_url" << YAML::Value << redact_query(t.base_url) << YAML::Key << "model"
        << YAML::Value << t.model << YAML::Key << "api_key_env" << YAML::Value << t.api_key_env
        << YAML::EndMap;
  }
  out << YAML::EndSeq;
}

void read_targets(const YAML::Node& t, C& c) {
  for (const auto& n : t["targets"]) {
    TargetSpec spec;
    if (n["name"]) spec.name = n["name"].as<std::string>();
    if (n["base_url"]) spec.base_url = n["base_url"].as<std::string>();
    if (n["model"]) spec.model = n["model"].as<std::string>();
    if (n["api_key_env"]) spec.api_key_env = n["api_key_env"].as<std::string>();
    c.targets.push_back(std::move(spec));
  }
}

constexpr OptionRange kTimeout{OptionRange::kTimeout, kMinTimeoutSeconds, kMaxSeconds, {}};
constexpr OptionRange kTimeoutOrNone{
    OptionRange::kTimeoutOrNone, kMinTimeoutSeconds, kMaxSeconds, {}};

bool has_lora(const C& c) { return !c.lora_modules.empty(); }
bool has_mix(const C& c) { return has_lora(c) || !c.model_mix.empty(); }

}  // namespace

std::vector<RunOption> target_rows() {
  return {
      {.flag = "--base-url",
       .section = "target",
       .key = "base_url",
       .field = &C::base_url,
       .help = "Server URL, e.g. http://127.0.0.1:8000; repeat for replicas of one deployment",
       .cli = OptionCli::kNone,
       .rule = ConfigRule::kRepeat,
       .shown = shown_url},
      {.flag = "--endpoint",
       .section = "target",
       .key = "endpoint",
       .field = &C::endpoint,
       .help = "Request path",
       .shown = shown_url},
      {.flag = "--api",
       .section = "target",
       .key = "api",
       .field = enum_field<&C::api, kApiNames>(),
       .help = "openai-chat | openai (legacy completions) | openai-embeddings | "
               "anthropic-messages | openai-responses; default: inferred from --endpoint "
               "(alone, it sets the endpoint: /v1/embeddings, /v1/messages, /v1/responses)",
       .cli = OptionCli::kNone},
      {.flag = "--model",
       .section = "target",
       .key = "model",
       .field = &C::model,
       .help = "Model name; default: the first id of GET /v1/models. A comma-separated list "
               "compares models behind one gateway",
       .cli = OptionCli::kNone},
      {.flag = "--header",
       .section = "target",
       .key = "headers",
       .field = &C::headers,
       .help = "Extra request header 'Name: value' (repeatable)",
       .cli = OptionCli::kValueBare,
       .rule = ConfigRule::kRepeat,
       .write = write_headers},
      {.flag = "--extra-body",
       .section = "target",
       .key = "extra_body",
       .field = &C::extra_body,
       .help = "JSON object merged into every request body, e.g. '{\"temperature\":0}'",
       .cli = OptionCli::kValueBare,
       .shown = shown_body},
      {.flag = "--max-tokens-field",
       .section = "target",
       .key = "max_tokens_field",
       .field = &C::max_tokens_field,
       .help = "The output limit's field for chat and completions: max_tokens or "
               "max_completion_tokens (newer OpenAI-style servers reject max_tokens)"},
      {.flag = "--batch-size",
       .section = "target",
       .key = "batch_size",
       .field = &C::batch_size,
       .help = "Embeddings: inputs per request (--num-prompts counts requests)"},
      {.flag = "--documents",
       .section = "target",
       .key = "documents",
       .field = &C::documents,
       .help = "Rerank and score: documents per request, each --input-len tokens (the query "
               "is a prompt too; --num-prompts counts requests)",
       .written = [](const C& c) { return c.api == ApiKind::kRerank || c.api == ApiKind::kScore; }},
      {.flag = "--query-len",
       .section = "target",
       .key = "query_len",
       .field = &C::query_len,
       .help = "Rerank and score with --dataset random: the query's length in tokens (0: as "
               "a document's)",
       .written = [](const C& c) { return c.query_len > 0; }},
      {.flag = "--timeout",
       .section = "target",
       .key = "timeout_s",
       .field = &C::timeout_s,
       .help = "Per-request timeout in seconds, from the send to the reply's end (class "
               "timeout)",
       .rule = ConfigRule::kValue,
       .range = kTimeout},
      {.flag = "--connect-timeout",
       .section = "target",
       .key = "connect_timeout_s",
       .field = &C::connect_timeout_s,
       .help = "Seconds to establish a connection (class connect_timeout)",
       .rule = ConfigRule::kValue,
       .range = kTimeout},
      {.flag = "--connection-mode",
       .section = "target",
       .key = "connection_mode",
       .field = enum_field<&C::connection_mode, kConnectionModeNames>(),
       .help = "keep-alive: connections reused (opened before the run with "
               "--max-concurrency), so TTFT holds no TCP set-up | per-request: a new "
               "connection per request, its set-up stamped as connected_ns",
       .member_check = true},
      {.flag = "--stamps",
       .section = "target",
       .key = "stamps",
       .field = enum_field<&C::stamps, kStampsNames>(),
       .help = "auto | kernel: stamp each read with the kernel's receive time (proxies use "
               "user space) | user: the client's clock when the read returned",
       .member_check = true},
      {.flag = "--transport",
       .section = "target",
       .key = "transport",
       .field = enum_field<&C::transport, kTransportNames>(),
       .help = "auto: the native HTTP/1.1 and HTTP/2 transport (epoll, OpenSSL for https), "
               "libcurl for proxies | curl: libcurl for everything",
       .member_check = true},
      {.flag = "--http2",
       .section = "target",
       .key = "http2",
       .field = &C::http2,
       .help = "Speak HTTP/2: prior knowledge (h2c) for http://, ALPN h2 for https://; requests "
               "share connections as streams, as gateways use them",
       .cli = OptionCli::kSwitch,
       .rule = ConfigRule::kIfTrue},
      {.flag = "--http2-streams",
       .section = "target",
       .key = "http2_streams",
       .field = &C::http2_streams,
       .help = "With --http2: the most requests one connection carries at once (fewer if the "
               "server's SETTINGS_MAX_CONCURRENT_STREAMS says so); more connections open as "
               "needed"},
      {.flag = "--cacert",
       .section = "target",
       .key = "ca_file",
       .field = &C::ca_file,
       .help = "https: verify servers against this PEM bundle instead of the system's "
               "certificates (a private CA, a self-signed server)",
       .cli = OptionCli::kValueBare,
       .rule = ConfigRule::kValue},
      {.flag = "--insecure",
       .section = "target",
       .key = "insecure",
       .field = &C::insecure,
       .help = "https: do not verify the server's certificate or name (a test server only)",
       .cli = OptionCli::kSwitch,
       .rule = ConfigRule::kIfTrue},
      {.flag = "--ttft-timeout",
       .section = "target",
       .key = "ttft_timeout_s",
       .field = &C::ttft_timeout_s,
       .help = "Fail a request with no first token this many seconds after its send (class "
               "ttft_timeout); 0: none",
       .rule = ConfigRule::kValue,
       .range = kTimeoutOrNone},
      {.flag = "--stall-timeout",
       .section = "target",
       .key = "stall_timeout_s",
       .field = &C::stall_timeout_s,
       .help = "Fail a reply that sends no byte for this many seconds mid-way (class "
               "stall_timeout); 0: none",
       .rule = ConfigRule::kValue,
       .range = kTimeoutOrNone},
      {.flag = "--max-event-bytes",
       .section = "target",
       .key = "max_event_bytes",
       .field = &C::max_event_bytes,
       .help = "The largest SSE event a reply may send (a larger one fails it as malformed)",
       .cli = OptionCli::kNone,
       .range = {OptionRange::kInRange, 1024, double(std::int64_t{1} << 30),
                 "bytes (e.g. 4MiB, the default)"}},
      {.flag = "--max-reply-bytes",
       .section = "target",
       .key = "max_reply_bytes",
       .field = &C::max_reply_bytes,
       .help = "The most bytes one reply may send (class protocol beyond it); 0: derived "
               "from max_tokens with a wide margin",
       .cli = OptionCli::kNone,
       .range = {OptionRange::kInRange, 0, double(std::int64_t{1} << 40),
                 "bytes (0: derived from max_tokens)"}},
      {.flag = "--retries",
       .section = "target",
       .key = "retries",
       .field = &C::retries,
       .help = "Retry a request that failed to connect, got 429 or 5xx, or was cut before "
               "any output, up to N times (exponential backoff with jitter, honours "
               "Retry-After); every attempt is recorded",
       .range = {OptionRange::kInRange, 0, 100, "(0: none)"}},
      {.flag = "--no-preflight",
       .section = "target",
       .key = "preflight",
       .field = &C::preflight,
       .help = "Skip asking GET /v1/models before the run (then --model is required)",
       .cli = OptionCli::kNegSwitch,
       .rule = ConfigRule::kIfFalse,
       .compared = false},
      {.flag = "--reset-prefix-cache",
       .section = "target",
       .key = "reset_prefix_cache",
       .field = &C::reset_prefix_cache,
       .help = "Before the run (each level of a sweep, each probe of a search), ask the server to "
               "forget its prefix cache: vLLM POST /reset_prefix_cache, SGLang POST /flush_cache",
       .cli = OptionCli::kSwitch,
       .rule = ConfigRule::kIfTrue,
       .written = [](const C& c) { return c.reset_prefix_cache; }},
      {.flag = "--profile",
       .section = "target",
       .key = "profile",
       .field = &C::profile,
       .help = "Profile the measure phase only: POST /start_profile as it starts and "
               "/stop_profile as it ends (vLLM with VLLM_TORCH_PROFILER_DIR, SGLang)",
       .cli = OptionCli::kSwitch,
       .rule = ConfigRule::kIfTrue,
       .written = [](const C& c) { return c.profile; },
       .compared = false,
       .resumed = false},
      {.flag = "--api-key-env",
       .section = "target",
       .key = "api_key_env",
       .field = &C::api_key_env,
       .help = "Environment variable (or .env key) holding the API key",
       .compared = false},
      {.flag = "--no-stream",
       .section = "target",
       .key = "stream",
       .field = &C::stream,
       .help = "Non-streaming requests (TTFT undefined)",
       .cli = OptionCli::kNegSwitch,
       .rule = ConfigRule::kIfFalse},
      {.flag = "--no-request-id",
       .section = "target",
       .key = "request_id",
       .field = &C::request_id,
       .help = "Send no X-Request-Id and traceparent headers (requests.jsonl then has no "
               "request_id)",
       .cli = OptionCli::kNegSwitch,
       .rule = ConfigRule::kIfFalse},
      {.flag = "--nonstream-sample",
       .section = "target",
       .key = "nonstream_sample",
       .field = &C::nonstream_sample,
       .help = "Send K of the measured requests non-streamed, spread evenly, and compare their "
               "E2EL with the streamed ones' (Checks); 0: none"},
  };
}

std::vector<RunOption> targets_rows() {
  return {
      {.flag = "--base-url",
       .section = "target",
       .key = "replicas",
       .field = &C::replica_urls,
       .cli = OptionCli::kNone,
       .rule = ConfigRule::kRepeat,
       .written = [](const C& c) { return !c.replica_urls.empty(); },
       .write = write_replicas},
      {.flag = "--balance",
       .section = "target",
       .key = "balance",
       .field = enum_field<&C::balance, kBalanceNames>(),
       .help = "round-robin | least-inflight: how requests spread over repeated --base-url",
       .cli = OptionCli::kNone,
       .written = [](const C& c) { return !c.replica_urls.empty(); },
       .lenient = true},
      {.flag = "--target",
       .section = "target",
       .key = "targets",
       .field = &C::targets,
       .help = "A target to compare: model=NAME[,url=URL][,key-env=VAR][,name=LABEL] "
               "(repeatable)",
       .cli = OptionCli::kNone,
       .rule = ConfigRule::kTargets,
       .written = [](const C& c) { return !c.targets.empty(); },
       .write = write_targets,
       .read = read_targets},
      {.flag = "--target-load",
       .section = "target",
       .key = "target_load",
       .field = enum_field<&C::target_load, kTargetLoadNames>(),
       .help = "Targets compared: each (every target its own --max-concurrency slots and "
               "--request-rate) or shared (one schedule and one set of slots for all)",
       .written = [](const C& c) { return !c.targets.empty(); },
       .unknown = "--target-load '{}' is not each (every target its own slots and rate) or shared "
                  "(one schedule and one set of slots for all)"},
      // Issue 30: LoRA adapters, each request's `model` one of them.
      {.flag = "--lora-modules",
       .section = "target",
       .key = "lora_modules",
       .field = &C::lora_modules,
       .help = "LoRA adapters served beside the base model (vLLM's --lora-modules names): each "
               "request's model is one of them, e.g. a,b,c (--lora-assignment)",
       .cli = OptionCli::kValueBare,
       .rule = ConfigRule::kJoin,
       .written = has_lora,
       .delimiter = ','},
      {.flag = "--lora-assignment",
       .section = "target",
       .key = "lora_assignment",
       .field = enum_field<&C::lora_assignment, kLoraAssignmentNames>(),
       .help = "--lora-modules, --model-mix: round-robin (by request index; with weights a "
               "golden-ratio walk of the shares) or random (from --seed)",
       .written = has_mix,
       .member_check = true},
      {.flag = "--continuous-usage",
       .section = "target",
       .key = "continuous_usage",
       .field = &C::continuous_usage,
       .help = "Ask for usage in every streamed chunk (vLLM's stream_options."
               "continuous_usage_stats): each chunk's tokens exact under speculative decoding",
       .cli = OptionCli::kSwitch,
       .rule = ConfigRule::kIfTrue,
       .written = [](const C& c) { return c.continuous_usage; }},
      {.flag = "--lora-weights",
       .section = "target",
       .key = "lora_weights",
       .field = &C::lora_weights,
       .help = "Each --lora-modules adapter's share of the requests, e.g. a=0.6,b=0.3,c=0.1 "
               "(default: uniform)",
       .cli = OptionCli::kValueBare,
       .rule = ConfigRule::kJoin,
       .written = [](const C& c) { return !c.lora_weights.empty(); },
       .delimiter = ','},
      {.flag = "--model-mix",
       .section = "target",
       .key = "model_mix",
       .field = &C::model_mix,
       .help = "Base models behind one gateway that the requests are spread over, each "
               "request's model one of them: a,b or a=0.7,b=0.3 (figures per model; "
               "--model a,b compares them instead)",
       .cli = OptionCli::kValueBare,
       .rule = ConfigRule::kJoin,
       .written = [](const C& c) { return !c.model_mix.empty(); },
       .delimiter = ','},
  };
}

}  // namespace tokenbench::core::rows
