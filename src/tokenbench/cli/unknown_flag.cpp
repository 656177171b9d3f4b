// An unknown flag, said in one line: a peer tool's flag with what it is in tokenbench, or the
// closest flag the command has.

#include "tokenbench/cli/unknown_flag.h"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <string_view>

#include "tokenbench/cli/peer_verbs.h"

namespace tokenbench::cli {
namespace {

struct PeerHint {
  const char* flag;
  const char* tool;
  const char* hint;  // completes "--flag (tool) ..."
};

// Flags of other benchmark clients that flag_aliases.h does not rewrite: what they are here, or
// why tokenbench does not take them. vLLM's bench serve and EvalScope's perf refuse theirs by
// their rows (alias_refusal, peer_verbs.h); these are the other tools'.
constexpr PeerHint kPeerFlags[] = {
    // vLLM (vllm bench sweep serve)
    {"--serve-params", "vLLM bench sweep",
     "is --serve-param NAME=V1,V2 per parameter (repeatable; the product of them, or --link "
     "A,B to take values together)"},
    {"--link-vars", "vLLM bench sweep", "is --link A,B (parameters whose values go together)"},
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
  if (const auto refused = alias_refusal(flag)) {
    return fmt::format("{} ({}) {}", flag, refused->first, refused->second);
  }
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
