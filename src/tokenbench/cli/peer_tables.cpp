// The tables of the peers' flags (peer_verbs.h): what each becomes here, or why it is refused.
// The translation (peer_verbs.cpp) and docs/CLI.md's tables are both read from these rows.

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>

#include "tokenbench/cli/peer_verbs.h"

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
    {"--input-file", kOne, kRefuse, "",
     "AIPerf's single-turn file (its prompts in \"text\") is not read yet: convert it with jq -c "
     "'{prompt: .text}' and give --dataset jsonl --dataset-path FILE"},
    {"--extra-inputs", kMany, kRule, "--extra-body {\"KEY\": VALUE, ...}",
     "KEY:VALUE pairs (numbers and true/false typed as AIPerf types them) or a JSON object; "
     "ignore_eos:true keeps --output-len exact"},
    {"--header, -H", kMany, kRule, "--header 'Name: value'",
     "AIPerf's 'Name:value' form; Authorization headers should come from --api-key-env"},
    {"--tokenizer", kOne, kRename, "--tokenizer", ""},
    {"--output-artifact-dir, --artifact-dir", kOne, kRename, "--output-dir", ""},
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
    {"--custom-dataset-type, --fixed-schedule, --seq-dist, --sequence-distribution", kOne, kRefuse,
     "",
     "not translated yet: a trace replays with --dataset mooncake, lengths mix with --input-dist"},
    {"--profile-export-file", kOne, kRefuse, "",
     "AIPerf's export files are not written yet: tokenbench writes summary.json, requests.jsonl "
     "and report.html into --artifact-dir"},
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
     "GuideLLM's benchmarks.json itself is not written yet: summary.json and report.html are"},
    {"--random-seed", kOne, kRename, "--seed", ""},
    {"--backend-args, --processor-args, --data-args, --data-sampler, --scenario", kOne, kRefuse, "",
     "not translated: give tokenbench's own flags (--header, --tokenizer, --dataset, ...)"},
    {"--output-extras, --output-sampling", kOne, kIgnore, "",
     "tokenbench keeps every request in requests.jsonl"},
    {"--display-scheduler-stats", kNone, kIgnore, "", "the live view shows the engine's progress"},
    {"--request-type", kOne, kRule, "chat_completions: openai-chat; text_completions: openai", ""},
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

constexpr PeerCli kPeers[] = {
    {"profile", "AIPerf / GenAI-Perf", "aiperf profile",
     "ai-dynamo/aiperf at db4f6397 (aiperf/common/config/*_config.py) and GenAI-Perf's "
     "`genai-perf profile`, triton-inference-server/perf_analyzer at 263c5f6e "
     "(genai-perf/genai_perf/parser.py)",
     kAiperf},
    {"benchmark", "GuideLLM", "guidellm benchmark",
     "vllm-project/guidellm v0.3.1 (121dcdc4, src/guidellm/__main__.py); `guidellm benchmark` "
     "was renamed `guidellm run` in v0.7.0",
     kGuidellm},
    {"run", "LLMPerf", "python token_benchmark_ray.py",
     "ray-project/llmperf at f1d6bed4 (token_benchmark_ray.py); $OPENAI_API_BASE is --base-url "
     "and $OPENAI_API_KEY the key (--api-key-env OPENAI_API_KEY) when --base-url is not given",
     kLlmperf},
};

// Each ", "-separated spelling of `names`.
std::vector<std::string_view> spellings(std::string_view names) {
  std::vector<std::string_view> out;
  while (!names.empty()) {
    const auto comma = names.find(", ");
    out.push_back(names.substr(0, comma));
    names = comma == std::string_view::npos ? "" : names.substr(comma + 2);
  }
  return out;
}

std::string cell(std::string_view text) {
  std::string out(text);
  std::replace(out.begin(), out.end(), '|', '/');
  return out;
}

}  // namespace

std::span<const PeerCli> peer_clis() { return kPeers; }

