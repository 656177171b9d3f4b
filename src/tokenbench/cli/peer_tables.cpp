// The tables of the peers' flags (peer_verbs.h): what each becomes here, or why it is refused.
// The translation (peer_translator.h, a peer_*.cpp file a peer) and docs/CLI.md's tables are
// both read from these rows.

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <stdexcept>

#include "tokenbench/cli/peer_verbs.h"
#include "tokenbench/cli/run_flags.h"

namespace tokenbench::cli {
namespace {

using enum PeerArity;
using enum PeerRule;

// AIPerf's `aiperf profile` and GenAI-Perf's `genai-perf profile` (which AIPerf continues): the
// flags of a run against an OpenAI-compatible server.
constexpr PeerFlag kAiperf[] = {
    {"--model-names, --model, -m", kOne, kRule, "--model NAME",
     "one model; several (a list) are refused: use --model-mix"},
    {"--url, -u", kOne, kRule, "--base-url URL",
     "host:port gets http:// as AIPerf adds it; without it, AIPerf's default localhost:8000"},
    {"--endpoint-type", kOne, kRule,
     "--api: chat is openai-chat, completions openai, embeddings openai-embeddings, rankings "
     "rerank",
     "other types (generate, image_retrieval, nvclip, multimodal, ...) are refused"},
    {"--custom-endpoint, --endpoint", kOne, kRename, "--endpoint", ""},
    {"--streaming", kNone, kRule, "a streamed run",
     "without it AIPerf sends non-streamed requests: --no-stream (TTFT is then the whole reply)"},
    {"--concurrency", kOne, kRename, "--max-concurrency",
     "without it or --request-rate, AIPerf's default concurrency 1"},
    {"--request-rate", kOne, kRule, "--request-rate R --arrival poisson",
     "AIPerf's default request-rate mode is Poisson arrivals"},
    {"--request-rate-mode", kOne, kRule, "--arrival: poisson is poisson, constant constant", ""},
    {"--request-count, --num-requests", kOne, kRename, "--num-prompts",
     "without it or --benchmark-duration, AIPerf's default 10"},
    {"--warmup-request-count, --num-warmup-requests", kOne, kRename, "--warmup", ""},
    {"--benchmark-duration", kOne, kRename, "--duration",
     "refused with --request-count, as AIPerf refuses it"},
    {"--benchmark-grace-period", kOne, kIgnore, "",
     "tokenbench waits for the requests in flight until --timeout"},
    {"--request-timeout-seconds", kOne, kRename, "--timeout", ""},
    {"--prompt-input-tokens-mean, --synthetic-input-tokens-mean, --isl", kOne, kRename,
     "--input-len", "without it, AIPerf's default 550"},
    {"--prompt-input-tokens-stddev, --synthetic-input-tokens-stddev, --isl-stddev", kOne, kRule,
     "--input-dist normal:MEAN,STDDEV", "0 keeps every prompt at the mean"},
    {"--prompt-output-tokens-mean, --output-tokens-mean, --osl", kOne, kRule, "--output-len N",
     "the model may stop early (AIPerf asks max_tokens only): --no-ignore-eos, unless "
     "--extra-inputs ignore_eos:true"},
    {"--prompt-output-tokens-stddev, --output-tokens-stddev, --osl-stddev", kOne, kRule,
     "--output-dist normal:MEAN,STDDEV", "0 keeps every output at the mean"},
    {"--input-file", kOne, kRule,
     "single_turn: --dataset jsonl --dataset-path FILE (each line's \"text\" a prompt); "
     "mooncake_trace: --dataset mooncake --dataset-path FILE",
     "multi_turn and random_pool are refused"},
    {"--custom-dataset-type", kOne, kRule, "the type of --input-file",
     "without it the file's first line decides, as AIPerf's loaders do: input_length or "
     "hash_ids make a mooncake_trace, turns a multi_turn, else single_turn"},
    {"--fixed-schedule", kNone, kRule, "--replay (a mooncake_trace's timestamps)",
     "refused without a trace"},
    {"--extra-inputs", kMany, kRule, "--extra-body {\"KEY\": VALUE, ...}",
     "KEY:VALUE pairs (numbers and true/false typed as AIPerf types them) or a JSON object; "
     "ignore_eos:true keeps --output-len exact"},
    {"--header, -H", kMany, kRule, "--header 'Name: value'",
     "AIPerf's 'Name:value' form; Authorization headers should come from --api-key-env"},
    {"--tokenizer", kOne, kRename, "--tokenizer", ""},
    {"--output-artifact-dir, --artifact-dir", kOne, kRename, "--output-dir",
     "without it, AIPerf's default artifacts/MODEL-openai-ENDPOINT-STIMULUS (concurrency1, "
     "request_rate10.0, fixed_schedule) in the directory it runs in"},
    {"--goodput, -g", kMany, kRule, "--goodput ttft:MS tpot:MS e2el:MS",
     "time_to_first_token is ttft, inter_token_latency tpot (AIPerf's per-request mean gap), "
     "request_latency e2el; other metrics are refused"},
    {"--random-seed", kOne, kRename, "--seed", ""},
    {"--api-key", kOne, kRule, "--api-key-env (the key never written)",
     "prefer --api-key-env VAR: a command line is visible to other users"},
    {"--ui-type, --ui", kOne, kIgnore, "",
     "tokenbench's live view shows at a terminal, a progress line otherwise"},
    {"--verbose, -v, --extra-verbose", kNone, kIgnore, "", "tokenbench's output is the same"},
    {"--log-level", kOne, kIgnore, "", "tokenbench's output is the same"},
    {"--public-dataset", kOne, kRule, "--dataset sharegpt (with --dataset-path FILE)",
     "sharegpt only; tokenbench reads the file, it does not download it"},
    {"--seq-dist, --sequence-distribution", kOne, kRefuse, "",
     "not translated yet: lengths mix with --input-dist and --output-dist"},
    {"--profile-export-file", kOne, kRefuse, "",
     "AIPerf's per-request profile_export.jsonl is not written: its profile_export_aiperf.json "
     "and .csv are (tokenbench profile adds --export aiperf), with tokenbench's requests.jsonl, "
     "into --artifact-dir"},
    {"--conversation-num, --num-sessions, --conversation-turn-mean, --session-turns-mean", kOne,
     kRefuse, "", "AIPerf's synthetic sessions: use tokenbench --multi-turn --turns N"},
    {"--request-cancellation-rate", kOne, kRefuse, "",
     "tokenbench does not cancel requests on purpose"},
    {"--server-metrics-url, --server-metrics", kOne, kRename, "--server-metrics", ""},
};

// GuideLLM's `guidellm benchmark`.
constexpr PeerFlag kGuidellm[] = {
    {"--target", kOne, kRename, "--base-url", ""},
    {"--model", kOne, kRename, "--model", ""},
    {"--processor", kOne, kRename, "--tokenizer", "a Hugging Face id or a local tokenizer"},
    {"--backend-type, --backend", kOne, kRule, "openai_http: an OpenAI-compatible server",
     "other backends are refused"},
    {"--rate-type, --profile", kOne, kRule,
     "synchronous: --max-concurrency 1; concurrent: --max-concurrency RATE; throughput: "
     "--request-rate inf --max-concurrency 512 (GuideLLM's cap); constant and async: "
     "--request-rate RATE --arrival constant; poisson: --request-rate RATE --arrival poisson",
     "sweep (GuideLLM's default) is --rate-sweep N --max-concurrency 512 --arrival constant: "
     "synchronous, throughput, then N-2 constant rates between their throughputs"},
    {"--rate", kMany, kRule,
     "the levels of --rate-type (a list is a tokenbench sweep); sweep: its number of levels",
     "sweep's default 10"},
    {"--max-requests", kOne, kRename, "--num-prompts", ""},
    {"--max-seconds", kOne, kRename, "--duration", ""},
    {"--warmup-percent, --warmup", kOne, kRule, "--drop-first PCT",
     "GuideLLM leaves the first share of the benchmark out; a fraction 0..1 is a share, more a "
     "percent"},
    {"--cooldown-percent, --cooldown", kOne, kRule, "0 only",
     "leaving the last share out is refused: tokenbench drops only the first"},
    {"--data", kOne, kRule,
     "prompt_tokens=N,output_tokens=M (or the same as JSON): --input-len N --output-len M (with "
     "_stdev, _min, _max: --input-dist/--output-dist); a .jsonl file: --dataset jsonl",
     "Hugging Face dataset names are refused: give a local file"},
    {"--output-path", kOne, kRule, "--output-dir: the file's folder, or the folder given",
     "benchmarks.json is written there (tokenbench benchmark adds --export guidellm), beside "
     "summary.json and report.html"},
    {"--random-seed", kOne, kRename, "--seed", ""},
    {"--backend-args, --processor-args, --data-args, --data-sampler, --scenario", kOne, kRefuse, "",
     "not translated: give tokenbench's own flags (--header, --tokenizer, --dataset, ...)"},
    {"--output-extras, --output-sampling", kOne, kIgnore, "",
     "tokenbench keeps every request in requests.jsonl"},
    {"--display-scheduler-stats", kNone, kIgnore, "", "the live view shows the engine's progress"},
    {"--request-type", kOne, kRule, "chat_completions: openai-chat; text_completions: openai",
     "without it, GuideLLM's default text_completions (/v1/completions)"},
    {"--disable-progress, --disable-console-outputs", kNone, kIgnore, "",
     "tokenbench's live view shows at a terminal only"},
};

// Ray LLMPerf's `token_benchmark_ray.py`, whose flags `run` takes (peer_on_run): always streamed
// chat, max_tokens only, its base URL in $OPENAI_API_BASE and its key in $OPENAI_API_KEY.
constexpr PeerFlag kLlmperf[] = {
    {"--mean-input-tokens", kOne, kRule, "--input-len", "without it, LLMPerf's default 550"},
    {"--stddev-input-tokens", kOne, kRule, "--input-dist normal:MEAN,STDDEV",
     "without it, LLMPerf's default 150"},
    {"--mean-output-tokens", kOne, kRule, "--output-len N --no-ignore-eos",
     "LLMPerf asks max_tokens only (the model may stop early); without it, its default 150"},
    {"--stddev-output-tokens", kOne, kRule, "--output-dist normal:MEAN,STDDEV",
     "without it, LLMPerf's default 80"},
    {"--num-concurrent-requests", kOne, kRename, "--max-concurrency",
     "without it, LLMPerf's default 10"},
    {"--max-num-completed-requests", kOne, kRename, "--num-prompts",
     "without it, LLMPerf's default 10"},
    {"--timeout", kOne, kRename, "--duration",
     "LLMPerf's limit on the whole run (default 90 s), not tokenbench's per-request --timeout"},
    {"--additional-sampling-params", kOne, kRule, "--extra-body JSON", "'{}' adds nothing"},
    {"--results-dir", kOne, kRename, "--output-dir", ""},
    {"--llm-api", kOne, kRule, "openai: an OpenAI-compatible chat server",
     "anthropic, litellm, sagemaker and vertexai are refused"},
    {"--metadata", kOne, kRule, "--label KEY=VALUE for each pair", ""},
};

// SGLang's `python -m sglang.bench_serving`, whose flags `run` takes (peer_on_run): many are
// vLLM's too (kSharedWithVllm), and a line carrying none of SGLang's own is read as vLLM's.
constexpr PeerFlag kSglang[] = {
    {"--backend", kOne, kRule,
     "sglang (SGLang's default), sglang-native: --api sglang-generate (POST /generate); "
     "sglang-oai, vllm, lmdeploy: --api openai (/v1/completions); sglang-oai-chat, vllm-chat, "
     "lmdeploy-chat: --api openai-chat",
     "trt, gserver and truss are refused"},
    {"--base-url", kOne, kRename, "--base-url", "beside it SGLang ignores --host and --port"},
    {"--host", kOne, kRule, "--base-url http://HOST:PORT",
     "SGLang's default 0.0.0.0 (this machine) is 127.0.0.1 here"},
    {"--port", kOne, kRule, "--base-url http://HOST:PORT",
     "SGLang's default by backend: 30000 for sglang-*, 8000 for vllm*, 23333 for lmdeploy*"},
    {"--dataset-name", kOne, kRule,
     "sharegpt (SGLang's default) and burstgpt: --dataset NAME with --dataset-path; random and "
     "random-ids: --dataset random; generated-shared-prefix: --dataset shared-prefix",
     "a ShareGPT file is read, not downloaded; mmmu is refused"},
    {"--dataset-path", kOne, kRename, "--dataset-path", ""},
    {"--model", kOne, kRename, "--model", ""},
    {"--tokenizer", kOne, kRename, "--tokenizer", ""},
    {"--num-prompts", kOne, kRule, "--num-prompts",
     "without it, SGLang's default 1000; generated-shared-prefix sends every group's every "
     "question, whatever it says"},
    {"--sharegpt-output-len", kOne, kRule, "--output-len", "--dataset-name sharegpt's"},
    {"--sharegpt-context-len", kOne, kRefuse, "",
     "tokenbench keeps vLLM's ShareGPT limits (1024 prompt tokens, 2048 with the reply) and "
     "drops nothing else"},
    {"--random-input-len, --random-input", kOne, kRule, "--input-len",
     "--dataset-name random's; without it, SGLang's default 1024"},
    {"--random-output-len, --random-output", kOne, kRule, "--output-len",
     "--dataset-name random's; without it, SGLang's default 1024"},
    {"--random-range-ratio", kOne, kRule, "--input-dist/--output-dist uniform:LEN*R,LEN",
     "SGLang draws lengths from [LEN x R, LEN] (vLLM's own flag spreads them around LEN); 1 is "
     "the fixed LEN, the default 0 is [1, LEN]"},
    {"--request-rate", kOne, kRule, "--request-rate R --arrival poisson",
     "without it, SGLang's default inf: every request at once"},
    {"--max-concurrency", kOne, kRename, "--max-concurrency", ""},
    {"--output-file", kOne, kRule, "--output-dir: the file's folder",
     "SGLang's JSONL line is not written: summary.json, requests.jsonl and report.html are"},
    {"--output-details", kNone, kIgnore, "",
     "requests.jsonl keeps every request's lengths, TTFT and ITLs"},
    {"--disable-tqdm", kNone, kIgnore, "", "tokenbench's live view shows at a terminal only"},
    {"--disable-stream", kNone, kRename, "--no-stream", ""},
    {"--return-logprob", kNone, kRefuse, "",
     "logprobs of the native API: ask the OpenAI API's with --extra-body '{\"logprobs\": 1}'"},
    {"--seed", kOne, kRename, "--seed", ""},
    {"--disable-ignore-eos", kNone, kRename, "--no-ignore-eos",
     "without it SGLang sends ignore_eos: true, as tokenbench does"},
    {"--extra-request-body", kOne, kRule, "--extra-body JSON", ""},
    {"--apply-chat-template", kNone, kRule, "with a chat backend, what its server does",
     "with a completions backend refused: tokenbench sends the prompt as it is (use "
     "--backend sglang-oai-chat)"},
    {"--profile", kNone, kRefuse, "",
     "the server's torch profiler is not driven here: POST /start_profile yourself"},
    {"--lora-name", kMany, kRule, "--lora-modules A,B --lora-assignment random",
     "SGLang names a random adapter per request (and sends it as lora_path too)"},
    {"--prompt-suffix, --pd-separated, --tokenize-prompt", kOne, kRefuse, "",
     "not translated: prompts are sent as text, unchanged"},
    {"--flush-cache", kNone, kRename, "--reset-prefix-cache", ""},
    {"--warmup-requests", kOne, kRename, "--warmup", "without it, SGLang's default 1"},
    {"--gsp-num-groups", kOne, kRename, "--prefix-groups", "without it, SGLang's default 64"},
    {"--gsp-prompts-per-group", kOne, kRename, "--prompts-per-group",
     "without it, SGLang's default 16"},
    {"--gsp-system-prompt-len", kOne, kRename, "--prefix-len", "without it, SGLang's default 2048"},
    {"--gsp-question-len", kOne, kRename, "--input-len", "without it, SGLang's default 128"},
    {"--gsp-output-len", kOne, kRename, "--output-len", "without it, SGLang's default 256"},
};

// The flags SGLang's bench_serving shares with vLLM's bench serve: a line of these alone is read
// as vLLM's (run's aliases), as are the backends both have.
constexpr std::string_view kSharedWithVllm[] = {
    "--backend",
    "--base-url",
    "--host",
    "--port",
    "--dataset-name",
    "--dataset-path",
    "--model",
    "--tokenizer",
    "--num-prompts",
    "--sharegpt-output-len",
    "--random-input-len",
    "--random-output-len",
    "--random-range-ratio",
    "--request-rate",
    "--max-concurrency",
    "--disable-tqdm",
    "--seed",
    "--profile",
};

// Every peer, in the order docs/CLI.md lists their tables.
std::span<const PeerCli> all_peers() {
  static const PeerCli peers[] = {
      {"profile", "AIPerf / GenAI-Perf", "aiperf profile",
       "ai-dynamo/aiperf at db4f6397 (aiperf/common/config/*_config.py) and GenAI-Perf's "
       "`genai-perf profile`, triton-inference-server/perf_analyzer at 263c5f6e "
       "(genai-perf/genai_perf/parser.py)",
       kAiperf},
      {"benchmark", "GuideLLM", "guidellm benchmark",
       "vllm-project/guidellm v0.3.1 (121dcdc4, src/guidellm/__main__.py); `guidellm benchmark` "
       "was renamed `guidellm run` in v0.7.0",
       kGuidellm},
      {"bench serve", "vLLM", "vllm bench serve",
       "vllm-project/vllm at 21964e04 (vllm/benchmarks/serve.py, "
       "vllm/benchmarks/datasets/datasets.py); `tokenbench run` takes these flags too, and "
       "`bench serve` adds `--peer vllm` and vLLM's defaults",
       vllm_rows(), PeerRoute::kAliases},
      {"perf", "EvalScope", "evalscope perf",
       "modelscope/evalscope at fde259d2 (evalscope/perf/arguments.py); `tokenbench run` takes "
       "these flags too, and `perf` adds EvalScope's defaults and its result files",
       evalscope_rows(), PeerRoute::kAliases},
      {"run", "LLMPerf", "python token_benchmark_ray.py",
       "ray-project/llmperf at f1d6bed4 (token_benchmark_ray.py); $OPENAI_API_BASE is --base-url "
       "and $OPENAI_API_KEY the key (--api-key-env OPENAI_API_KEY) when --base-url is not given",
       kLlmperf, PeerRoute::kOnRun},
      {"run", "SGLang", "python -m sglang.bench_serving",
       "sgl-project/sglang at 0033168f (python/sglang/bench_serving.py); a line is SGLang's when "
       "it carries a flag or --backend only SGLang has, or --peer sglang",
       kSglang, PeerRoute::kOnRun},
      {"inference-perf", "inference-perf", "inference-perf --config_file FILE",
       "kubernetes-sigs/inference-perf at 7de5ef2e (inference_perf/config/, version 0.5.0); "
       "a key without a row is refused, and `KEY.*` stands for every key under KEY. `tokenbench "
       "run --config FILE` reads the file; `tokenbench inference-perf` takes its whole command "
       "line: `-c/--config_file FILE`, each key as `--KEY VALUE` (JSON for a list or an object) "
       "over the file's, `--log-level` ignored, `-a/--analyze` and `-u/--unified_analysis_dir` "
       "refused (tokenbench report and compare read results)",
       inference_perf_rows(), PeerRoute::kConfig},
  };
  return peers;
}

// The peer of `route` under `verb`; null when none is.
const PeerCli* find_peer(PeerRoute route, std::string_view verb) {
  for (const auto& p : all_peers()) {
    if (p.route == route && p.verb == verb) return &p;
  }
  return nullptr;
}

const PeerCli& peer_of_tool(std::string_view tool) {
  for (const auto& p : all_peers()) {
    if (p.tool == tool) return p;
  }
  throw std::logic_error("no peer " + std::string(tool));
}

// A row that is tokenbench's own flag of the same name.
bool same_flag(const PeerFlag& f) {
  return f.rule == PeerRule::kRename && f.becomes == peer_spellings(f.names).front();
}

// What a row does, in a line of help: its flag, its words, or why it is refused or ignored.
std::string row_help(const PeerFlag& f) {
  return f.rule == PeerRule::kRefuse   ? "refused: " + std::string(f.note)
         : f.rule == PeerRule::kIgnore ? "ignored: " + std::string(f.note)
         : same_flag(f)                ? "the same"
                                       : std::string(f.becomes);
}

std::string cell(std::string_view text) {
  std::string out(text);
  std::replace(out.begin(), out.end(), '|', '/');
  return out;
}

}  // namespace

std::vector<std::string_view> peer_spellings(std::string_view names) {
  std::vector<std::string_view> out;
  while (!names.empty()) {
    const auto comma = names.find(", ");
    out.push_back(names.substr(0, comma));
    names = comma == std::string_view::npos ? "" : names.substr(comma + 2);
  }
  return out;
}

std::span<const PeerCli> peer_clis() { return all_peers(); }

const PeerCli* peer_cli(std::string_view verb) { return find_peer(PeerRoute::kVerb, verb); }

const PeerCli* peer_alias_cli(std::string_view verb) {
  return find_peer(PeerRoute::kAliases, verb);
}

const PeerCli* peer_config_cli() { return find_peer(PeerRoute::kConfig, "inference-perf"); }

std::optional<AliasRow> alias_row(std::string_view flag) {
  for (const auto& p : all_peers()) {
    if (p.route != PeerRoute::kAliases) continue;
    if (const PeerFlag* f = peer_flag(p, flag)) {
      return AliasRow{f, p.tool, peer_spellings(f->names).front()};
    }
  }
  return std::nullopt;
}

std::optional<std::pair<std::string, std::string_view>> alias_refusal(std::string_view flag) {
  std::string tools;
  std::string_view why;
  for (const auto& p : all_peers()) {
    const PeerFlag* f = p.route == PeerRoute::kAliases ? peer_flag(p, flag) : nullptr;
    if (f == nullptr || f->rule != PeerRule::kRefuse) continue;
    tools += (tools.empty() ? "" : ", ") + std::string(p.tool);
    if (why.empty()) why = f->note;
  }
  if (tools.empty()) return std::nullopt;
  return std::pair{tools, why};
}

const PeerCli* peer_on_run(const std::vector<std::string>& args) {
  const PeerCli& llmperf = peer_of_tool("LLMPerf");
  const PeerCli& sglang = peer_of_tool("SGLang");
  // The name of the flag args[i] and its value (--flag=value, or the next argument).
  const auto flag_at = [&args](std::size_t i) {
    const std::string name = args[i].substr(0, args[i].find('='));
    const std::string value = name.size() < args[i].size() ? args[i].substr(name.size() + 1)
                              : i + 1 < args.size()        ? args[i + 1]
                                                           : "";
    return std::pair{name, value};
  };
  for (std::size_t i = 0; i < args.size(); ++i) {
    const auto [name, value] = flag_at(i);
    if (name != "--peer") continue;
    if (value == "sglang") return &sglang;
    if (value == "llmperf") return &llmperf;
    if (value == "vllm" || value == "evalscope") return nullptr;  // run's own aliases
    throw UsageError("--peer " + value +
                     " is not a peer whose flags run takes: vllm, evalscope, sglang or llmperf");
  }
  for (std::size_t i = 0; i < args.size(); ++i) {
    const auto [name, value] = flag_at(i);
    // --timeout is tokenbench's too, and --metadata vLLM's: LLMPerf's line is known by its
    // other flags.
    if (name != "--timeout" && name != "--metadata" && peer_flag(llmperf, name) != nullptr) {
      return &llmperf;
    }
    const bool shared = std::find(std::begin(kSharedWithVllm), std::end(kSharedWithVllm), name) !=
                        std::end(kSharedWithVllm);
    if (!shared && peer_flag(sglang, name) != nullptr) return &sglang;
    // The backends vLLM's bench serve has too (sglang, vllm, lmdeploy) say nothing.
    if (name == "--backend" &&
        (value == "sglang-native" || value == "sglang-oai" || value == "sglang-oai-chat" ||
         value == "vllm-chat" || value == "lmdeploy-chat" || value == "trt" || value == "gserver" ||
         value == "truss")) {
      return &sglang;
    }
  }
  return nullptr;
}

const PeerFlag* peer_flag(const PeerCli& peer, std::string_view flag) {
  for (const auto& f : peer.flags) {
    for (const auto name : peer_spellings(f.names)) {
      if (name == flag) return &f;
    }
  }
  return nullptr;
}

std::string peer_tables_markdown() {
  std::string out;
  for (const auto& p : all_peers()) {
    out += p.route == PeerRoute::kOnRun
               ? fmt::format("#### `tokenbench run` with {}'s flags (`{}`)\n\nRead from {}.\n\n",
                             p.tool, p.command, p.source)
           : p.route == PeerRoute::kConfig
               ? fmt::format(
                     "#### `tokenbench run --config FILE`: {}'s YAML (`{}`)\n\nRead from "
                     "{}.\n\n",
                     p.tool, p.command, p.source)
               : fmt::format("#### `tokenbench {}`: {} (`{}`)\n\nRead from {}.\n\n", p.verb, p.tool,
                             p.command, p.source);
    out += p.route == PeerRoute::kConfig ? "| key | here | note |\n|---|---|---|\n"
                                         : "| flag | here | note |\n|---|---|---|\n";
    for (const auto& f : p.flags) {
      std::string names;
      for (const auto n : peer_spellings(f.names)) {
        names += fmt::format("{}`{}`", names.empty() ? "" : ", ", n);
      }
      const std::string here = f.rule == PeerRule::kRefuse   ? "refused"
                               : f.rule == PeerRule::kIgnore ? "ignored"
                               : same_flag(f)                ? "the same"
                               : f.rule == PeerRule::kRename ? fmt::format("`{}`", f.becomes)
                                                             : cell(f.becomes);
      out += fmt::format("| {} | {} | {} |\n", names, here, cell(f.note));
    }
    out += "\n";
  }
  return out;
}

// A peer's flags as `cmd`'s own, for --help, the man page and the completions (main() translates
// the command line before CLI11 reads it).
void add_peer_flags(CLI::App* cmd, const PeerCli& p) {
  cmd->allow_extras();
  for (const auto& f : p.flags) {
    const std::string help = row_help(f);
    for (const auto n : peer_spellings(f.names)) {
      // A row of several flags (as vLLM's dataset options) is one option per flag.
      const std::string name(n);
      if (cmd->get_option_no_throw(name) != nullptr) continue;
      if (f.arity == PeerArity::kNone) {
        cmd->add_flag(name, help);
      } else {
        cmd->add_option(name, help);
      }
    }
  }
}

void add_peer_commands(CLI::App& app) {
  for (const auto& p : all_peers()) {
    if (p.route == PeerRoute::kVerb) {
      add_peer_flags(app.add_subcommand(std::string(p.verb),
                                        fmt::format("{}'s `{}` command line, translated into a "
                                                    "run (tokenbench {} --help: its flags)",
                                                    p.tool, p.command, p.verb)),
                     p);
    } else if (p.route == PeerRoute::kAliases && p.verb == "perf") {
      add_peer_flags(app.add_subcommand("perf",
                                        "EvalScope's `evalscope perf` command line: tokenbench "
                                        "perf ... is tokenbench run ... with its flags"),
                     p);
    } else if (p.route == PeerRoute::kConfig) {
      CLI::App* ip =
          app.add_subcommand("inference-perf",
                             "inference-perf's command line (--config_file FILE, --KEY VALUE): "
                             "its config translated into a run (tokenbench inference-perf --help: "
                             "its keys)");
      ip->allow_extras();
      ip->add_option("-c,--config_file", "inference-perf's YAML config");
    } else if (p.route == PeerRoute::kAliases) {
      CLI::App* bench = app.add_subcommand(
          "bench",
          "vLLM's `vllm bench serve` command line: tokenbench bench serve ... is "
          "tokenbench run ... with its flags");
      add_peer_flags(bench->add_subcommand("serve", "vLLM's `vllm bench serve` flags"), p);
    }
  }
  // Hidden: docs/CLI.md's tables of the peers' flags, generated (a test compares them).
  CLI::App* tables = app.add_subcommand("peer-tables", "Print the peers' flag tables as Markdown");
  tables->group("");
  tables->callback([] { std::fputs(peer_tables_markdown().c_str(), stdout); });
}

std::string peer_help(const PeerCli& peer) {
  std::string out = fmt::format(
      "tokenbench {} ...: {}'s `{}` command line, translated into a tokenbench run.\n"
      "Each flag below is said on stderr as it is translated; a refused one ends the command with "
      "the reason. tokenbench's own flags (tokenbench run --help) may be added.\n\n",
      peer.verb, peer.tool, peer.command);
  if (peer.route == PeerRoute::kConfig) {
    out +=
        "Usage: tokenbench inference-perf [-c FILE] [--KEY VALUE ...]: its config file, and each "
        "key below as --KEY VALUE (JSON for a list or an object, e.g. --load.stages "
        "'[{\"rate\": 10, \"duration\": 60}]') over the file's; the same file runs as "
        "tokenbench run --config FILE.\n\n";
  }
  for (const auto& f : peer.flags) out += fmt::format("  {:<46} {}\n", f.names, row_help(f));
  return out;
}

}  // namespace tokenbench::cli
