// An unknown flag, said in one line: a peer tool's flag with what it is in tokenbench, or the
// closest flag the command has.

#include "tokenbench/cli/unknown_flag.h"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <string_view>

namespace tokenbench::cli {
namespace {

struct PeerFlag {
  const char* flag;
  const char* tool;
  const char* hint;  // completes "--flag (tool) ..."
};

constexpr const char* kExtraBody =
    "has no tokenbench flag: send the request field with --extra-body JSON";

// Flags of other benchmark clients that flag_aliases.h does not rewrite: what they are here, or
// why tokenbench does not take them. Where a flag name is shared by several tools, the entry
// names them all.
constexpr PeerFlag kPeerFlags[] = {
    // vLLM (vllm bench serve)
    {"--append-result", "vLLM",
     "is not supported: every run writes its own results directory (tokenbench compare DIR ... "
     "puts runs side by side)"},
    {"--metadata", "vLLM, LLMPerf", "is --label KEY=VALUE (repeatable; kept in environment.json)"},
    {"--tokenizer-mode", "vLLM",
     "is not needed: --tokenizer loads tokenizer.json, tokenizer.model or a .tiktoken file"},
    {"--served-model-name", "vLLM",
     "is --model NAME (the name sent; --tokenizer gives the tokenizer)"},
    {"--lora-modules", "vLLM",
     "is not supported: one model per request stream; --model a,b,c compares several"},
    {"--use-beam-search", "vLLM", "is not supported: tokenbench measures sampled requests"},
    {"--request-id-prefix", "vLLM",
     "is not supported: tokenbench sends its own X-Request-Id with every request (--no-request-id "
     "turns it off)"},
    {"--ramp-up-strategy", "vLLM",
     "is --ramp-up linear|exponential (with --ramp-up-start-rps, --ramp-up-duration and "
     "--request-rate as the end rate)"},
    {"--ramp-up-end-rps", "vLLM", "is --request-rate R, the rate --ramp-up climbs to"},
    {"--ready-check-timeout-sec", "vLLM",
     "is not supported: tokenbench asks GET /v1/models once before the run; tokenbench check "
     "says whether a server is ready"},
    {"--hf-name", "vLLM",
     "is not supported: tokenbench downloads no Hugging Face dataset; save it as JSONL and use "
     "--dataset jsonl --dataset-path FILE"},
    {"--hf-split", "vLLM", "is not supported: see --hf-name; --dataset jsonl reads a saved split"},
    // vLLM (vllm bench sweep serve)
    {"--serve-params", "vLLM bench sweep",
     "is --serve-param NAME=V1,V2 per parameter (repeatable; the product of them, or --link "
     "A,B to take values together)"},
    {"--link-vars", "vLLM bench sweep", "is --link A,B (parameters whose values go together)"},
    {"--hf-subset", "vLLM",
     "is not supported: see --hf-name; --dataset jsonl reads a saved subset"},
    {"--hf-output-len", "vLLM", "is --output-len N"},
    {"--sharegpt-output-len", "vLLM", "is --output-len N"},
    {"--custom-output-len", "vLLM", "is --output-len N"},
    {"--random-batch-size", "vLLM", "is --batch-size N (embeddings)"},
    {"--min-p", "vLLM", kExtraBody},
    {"--frequency-penalty", "vLLM, EvalScope", kExtraBody},
    {"--presence-penalty", "vLLM", kExtraBody},
    {"--repetition-penalty", "vLLM, EvalScope", kExtraBody},
    {"--logprobs", "vLLM, EvalScope", kExtraBody},
    // EvalScope (evalscope perf)
    {"--headers", "EvalScope", "is --header 'Name: value' (one header per --header)"},
    {"--wandb-api-key", "EvalScope",
     "is not supported: tokenbench uploads nothing; its results are files"},
    {"--swanlab-api-key", "EvalScope",
     "is not supported: tokenbench uploads nothing; its results are files"},
    {"--visualizer", "EvalScope", "is not supported: report.html holds the charts"},
    {"--name", "EvalScope", "is not supported: name the results with --output-dir DIR"},
    {"--query-template", "EvalScope",
     "is not supported: --extra-body JSON merges fields into every request body"},
    {"--image-width", "EvalScope", "is --image-size WxH"},
    {"--image-height", "EvalScope", "is --image-size WxH"},
    {"--n-choices", "EvalScope",
     "is not supported: several choices would share one stream's stamps"},
    {"--stop", "EvalScope", kExtraBody},
    {"--stop-token-ids", "EvalScope", kExtraBody},
    {"--tokenize-prompt", "EvalScope",
     "is not supported: tokenbench sends text prompts, token-exact with --tokenizer"},
    {"--sleep-interval", "EvalScope", "is not supported: a sweep's levels run back to back"},
    {"--sla-auto-tune", "EvalScope",
     "is tokenbench search --slo EXPR: the largest load that meets every SLO"},
    {"--sla-variable", "EvalScope", "is tokenbench search --vary max-concurrency|request-rate"},
    {"--sla-params", "EvalScope", "is tokenbench search --slo EXPR (repeatable)"},
    {"--no-timestamp", "EvalScope", "is not needed: --output-dir DIR names the directory"},
    {"--dataset-args", "EvalScope",
     "is not supported: see docs/WORKLOADS.md for each dataset's flags"},
    {"--apply-chat-template", "EvalScope",
     "is not needed: the chat API sends messages (the server applies its template); --api openai "
     "sends raw prompts"},
    {"--min-turns", "EvalScope", "is --turns N with --multi-turn"},
    {"--max-turns", "EvalScope", "is --turns N with --multi-turn"},
    // GenAI-Perf / AIPerf
    {"--endpoint-type", "GenAI-Perf",
     "is --endpoint PATH: chat is /v1/chat/completions, completions /v1/completions, embeddings "
     "/v1/embeddings"},
    {"--service-kind", "GenAI-Perf",
     "is not needed for openai (what tokenbench speaks); triton is not supported"},
    {"--measurement-interval", "GenAI-Perf",
     "is not supported: tokenbench measures --num-prompts requests or --duration seconds"},
    {"--stability-percentage", "GenAI-Perf",
     "is not supported: tokenbench measures --num-prompts requests or --duration seconds; "
     "tokenbench compare tells a change from noise"},
    {"--num-dataset-entries", "GenAI-Perf",
     "is not needed: each request gets its own prompt, drawn from --seed"},
    {"--input-file", "GenAI-Perf", "is --dataset jsonl --dataset-path FILE (docs/WORKLOADS.md)"},
    {"--extra-inputs", "GenAI-Perf",
     "is --temperature, --top-p, --top-k, or --extra-body JSON for other request fields"},
    {"--output-tokens-mean-deterministic", "GenAI-Perf",
     "is not needed: tokenbench asks for exactly --output-len tokens (ignore_eos, min_tokens) "
     "unless --no-ignore-eos"},
    {"--profile-export-file", "GenAI-Perf",
     "is not supported: the results directory (--output-dir) holds summary.json and "
     "requests.jsonl"},
    {"--generate-plots", "GenAI-Perf", "is not needed: report.html holds the plots"},
    {"--benchmark-duration", "AIPerf", "is --duration S"},
    {"--request-timeout-seconds", "AIPerf", "is --timeout S"},
    {"--conversation-num", "AIPerf", "is --multi-turn --num-prompts N (sessions)"},
    {"--conversation-turn-mean", "AIPerf", "is --multi-turn --turns N"},
    // GuideLLM (guidellm benchmark)
    {"--rate-type", "GuideLLM",
     "is: synchronous --max-concurrency 1; concurrent --max-concurrency N; constant "
     "--request-rate R --arrival constant; poisson --request-rate R --arrival poisson; throughput "
     "--request-rate inf; sweep a list --request-rate 1,2,4 or tokenbench search"},
    {"--max-seconds", "GuideLLM", "is --duration S"},
    {"--max-requests", "GuideLLM", "is --num-prompts N"},
    {"--data", "GuideLLM",
     "is, for prompt_tokens=N,output_tokens=M, --input-len N --output-len M; a file is "
     "--dataset jsonl|csv --dataset-path FILE"},
    {"--processor", "GuideLLM", "is --tokenizer PATH"},
    {"--output-path", "GuideLLM", "is --output-dir DIR (a directory of results)"},
    {"--warmup-percent", "GuideLLM", "is --warmup N (a count of requests)"},
    {"--cooldown-percent", "GuideLLM",
     "is not supported: --drop-first PCT leaves out the start of the measure phase"},
    {"--backend-type", "GuideLLM", "is not needed: openai_http is what tokenbench speaks"},
    {"--disable-progress", "GuideLLM", "is --quiet"},
    // LLMPerf (token_benchmark_ray.py)
    {"--mean-input-tokens", "LLMPerf",
     "is --input-len N, or with LLMPerf's spread --input-dist normal:MEAN,SD"},
    {"--stddev-input-tokens", "LLMPerf", "is --input-dist normal:MEAN,SD"},
    {"--mean-output-tokens", "LLMPerf",
     "is --output-len N, or with LLMPerf's spread --output-dist normal:MEAN,SD"},
    {"--stddev-output-tokens", "LLMPerf", "is --output-dist normal:MEAN,SD"},
    {"--num-concurrent-requests", "LLMPerf", "is --max-concurrency N"},
    {"--max-num-completed-requests", "LLMPerf", "is --num-prompts N"},
    {"--additional-sampling-params", "LLMPerf",
     "is --extra-body JSON (or --temperature, --top-p, --top-k)"},
    {"--results-dir", "LLMPerf", "is --output-dir DIR"},
    {"--llm-api", "LLMPerf",
     "is not needed for openai (what tokenbench speaks); litellm, sagemaker and vertexai are not "
     "supported"},
};

// Optimal string alignment distance: Levenshtein plus swaps of two neighbours.
std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
  for (std::size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
      }
    }
  }
  return d[a.size()][b.size()];
}

}  // namespace