const PeerCli* peer_cli(std::string_view verb) {
  for (const auto& p : kPeers) {
    if (p.verb == verb && verb != "run") return &p;
  }
  return nullptr;
}

const PeerCli* peer_on_run(const std::vector<std::string>& args) {
  const PeerCli& llmperf = kPeers[2];
  for (const auto& a : args) {
    const std::string name = a.substr(0, a.find('='));
    // --timeout is tokenbench's too, and --metadata vLLM's: LLMPerf's line is known by its
    // other flags.
    if (name != "--timeout" && name != "--metadata" && peer_flag(llmperf, name) != nullptr) {
      return &llmperf;
    }
  }
  return nullptr;
}

const PeerFlag* peer_flag(const PeerCli& peer, std::string_view flag) {
  for (const auto& f : peer.flags) {
    for (const auto name : spellings(f.names)) {
      if (name == flag) return &f;
    }
  }
  return nullptr;
}

std::string peer_tables_markdown() {
  std::string out;
  for (const auto& p : kPeers) {
    out += p.verb == "run"
               ? fmt::format("#### `tokenbench run` with {}'s flags (`{}`)\n\nRead from {}.\n\n",
                             p.tool, p.command, p.source)
               : fmt::format("#### `tokenbench {}`: {} (`{}`)\n\nRead from {}.\n\n", p.verb, p.tool,
                             p.command, p.source);
    out += "| flag | here | note |\n|---|---|---|\n";
    for (const auto& f : p.flags) {
      std::string names;
      for (const auto n : spellings(f.names)) {
        names += fmt::format("{}`{}`", names.empty() ? "" : ", ", n);
      }
      const std::string here = f.rule == PeerRule::kRefuse   ? "refused"
                               : f.rule == PeerRule::kIgnore ? "ignored"
                               : f.rule == PeerRule::kRename ? fmt::format("`{}`", f.becomes)
                                                             : cell(f.becomes);
      out += fmt::format("| {} | {} | {} |\n", names, here, cell(f.note));
    }
    out += "\n";
  }
  return out;
}

void add_peer_commands(CLI::App& app) {
  for (const auto& p : kPeers) {
    if (p.verb == "run") continue;  // run's own flags; main() translates LLMPerf's
    CLI::App* cmd =
        app.add_subcommand(std::string(p.verb),
                           fmt::format("{}'s `{}` command line, translated into a run (tokenbench "
                                       "{} --help: its flags)",
                                       p.tool, p.command, p.verb));
    cmd->allow_extras();
    // The peer's flags as the command's own, for the man page and the completions (main()
    // translates the command line before CLI11 reads it).
    for (const auto& f : p.flags) {
      std::string names;
      for (const auto n : spellings(f.names)) names += (names.empty() ? "" : ",") + std::string(n);
      const std::string help = f.rule == PeerRule::kRefuse   ? "refused: " + std::string(f.note)
                               : f.rule == PeerRule::kIgnore ? "ignored: " + std::string(f.note)
                                                             : std::string(f.becomes);
      if (f.arity == PeerArity::kNone) {
        cmd->add_flag(names, help);
      } else {
        cmd->add_option(names, help);
      }
    }
  }
  app.add_subcommand("bench",
                     "vLLM's `vllm bench serve` command line: tokenbench bench serve "
                     "... is tokenbench run ...")
      ->allow_extras();
  app.add_subcommand("perf",
                     "EvalScope's `evalscope perf` command line: tokenbench perf ... is "
                     "tokenbench run ...")
      ->allow_extras();
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
  for (const auto& f : peer.flags) {
    const std::string here = f.rule == PeerRule::kRefuse   ? "refused: " + std::string(f.note)
                             : f.rule == PeerRule::kIgnore ? "ignored: " + std::string(f.note)
                                                           : std::string(f.becomes);
    out += fmt::format("  {:<46} {}\n", f.names, here);
  }
  return out;
}

}  // namespace tokenbench::cli
