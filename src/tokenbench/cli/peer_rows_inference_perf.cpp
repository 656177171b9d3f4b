// inference-perf's YAML config, every key: what each is in `tokenbench run --config FILE`
// (inference_perf_config.h walks a file's keys against these rows) or why it is refused. A name
// `KEY.*` stands for everything under KEY.

#include "tokenbench/cli/peer_verbs.h"

namespace tokenbench::cli {
namespace {

using enum PeerArity;
using enum PeerRule;

constexpr const char* kLength =
    "normal (its default): --input-dist normal:MEAN,SD,MIN,MAX, clamped as there (its defaults "
    "mean 512, std_dev 200, min 10, max 1024); uniform: --input-dist uniform:MIN,MAX; fixed: "
    "--input-len MEAN";
constexpr const char* kWholeLength = "a whole number: the flag; a distribution is refused";

// Read from kubernetes-sigs/inference-perf at 7de5ef2e (inference_perf/config/, version 0.5.0).
constexpr PeerFlag kInferencePerf[] = {
    // api
    {"api.type", kOne, kRule,
     "completion (its default): --api openai; chat: openai-chat; anthropic_messages: "
     "anthropic-messages",
     ""},
    {"api.streaming", kOne, kRule, "true: streamed; false (its default): --no-stream",
     "TTFT is then the whole reply"},
    {"api.headers", kOne, kRule, "--header 'Name: value' each", ""},
    {"api.slo_unit, api.slo_ttft_header, api.slo_tpot_header", kOne, kRefuse, "",
     "per-request SLO headers are not sent: give --header 'NAME: VALUE' (tokenbench's --goodput "
     "judges SLOs itself)"},
    {"api.response_format.*", kOne, kRefuse, "",
     "structured output: send response_format with --extra-body JSON"},
    {"api.session_id_header_key, api.session_token_header_key", kOne, kRefuse, "",
     "session headers of its trace replays: not supported"},
    // data
    {"data.type", kOne, kRule,
     "random, synthetic: --dataset random; shareGPT: --dataset sharegpt; shared_prefix: "
     "--dataset shared-prefix; mock (its default): --input-len 4 (its '1 2 3 N' prompts)",
     "mock asks no max_tokens, tokenbench asks --output-len; cnn_dailymail, infinity_instruct, "
     "billsum_conversations, otel_trace_replay, weka_trace_replay, conversation_replay and "
     "visionarena are refused"},
    {"data.path", kOne, kRename, "--dataset-path", "shareGPT: a local file"},
    {"data.corpus_file_path", kOne, kIgnore, "",
     "tokenbench's random prompts are its own text, token-exact with --tokenizer"},
    {"data.input_distribution.type, data.input_distribution.mean, data.input_distribution.std_dev, "
     "data.input_distribution.min, data.input_distribution.max, data.input_distribution.variance",
     kOne, kRule, kLength,
     "variance is std_dev squared; lognormal (its random data shifts it by min), skew_normal and "
     "poisson are refused"},
    {"data.output_distribution.type, data.output_distribution.mean, "
     "data.output_distribution.std_dev, data.output_distribution.min, "
     "data.output_distribution.max, data.output_distribution.variance",
     kOne, kRule, "the same for output lengths (max_tokens)", ""},
    {"data.input_distribution.skew, data.output_distribution.skew", kOne, kRule,
     "0 (its default) only", "skew_normal is refused"},
    {"data.input_distribution.total_count, data.output_distribution.total_count", kOne, kIgnore, "",
     "tokenbench draws each request's length as it sends it"},
    {"data.shared_prefix.num_groups, data.shared_prefix.num_unique_system_prompts", kOne, kRule,
     "--prefix-groups", "its default 10"},
    {"data.shared_prefix.num_prompts_per_group, data.shared_prefix.num_users_per_system_prompt",
     kOne, kRule, "--prompts-per-group", "its default 10"},
    {"data.shared_prefix.system_prompt_len", kOne, kRule, "--prefix-len", "its default 100"},
    {"data.shared_prefix.question_len", kOne, kRule, "--input-len", "its default 50"},
    {"data.shared_prefix.output_len", kOne, kRule, "--output-len", "its default 50"},
    {"data.shared_prefix.system_prompt_len.*, data.shared_prefix.question_len.*, "
     "data.shared_prefix.output_len.*, data.shared_prefix.question_distribution.*, "
     "data.shared_prefix.output_distribution.*",
     kOne, kRefuse, "", kWholeLength},
    {"data.shared_prefix.seed", kOne, kIgnore, "", "the prompts are drawn from --seed"},
    {"data.shared_prefix.enable_multi_turn_chat", kOne, kRule, "false (its default) only",
     "true is refused: each group's prompts as turns of one chat is not translated"},
    {"data.use_chat_template", kOne, kRule, "false (its default) only",
     "true is refused: tokenbench applies no chat template itself"},
    {"data.shared_prefix.multimodal.*, data.multimodal.*", kOne, kRefuse, "",
     "not translated: images are --image-count N --image-size WxH"},
    {"data.trace.*, data.otel_trace_replay.*, data.weka_trace_replay.*, "
     "data.conversation_replay.*, data.visionarena.*",
     kOne, kRefuse, "",
     "not translated: a trace replays with --dataset mooncake or azure --replay"},
    // load
    {"load.type", kOne, kRule,
     "constant (its default): --arrival constant; poisson: --arrival poisson; concurrent: "
     "--max-concurrency per stage",
     "trace_replay and trace_session_replay are refused"},
    {"load.stages[].rate", kOne, kRule, "--request-rate (the stages' list sweeps)", ""},
    {"load.stages[].duration", kOne, kRule, "--duration",
     "one duration shared by every stage; stages of different durations are refused"},
    {"load.stages[].concurrency_level", kOne, kRule, "--max-concurrency (the stages' list sweeps)",
     "load.type concurrent"},
    {"load.stages[].num_requests", kOne, kRule, "--num-prompts",
     "load.type concurrent: one count shared by every stage"},
    {"load.stages[].concurrent_sessions, load.stages[].session_rate, load.stages[].num_sessions, "
     "load.stages[].timeout",
     kOne, kRefuse, "", "trace_session_replay's: not translated"},
    {"load.interval", kOne, kRule, "said, not applied",
     "tokenbench starts each stage once the one before has finished"},
    {"load.sweep.*", kOne, kRefuse, "", "finds its rates itself: use tokenbench search"},
    {"load.trace.*", kOne, kRefuse, "",
     "not translated: a trace replays with --dataset mooncake or azure --replay"},
    {"load.num_workers, load.worker_max_tcp_connections", kOne, kIgnore, "",
     "inference-perf's own processes; tokenbench drives every stream from one engine"},
    {"load.worker_max_concurrency", kOne, kIgnore, "",
     "a cap on each worker process's requests in flight (100 by default): tokenbench caps them "
     "only with --max-concurrency"},
    {"load.circuit_breakers", kOne, kRefuse, "",
     "stopping on errors is not supported: tokenbench runs to the end (--stop-on-saturation "
     "stops an overloaded rate run)"},
    {"load.request_timeout", kOne, kRename, "--timeout", ""},
    {"load.base_seed", kOne, kRename, "--seed", ""},
    {"load.lora_traffic_split[].name, load.lora_traffic_split[].split", kOne, kRule,
     "--lora-modules NAME,... with --lora-weights NAME=SPLIT,...", ""},
    // server
    {"server.type", kOne, kRule, "vllm, sglang, tgi: the OpenAI-compatible API, said",
     "mock is refused"},
    {"server.base_url", kOne, kRename, "--base-url", ""},
    {"server.model_name", kOne, kRename, "--model", ""},
    {"server.ignore_eos", kOne, kRule, "true: sent; false (its default): --no-ignore-eos", ""},
    {"server.api_key", kOne, kRefuse, "",
     "a secret in a file: put it in an environment variable and give --api-key-env VAR"},
    {"server.cert_path, server.key_path", kOne, kRefuse, "",
     "client certificates are not supported"},
    // tokenizer
    {"tokenizer.pretrained_model_name_or_path", kOne, kRename, "--tokenizer", ""},
    {"tokenizer.trust_remote_code, tokenizer.token", kOne, kIgnore, "",
     "tokenbench reads tokenizer files itself (a local file or cache) and downloads nothing"},
    // Sections tokenbench does not read.
    {"metrics.*, report.*, storage.*, circuit_breakers.*", kOne, kIgnore, "",
     "tokenbench scrapes the server's /metrics (--server-metrics) and writes its own results "
     "directory"},
};

}  // namespace

std::span<const PeerFlag> inference_perf_rows() { return kInferencePerf; }

}  // namespace tokenbench::cli
