// vLLM's `vllm bench serve` flags, every one: what each is in `tokenbench run` (whose aliases,
// flag_aliases.h, read these rows) or why it is refused (unknown_flag.h says the row's note).

#include "tokenbench/cli/peer_verbs.h"

namespace tokenbench::cli {
namespace {

using enum PeerArity;
using enum PeerRule;

constexpr const char* kVllmExtraBody =
    "has no tokenbench flag: send the request field with --extra-body JSON";

// Read from vllm-project/vllm at 21964e04 (vllm/benchmarks/serve.py add_cli_args,
// vllm/benchmarks/datasets/datasets.py add_dataset_parser). A kRename row whose flag is its own
// name is tokenbench's flag of the same meaning.
constexpr PeerFlag kVllm[] = {
    // The server and its API.
    {"--base-url", kOne, kRename, "--base-url", ""},
    {"--host", kOne, kRule, "--base-url http://HOST:PORT",
     "vLLM's defaults 127.0.0.1 and 8000; refused beside --base-url"},
    {"--port", kOne, kRule, "--base-url http://HOST:PORT", "see --host"},
    {"--endpoint", kOne, kRename, "--endpoint", ""},
    {"--backend", kOne, kRule,
     "openai-chat: --endpoint /v1/chat/completions; openai-embeddings: /v1/embeddings; vllm, "
     "openai (vLLM's default) and the shared names sglang, lmdeploy, scalellm: /v1/completions",
     "the audio, pooling, rerank, CLIP and infinity backends are refused; --backend sglang is "
     "SGLang's native /generate (--api sglang-generate) under --peer sglang; a URL naming a "
     "whole endpoint decides it"},
    {"--model", kOne, kRename, "--model", ""},
    {"--served-model-name", kOne, kRefuse, "",
     "is --model NAME (the name sent; --tokenizer gives the tokenizer)"},
    {"--tokenizer", kOne, kRename, "--tokenizer", ""},
    {"--tokenizer-mode", kOne, kIgnore, "",
     "tokenbench reads tokenizer.json, tokenizer.model or a .tiktoken file itself"},
    {"--skip-tokenizer-init", kNone, kIgnore, "",
     "tokenbench loads a tokenizer only with --tokenizer"},
    {"--trust-remote-code", kNone, kIgnore, "",
     "tokenbench reads tokenizer files itself and runs no model code"},
    {"--header", kMany, kRule, "--header 'KEY: VALUE' for each KEY=VALUE",
     "tokenbench's own 'Name: value' form passes unchanged"},
    {"--insecure", kNone, kRename, "--insecure", ""},
    {"--ready-check-timeout-sec", kOne, kIgnore, "",
     "tokenbench asks GET /v1/models once before the run (tokenbench check waits for none)"},
    {"--request-id-prefix", kOne, kIgnore, "",
     "tokenbench sends its own X-Request-Id with every request (--no-request-id turns it off)"},
    // The load.
    {"--num-prompts", kOne, kRename, "--num-prompts", "vLLM's default 1000, as here"},
    {"--request-rate", kOne, kRename, "--request-rate", "vLLM's default inf, as here"},
    {"--burstiness", kOne, kRename, "--burstiness", ""},
    {"--max-concurrency", kOne, kRename, "--max-concurrency", ""},
    {"--num-warmups", kOne, kRename, "--warmup", ""},
    {"--ramp-up-strategy", kOne, kRefuse, "",
     "is --ramp-up linear|exponential, which climbs over --ramp-up-duration seconds (vLLM's "
     "over the whole run) from --ramp-up-start-rps to --request-rate"},
    {"--ramp-up-start-rps", kOne, kRename, "--ramp-up-start-rps", "with --ramp-up"},
    {"--ramp-up-end-rps", kOne, kRefuse, "", "is --request-rate R, the rate --ramp-up climbs to"},
    {"--probe-request-rate", kOne, kRename, "--probe-rate",
     "tiny requests beside the load, reported apart"},
    {"--self-timed", kNone, kRename, "--replay", "each request at its time in the trace"},
    {"--no-self-timed", kNone, kIgnore, "", "--request-rate spaces the arrivals, as without it"},
    {"--profile", kNone, kRename, "--profile",
     "the server's profiler runs over the measure phase only"},
    // The workload.
    {"--dataset-name", kOne, kRule,
     "random (vLLM's default), sharegpt, sonnet, burstgpt: --dataset NAME; custom: --dataset jsonl",
     "hf, random-mm, random-rerank, prefix_repetition, mixed_serving_boundary, spec_bench, "
     "speed_bench, timed_trace, custom_audio and custom_image are refused with the list of ours"},
    {"--dataset-path", kOne, kRename, "--dataset-path", "a local file (nothing is downloaded)"},
    {"--seed", kOne, kRename, "--seed", "vLLM's default 0, as here"},
    {"--input-len", kOne, kRename, "--input-len", ""},
    {"--output-len", kOne, kRename, "--output-len", ""},
    {"--random-input-len", kOne, kRename, "--input-len", ""},
    {"--random-output-len", kOne, kRename, "--output-len", ""},
    {"--random-range-ratio", kOne, kRename, "--range-ratio",
     "vLLM's [LEN x (1-R), LEN x (1+R)] for input and output alike; a JSON object of two ratios "
     "is refused"},
    {"--random-prefix-len", kOne, kRename, "--random-prefix-len", ""},
    {"--random-batch-size", kOne, kRename, "--batch-size", "embeddings: inputs per request"},
    {"--sharegpt-output-len", kOne, kRename, "--output-len", "ShareGPT's reply lengths replaced"},
    {"--sonnet-input-len", kOne, kRename, "--input-len", ""},
    {"--sonnet-output-len", kOne, kRename, "--output-len", ""},
    {"--sonnet-prefix-len", kOne, kRename, "--sonnet-prefix-len", ""},
    {"--custom-output-len", kOne, kRename, "--output-len", "-1 (the file's lengths) is refused"},
    {"--hf-output-len", kOne, kRename, "--output-len", ""},
    {"--no-stream", kNone, kRule, "under bench serve (--peer vllm): ignored",
     "vLLM's loads a Hugging Face dataset without streaming; elsewhere it is tokenbench's "
     "non-streamed requests"},
    {"--hf-name, --hf-split, --hf-subset", kOne, kRefuse, "",
     "is not supported: tokenbench downloads no Hugging Face dataset; save it as JSONL and use "
     "--dataset jsonl --dataset-path FILE"},
    {"--disable-shuffle", kNone, kIgnore, "",
     "tokenbench takes a file's prompts in the file's order (docs/WORKLOADS.md)"},
    {"--no-oversample", kNone, kRefuse, "",
     "is not supported: a file shorter than the run is cycled (docs/WORKLOADS.md)"},
    {"--skip-chat-template", kNone, kIgnore, "",
     "tokenbench applies no chat template itself (the chat API's server does)"},
    {"--enable-multimodal-chat, --custom-ensure-client-side-data", kNone, kRefuse, "",
     "is not supported: images are --dataset random with --image-count and --image-size"},
    {"--chat-template-kwargs", kOne, kRefuse, "",
     "is not supported: tokenbench renders no chat template; send chat_template_kwargs with "
     "--extra-body JSON"},
    {"--no-reranker", kNone, kRefuse, "", "is not supported: --api rerank measures /v1/rerank"},
    {"--random-mm-base-items-per-request, --random-mm-num-mm-items-range-ratio, "
     "--random-mm-limit-mm-per-prompt, --random-mm-bucket-config",
     kOne, kRefuse, "", "is not supported: images are --image-count N --image-size WxH"},
    {"--prefix-repetition-prefix-len, --prefix-repetition-suffix-len, "
     "--prefix-repetition-num-prefixes, --prefix-repetition-output-len",
     kOne, kRefuse, "",
     "is --dataset shared-prefix with --prefix-len, --input-len (the suffix), --prefix-groups "
     "and --output-len"},
    {"--mixed-boundary-repeated-prefix-fraction, --mixed-boundary-long-prefill-fraction, "
     "--mixed-boundary-repeated-prefix-len, --mixed-boundary-repeated-suffix-len, "
     "--mixed-boundary-repeated-output-len, --mixed-boundary-repeated-prefix-groups, "
     "--mixed-boundary-long-prefill-input-len, --mixed-boundary-long-prefill-output-len, "
     "--mixed-boundary-long-decode-input-len, --mixed-boundary-long-decode-output-len",
     kOne, kRefuse, "",
     "is not supported: the mixed_serving_boundary dataset is not built in (--dataset "
     "shared-prefix and --input-dist mix prefixes and lengths)"},
    {"--spec-bench-output-len, --spec-bench-category, --speed-bench-dataset-subset, "
     "--speed-bench-output-len, --speed-bench-category, --bfcl-categories",
     kOne, kRefuse, "",
     "is not supported: these datasets are downloaded; save one as JSONL and use --dataset jsonl "
     "--dataset-path FILE"},
    {"--timed-trace-chunk-hash-size, --timed-trace-sec-multiplier, --timed-trace-label-timestamp, "
     "--timed-trace-label-input-length, --timed-trace-label-output-length, "
     "--timed-trace-label-hash-ids",
     kOne, kRefuse, "",
     "is not supported: a trace of timestamps, lengths and hash ids replays with --dataset "
     "mooncake --replay"},
    {"--blazedit-min-distance, --blazedit-max-distance, --asr-min-audio-len-sec, "
     "--asr-max-audio-len-sec",
     kOne, kRefuse, "", "is not supported: the blazedit and ASR datasets are not built in"},
    {"--lora-modules", kMany, kRename, "--lora-modules", "each request's model one of them"},
    {"--lora-assignment", kOne, kRename, "--lora-assignment",
     "vLLM's default random is made explicit under bench serve (tokenbench's is round-robin)"},
    // The request body.
    {"--ignore-eos", kNone, kIgnore, "",
     "tokenbench sends ignore_eos unless --no-ignore-eos; under bench serve, vLLM's default "
     "without it is --no-ignore-eos (the model may stop early)"},
    {"--temperature", kOne, kRename, "--temperature", ""},
    {"--top-p", kOne, kRename, "--top-p", ""},
    {"--top-k", kOne, kRename, "--top-k", ""},
    {"--extra-body", kOne, kRename, "--extra-body", ""},
    {"--min-p", kOne, kRefuse, "", kVllmExtraBody},
    {"--frequency-penalty", kOne, kRefuse, "", kVllmExtraBody},
    {"--presence-penalty", kOne, kRefuse, "", kVllmExtraBody},
    {"--repetition-penalty", kOne, kRefuse, "", kVllmExtraBody},
    {"--logprobs", kOne, kRefuse, "", kVllmExtraBody},
    {"--use-beam-search", kNone, kRefuse, "",
     "is not supported: tokenbench measures sampled requests"},
    // The results.
    {"--percentile-metrics", kOne, kIgnore, "", "tokenbench reports every metric"},
    {"--metric-percentiles", kOne, kRename, "--percentiles", ""},
    {"--goodput", kMany, kRename, "--goodput", "KEY:MS pairs, as vLLM's"},
    {"--save-result", kNone, kRule, "--export vllm",
     "vLLM's result JSON, beside tokenbench's files"},
    {"--save-detailed", kNone, kRename, "--save-detailed", ""},
    {"--result-dir", kOne, kRename, "--output-dir", ""},
    {"--result-filename", kOne, kRename, "--result-filename",
     "names vLLM's result file (with --save-result), or a copy of summary.json"},
    {"--append-result", kNone, kRefuse, "",
     "is not supported: every run writes its own results directory (tokenbench compare DIR ... "
     "puts runs side by side)"},
    {"--label", kOne, kRule, "under bench serve (--peer vllm): --label label=NAME",
     "vLLM's result name; tokenbench's own KEY=VALUE passes unchanged"},
    {"--metadata", kMany, kRule, "--label KEY=VALUE for each pair", "kept in environment.json"},
    {"--disable-tqdm", kNone, kRename, "--quiet", ""},
    {"--plot-timeline, --plot-dataset-stats", kNone, kIgnore, "",
     "report.html holds the run's charts"},
    {"--timeline-itl-thresholds", kOne, kIgnore, "", "report.html holds the run's charts"},
};

}  // namespace

std::span<const PeerFlag> vllm_rows() { return kVllm; }

}  // namespace tokenbench::cli
