// EvalScope's `evalscope perf` flags, every one: what each is in `tokenbench run` (whose aliases,
// flag_aliases.h, read these rows) or why it is refused (unknown_flag.h says the row's note).

#include "tokenbench/cli/peer_verbs.h"

namespace tokenbench::cli {
namespace {

using enum PeerArity;
using enum PeerRule;

constexpr const char* kEvalScopeExtraBody =
    "has no tokenbench flag: send the request field with --extra-body JSON";
constexpr const char* kEvalScopeInternal = "EvalScope's own scheduling and storage";

// Read from modelscope/evalscope at fde259d2 (evalscope/perf/arguments.py add_argument). A
// kRename row whose flag is its own name is tokenbench's flag of the same meaning.
constexpr PeerFlag kEvalScope[] = {
    // The server and its API.
    {"--url", kOne, kRule, "--base-url URL",
     "a whole endpoint URL decides the API, as --base-url does; EvalScope's default "
     "http://127.0.0.1:8877/v1/chat/completions is not assumed"},
    {"--api", kOne, kRule,
     "openai: the API the URL names (chat without one); openai_embedding, embedding: "
     "openai-embeddings; openai_responses, openai_response, responses: openai-responses (a chat "
     "URL becomes its /responses); openai_rerank: rerank",
     "local, local_vllm, dashscope and custom are refused; alone (without EvalScope's flags) "
     "openai is tokenbench's legacy completions"},
    {"--model", kOne, kRename, "--model", ""},
    {"--port", kOne, kRule, "beside --url: ignored",
     "EvalScope's is its local server's (--api local, refused); without --url it is vLLM's, "
     "the server's port"},
    {"--attn-implementation", kOne, kIgnore, "", "local inference only (--api local, refused)"},
    {"--headers", kMany, kRule, "--header 'KEY: VALUE' for each KEY=VALUE", ""},
    {"--api-key", kOne, kRule, "--api-key-env TOKENBENCH_API_KEY",
     "the key is handed over in the environment and never written or printed; prefer "
     "--api-key-env VAR"},
    {"--connect-timeout", kOne, kRename, "--connect-timeout", ""},
    {"--read-timeout", kOne, kRename, "--stall-timeout", "no byte for S seconds"},
    {"--total-timeout", kOne, kRename, "--timeout", "per request"},
    {"--no-test-connection", kNone, kRename, "--no-preflight", ""},
    // The load.
    {"--number, -n", kMany, kRule,
     "--num-prompts N; a count per --parallel (or --rate) level: --level-prompts N,N,...",
     "EvalScope's default 1000, as here"},
    {"--parallel", kMany, kRule, "--max-concurrency N (a list sweeps)",
     "EvalScope's default 1 is made explicit under perf (tokenbench's is unlimited)"},
    {"--rate", kMany, kRule, "--request-rate R (Poisson arrivals; a list sweeps; -1 is inf)",
     "refused beside --request-rate"},
    {"--open-loop", kNone, kRule, "--request-rate without --max-concurrency",
     "arrivals never wait for a slot; refused beside --parallel"},
    {"--warmup-num", kOne, kRule, "--warmup N",
     "a share 0 < X < 1 is that share of --number, rounded"},
    {"--duration", kOne, kRename, "--duration", ""},
    {"--sleep-interval", kOne, kIgnore, "",
     "a sweep's levels run back to back, each once the one before has finished"},
    {"--sla-auto-tune", kNone, kRefuse, "",
     "is tokenbench search --slo EXPR: the largest load that meets every SLO"},
    {"--sla-variable", kOne, kRefuse, "",
     "is tokenbench search --vary max-concurrency|request-rate"},
    {"--sla-params", kOne, kRefuse, "", "is tokenbench search --slo EXPR (repeatable)"},
    {"--sla-num-runs, --sla-upper-bound, --sla-lower-bound, --sla-fixed-parallel, "
     "--sla-number-multiplier",
     kOne, kRefuse, "", "is tokenbench search's (see --sla-auto-tune)"},
    {"--db-commit-interval, --queue-size-multiplier, --in-flight-task-multiplier, --num-workers",
     kOne, kIgnore, "", kEvalScopeInternal},
    // The workload.
    {"--dataset", kOne, kRule,
     "random, random_embedding, random_rerank: --dataset random; line_by_line: --dataset lines; "
     "tokenbench's own names pass unchanged",
     "openqa (EvalScope's default), longalpaca and flickr8k are downloaded and refused; "
     "speed_benchmark is refused"},
    {"--dataset-path", kOne, kRename, "--dataset-path", ""},
    {"--data-source", kOne, kRule, "local: ignored",
     "modelscope and huggingface (downloads) are refused"},
    {"--dataset-offset", kOne, kRefuse, "",
     "is not supported: random prompts are drawn from --seed"},
    {"--dataset-args", kOne, kRefuse, "",
     "is not supported: see docs/WORKLOADS.md for each dataset's flags"},
    {"--tokenizer-path", kOne, kRename, "--tokenizer", ""},
    {"--min-prompt-length", kOne, kRule, "--input-dist uniform:MIN,MAX (--input-len when equal)",
     "random prompts; with another --dataset (where EvalScope filters its prompts) refused"},
    {"--max-prompt-length", kOne, kRule, "see --min-prompt-length",
     "EvalScope's defaults 0 (tokenbench's shortest is 1) and 131072"},
    {"--prefix-length", kOne, kRename, "--random-prefix-len",
     "a prefix every random prompt shares"},
    {"--prompt", kOne, kRule, "--prompt TEXT with --dataset fixed", "every request's prompt"},
    {"--query-template", kOne, kRefuse, "",
     "is not supported: --extra-body JSON merges fields into every request body"},
    {"--apply-chat-template, --no-apply-chat-template", kNone, kRefuse, "",
     "is not needed: the chat API sends messages (the server applies its template); --api openai "
     "sends raw prompts"},
    {"--image-width", kOne, kRule, "--image-size WxH", "EvalScope's default 224 for the other"},
    {"--image-height", kOne, kRule, "--image-size WxH", "see --image-width"},
    {"--image-format", kOne, kRule, "RGB: ignored", "other formats are refused"},
    {"--image-num", kOne, kRename, "--image-count", ""},
    {"--image-patch-size", kOne, kIgnore, "", "EvalScope's own image-token count only"},
    {"--multi-turn", kNone, kRename, "--multi-turn", ""},
    {"--min-turns", kOne, kRule, "--turns N when equal to --max-turns",
     "turns drawn between two bounds are refused"},
    {"--max-turns", kOne, kRule, "see --min-turns", "alone: --turns N when it is 1"},
    {"--multi-turn-args", kOne, kRefuse, "",
     "is not supported: --multi-turn --turns N with --dataset jsonl --session-field NAME"},
    // The request body.
    {"--max-tokens", kMany, kRule,
     "--output-len N --no-ignore-eos (the model may stop early); two values MIN MAX: "
     "--output-dist uniform:MIN,MAX --no-ignore-eos",
     "with --min-tokens equal to it, --output-len N exactly"},
    {"--min-tokens", kOne, kRule, "with --max-tokens equal to it: --output-len N",
     "alone, or unequal, refused"},
    {"--temperature", kOne, kRename, "--temperature", ""},
    {"--top-p", kOne, kRename, "--top-p", ""},
    {"--top-k", kOne, kRename, "--top-k", ""},
    {"--seed", kOne, kRename, "--seed", ""},
    {"--extra-args", kOne, kRename, "--extra-body", ""},
    {"--stream", kNone, kIgnore, "", "tokenbench streams by default"},
    {"--no-stream", kNone, kRename, "--no-stream", ""},
    {"--frequency-penalty", kOne, kRefuse, "", kEvalScopeExtraBody},
    {"--repetition-penalty", kOne, kRefuse, "", kEvalScopeExtraBody},
    {"--logprobs", kNone, kRefuse, "", kEvalScopeExtraBody},
    {"--stop, --stop-token-ids", kMany, kRefuse, "", kEvalScopeExtraBody},
    {"--n-choices", kOne, kRefuse, "",
     "is not supported: several choices would share one stream's stamps"},
    {"--tokenize-prompt", kNone, kRefuse, "",
     "is not supported: tokenbench sends text prompts, token-exact with --tokenizer"},
    // The results.
    {"--outputs-dir", kOne, kRename, "--output-dir",
     "the results directory itself (EvalScope makes a dated one in it)"},
    {"--no-timestamp", kNone, kIgnore, "", "--outputs-dir is the results directory itself"},
    {"--name", kOne, kRefuse, "", "is not supported: name the results with --output-dir DIR"},
    {"--log-every-n-query", kOne, kIgnore, "",
     "tokenbench's live view (a progress line every --progress-interval seconds in a log)"},
    {"--debug", kNone, kIgnore, "", "requests.jsonl keeps every request's stamps and errors"},
    {"--enable-progress-tracker", kNone, kIgnore, "", "tokenbench's live view shows the progress"},
    {"--visualizer", kOne, kRefuse, "", "is not supported: report.html holds the charts"},
    {"--wandb-api-key, --swanlab-api-key, --swanlab-host", kOne, kRefuse, "",
     "is not supported: tokenbench uploads nothing; its results are files"},
};

}  // namespace

std::span<const PeerFlag> evalscope_rows() { return kEvalScope; }

}  // namespace tokenbench::cli