std::optional<std::string> peer_flag_hint(const std::string& flag) {
  for (const auto& p : kPeerFlags) {
    if (flag == p.flag) return fmt::format("{} ({}) {}", p.flag, p.tool, p.hint);
  }
  return std::nullopt;
}

std::string closest_flag(const std::string& flag, const std::vector<std::string>& known) {
  // Compared without the leading dashes, which every candidate shares.
  const auto bare = [](const std::string& f) {
    return std::string_view(f).substr(std::min(f.find_first_not_of('-'), f.size()));
  };
  const std::string_view name = bare(flag);
  std::string best;
  std::size_t best_distance = 0;
  for (const auto& k : known) {
    const std::size_t dist = edit_distance(name, bare(k));
    if (best.empty() || dist < best_distance) {
      best = k;
      best_distance = dist;
    }
  }
  const std::size_t limit = 1 + name.size() / 5;
  if (best.empty() || best_distance > limit || best_distance >= name.size()) return "";
  return best;
}

std::string unknown_flag_message(const std::string& command, const std::string& flag,
                                 const std::vector<std::string>& known) {
  const std::string help = fmt::format("tokenbench {} --help lists its flags", command);
  if (command == "run" || command == "search") {
    if (const auto hint = peer_flag_hint(flag)) return *hint;
  }
  const std::string close = closest_flag(flag, known);
  if (!close.empty()) {
    return fmt::format("{}: unknown flag {}: did you mean {}? ({})", command, flag, close, help);
  }
  return fmt::format("{}: unknown flag {} ({})", command, flag, help);
}

std::string first_unknown_flag(const std::vector<std::string>& args,
                               const std::function<bool(const std::string&)>& is_known) {
  for (const auto& a : args) {
    if (a == "--") return "";
    if (a.size() < 3 || a.compare(0, 2, "--") != 0) continue;
    const std::string name = a.substr(0, a.find('='));
    if (!is_known(name)) return name;
  }
  return "";
}

}  // namespace tokenbench::cli
