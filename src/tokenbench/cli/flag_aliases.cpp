#include "tokenbench/cli/flag_aliases.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <initializer_list>
#include <map>
#include <optional>

#include "tokenbench/cli/run_flags.h"

namespace tokenbench::cli {
namespace {

// An alias that means exactly one of tokenbench's flags: its value (if any) passes unchanged.
struct Rename {
  const char* alias;
  const char* flag;  // the canonical flag; "" for a no-op (what tokenbench always does)
  const char* tool;
  bool takes_value = true;
};

constexpr Rename kRenames[] = {
    // vLLM (vllm bench serve / benchmarks/benchmark_serving.py)
    {"--random-input-len", "--input-len", "vLLM"},
    {"--random-output-len", "--output-len", "vLLM"},
    {"--random-range-ratio", "--range-ratio", "vLLM"},
    {"--sharegpt-output-len", "--output-len", "vLLM"},
    {"--sonnet-input-len", "--input-len", "vLLM"},
    {"--sonnet-output-len", "--output-len", "vLLM"},
    {"--result-dir", "--output-dir", "vLLM"},
    {"--metric-percentiles", "--percentiles", "vLLM"},
    {"--num-warmups", "--warmup", "vLLM"},
    {"--save-result", "", "vLLM", false},
    {"--percentile-metrics", "", "vLLM"},
    {"--ignore-eos", "", "vLLM", false},
    {"--disable-tqdm", "--quiet", "vLLM", false},
    {"--trust-remote-code", "", "vLLM", false},  // tokenbench runs no model code
    // EvalScope (evalscope perf)
    {"--tokenizer-path", "--tokenizer", "EvalScope"},
    {"--outputs-dir", "--output-dir", "EvalScope"},
    {"--extra-args", "--extra-body", "EvalScope"},
    {"--stream", "", "EvalScope", false},
    {"--log-every-n-query", "", "EvalScope"},  // its console's logging; the measure is the same
    {"--debug", "", "EvalScope", false},       // requests.jsonl keeps every request's stamps
    {"--open-loop", "", "EvalScope", false},   // --request-rate without --max-concurrency
    {"--prefix-length", "--random-prefix-len", "EvalScope"},
    {"--read-timeout", "--stall-timeout", "EvalScope"},
    {"--total-timeout", "--timeout", "EvalScope"},
    {"--warmup-num", "--warmup", "EvalScope"},
    {"--image-num", "--image-count", "EvalScope"},
    {"--no-test-connection", "--no-preflight", "EvalScope", false},
    // GenAI-Perf / AIPerf
    {"--concurrency", "--max-concurrency", "GenAI-Perf"},
    {"--request-count", "--num-prompts", "GenAI-Perf"},
    {"--warmup-request-count", "--warmup", "GenAI-Perf"},
    {"--synthetic-input-tokens-mean", "--input-len", "GenAI-Perf"},
    {"--output-tokens-mean", "--output-len", "GenAI-Perf"},
    {"--random-seed", "--seed", "GenAI-Perf"},
    {"--artifact-dir", "--output-dir", "GenAI-Perf"},
    {"--streaming", "", "GenAI-Perf", false},
};

// Aliases with rules of their own (Rewriter::special). Each takes one value, but EvalScope's
// lists (--parallel, --number, --rate) take every value up to the next flag.
struct Special {
  const char* name;
  bool list = false;
};

constexpr Special kSpecial[] = {
    {"--host"},
    {"--port"},
    {"--backend"},
    {"--dataset-name"},
    {"--dataset"},  // EvalScope's names, beside its flags; tokenbench's own pass unchanged
    {"--url"},
    {"--api"},
    {"--api-key"},
    {"--parallel", true},
    {"--number", true},
    {"--rate", true},
    {"--min-prompt-length"},
    {"--max-prompt-length"},
    {"--min-tokens"},
    {"--max-tokens"},
    {"--synthetic-input-tokens-stddev"},
    {"--output-tokens-stddev"},
};

// Flags only EvalScope's command lines carry: beside them, `--api openai` is EvalScope's (an
// OpenAI-compatible server, the URL's endpoint deciding), not tokenbench's legacy completions.
constexpr const char* kEvalScopeOnly[] = {
    "--url",
    "--parallel",
    "--number",
    "--min-prompt-length",
    "--max-prompt-length",
    "--max-tokens",
    "--min-tokens",
    "--tokenizer-path",
    "--outputs-dir",
    "--extra-args",
    "--rate",
    "--api-key",
    "--stream",
};

// EvalScope's default --max-prompt-length: the upper bound of its random prompts' lengths.
constexpr const char* kEvalScopeMaxPrompt = "131072";

const Rename* rename_of(const std::string& name) {
  for (const auto& r : kRenames) {
    if (name == r.alias) return &r;
  }
  return nullptr;
}

const Special* special_of(const std::string& name) {
  for (const auto& s : kSpecial) {
    if (name == s.name) return &s;
  }
  return nullptr;
}

// The arguments split into flags with their values, in order.
struct Arg {
  std::string name;                 // "--flag", or "" for a positional
  std::vector<std::string> values;  // the values that follow (or the =value)
};

std::vector<Arg> group(const std::vector<std::string>& args) {
  std::vector<Arg> parsed;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (!is_flag(a)) {
      parsed.push_back({"", {a}});
      continue;
    }
    const auto eq = a.find('=');
    const std::string name = eq == std::string::npos ? a : a.substr(0, eq);
    const Rename* r = rename_of(name);
    const Special* s = special_of(name);
    if (r == nullptr && s == nullptr) {
      // Not an alias: kept verbatim, its value (if any) as the positional that follows.
      parsed.push_back({a, {}});
      continue;
    }
    Arg arg{name, {}};
    if (eq != std::string::npos) {
      arg.values.push_back(a.substr(eq + 1));
    } else if (s != nullptr || r->takes_value) {
      while (i + 1 < args.size() && !is_flag(args[i + 1])) {
        arg.values.push_back(args[++i]);
        if (s == nullptr || !s->list) break;
      }
    }
    parsed.push_back(std::move(arg));
  }
  return parsed;
}

std::string only_value(const Arg& a) {
  if (a.values.size() != 1 || a.values.front().empty()) {
    throw UsageError(a.name + " needs one value");
  }
  return a.values.front();
}

double number_of(const Arg& a) {
  const std::string v = only_value(a);
  if (const auto d = as_number(v)) return *d;
  throw UsageError(a.name + " '" + v + "' is not a number");
}

// The whole endpoint path a URL names ("/v1/chat/completions"), or "" (none, or only "/v1").
std::string endpoint_named_by(const std::string& url) {
  const std::string found = split_api_path(url).second;
  return found == "/v1" ? "" : found;
}

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

class Rewriter {
 public:
  explicit Rewriter(const std::vector<std::string>& args) : args_(args) {}

  Rewritten run() {
    for (const Arg& a : group(args_)) {
      if (a.name.empty()) {
        out_.args.push_back(a.values.front());
      } else if (const Rename* r = rename_of(a.name)) {
        rename(a, *r);
      } else if (special_of(a.name)) {
        special(a);
      } else {
        out_.args.push_back(a.name);
      }
    }
    host_port();
    prompt_bounds();
    token_bounds();
    // EvalScope's --prompt is "higher priority than the dataset": a fixed prompt.
    if (evalscope() && has_flag(args_, "--prompt") && !has_flag(args_, "--dataset")) {
      emit("--dataset", "fixed");
      note("--prompt", "EvalScope", "--prompt with --dataset fixed (every request's prompt)");
    }
    return std::move(out_);
  }

 private:
  void emit(const std::string& flag, const std::string& value) {
    out_.args.push_back(flag);
    out_.args.push_back(value);
  }

  void note(const std::string& alias, const std::string& tool, const std::string& became) {
    out_.notes.push_back(fmt::format("{} ({}) is {}", alias, tool, became));
  }

  bool evalscope() const {
    return std::any_of(std::begin(kEvalScopeOnly), std::end(kEvalScopeOnly),
                       [this](const char* f) { return has_flag(args_, f); });
  }

  void rename(const Arg& a, const Rename& r) {
    if (a.name == "--open-loop") {
      if (has_flag(args_, "--parallel")) {
        throw UsageError(
            "--open-loop (EvalScope) ignores --parallel: leave --parallel out (--request-rate "
            "without --max-concurrency is an open loop here)");
      }
      note(a.name, r.tool,
           "what --request-rate without --max-concurrency is: arrivals never wait for a slot");
      return;
    }
    if (a.name == "--save-result") {  // vLLM writes its result JSON: so does --export vllm
      emit("--export", "vllm");
      note(a.name, r.tool, "--export vllm (vLLM's result JSON, beside tokenbench's files)");
      return;
    }
    if (*r.flag == '\0') {
      note(a.name, r.tool, "what tokenbench always does: ignored");
      return;
    }
    out_.args.push_back(r.flag);
    if (r.takes_value) out_.args.push_back(only_value(a));
    note(a.name, r.tool,
         std::string(r.flag) + (a.name == "--random-range-ratio"
                                    ? " (vLLM's [LEN x (1-R), LEN x (1+R)]; SGLang's "
                                      "bench_serving draws [LEN x R, LEN]: add --peer sglang)"
                                    : ""));
  }

  void special(const Arg& a) {
    const std::string& n = a.name;
    if (n == "--host" || n == "--port" || n.find("-length") != std::string::npos ||
        n == "--min-tokens" || n == "--max-tokens") {
      pending_[n] = only_value(a);
    } else if (n == "--backend") {
      backend(only_value(a));
    } else if (n == "--dataset-name") {
      dataset_name(only_value(a));
    } else if (n == "--dataset") {
      evalscope_dataset(only_value(a));
    } else if (n == "--url") {
      url(only_value(a));
    } else if (n == "--api") {
      api(only_value(a));
    } else if (n == "--api-key") {
      api_key(a);
    } else if (n == "--parallel") {
      if (a.values.empty()) throw UsageError("--parallel needs a value");
      std::string list;
      for (const auto& v : a.values) list += (list.empty() ? "" : ",") + v;
      emit("--max-concurrency", list);
      note("--parallel", "EvalScope", "--max-concurrency " + list);
    } else if (n == "--number") {
      if (a.values.empty()) throw UsageError("--number needs a value");
      if (a.values.size() == 1) {
        emit("--num-prompts", a.values.front());
        note("--number", "EvalScope", "--num-prompts " + a.values.front());
        return;
      }
      // A count per level of --parallel (or of --rate): each level's own, as many as its levels.
      std::size_t levels = 0;
      for (const Arg& g : group(args_)) {
        if (g.name == "--parallel" || g.name == "--rate")
          levels = std::max(levels, g.values.size());
      }
      if (levels != a.values.size()) {
        throw UsageError(
            "--number with several values (EvalScope) pairs one count with each --parallel (or "
            "--rate) level: give as many counts as levels, or one for every level");
      }
      std::string list;
      std::string most = a.values.front();
      for (const auto& v : a.values) {
        list += (list.empty() ? "" : ",") + v;
        if (as_number(v) && as_number(most) && *as_number(v) > *as_number(most)) most = v;
      }
      emit("--num-prompts", most);
      emit("--level-prompts", list);
      note("--number " + list, "EvalScope",
           "--level-prompts " + list + " (each level's own count, paired in order)");
    } else if (n == "--rate") {
      rate(a);
    } else {
      stddev(a);
    }
  }

  void backend(const std::string& b) {
    std::string endpoint;
    if (b == "openai-chat") {
      endpoint = "/v1/chat/completions";
    } else if (b == "openai-embeddings") {
      endpoint = "/v1/embeddings";
    } else if (b == "vllm" || b == "openai" || b == "sglang" || b == "lmdeploy" ||
               b == "scalellm") {
      endpoint = "/v1/completions";
    } else {
      throw UsageError("--backend " + b +
                       " (vLLM) is not an OpenAI-compatible API tokenbench speaks: use --backend "
                       "openai-chat, openai-embeddings or vllm, or --endpoint PATH");
    }
    // A URL naming a whole endpoint decides it: a backend of another API is refused.
    const auto given = value_in(args_, {"--base-url", "--url"});
    const std::string named = given ? endpoint_named_by(*given) : "";
    if (!named.empty() && named != endpoint) {
      throw UsageError(fmt::format(
          "--backend {} (vLLM) sends to {}, but the URL names {}: leave out --backend (the URL "
          "decides the endpoint) or give the server root as the URL",
          b, endpoint, named));
    }
    if (named.empty() && !has_flag(args_, "--endpoint")) emit("--endpoint", endpoint);
    note("--backend " + b, "vLLM",
         "--endpoint " + endpoint +
             (b == "sglang" ? " (vLLM's meaning; SGLang's bench_serving means its native "
                              "/generate API: add --peer sglang to read the line as SGLang's)"
                            : ""));
  }

  // EvalScope's datasets, beside its flags: its synthetic ones are tokenbench's random, its
  // line_by_line file tokenbench's lines; the ones it downloads are refused. Anything else (and
  // any --dataset without EvalScope's flags) is tokenbench's own name.
  void evalscope_dataset(const std::string& d) {
    const bool synthetic = d == "random_embedding" || d == "random_rerank";
    if (!evalscope() || (!synthetic && d != "line_by_line" && d != "openqa" && d != "longalpaca" &&
                         d != "flickr8k" && d != "speed_benchmark")) {
      emit("--dataset", d);
      return;
    }
    if (d == "openqa" || d == "longalpaca" || d == "flickr8k") {
      throw UsageError("--dataset " + d +
                       " (EvalScope) is downloaded from ModelScope, which tokenbench does not "
                       "do: give its prompts as a file (--dataset lines or jsonl with "
                       "--dataset-path FILE)");
    }
    if (d == "speed_benchmark") {
      throw UsageError(
          "--dataset speed_benchmark (EvalScope) is its fixed set of prompt lengths (1, 6144, "
          "14336, 30720 tokens), not built in here: run --dataset random --input-len N for "
          "each length");
    }
    emit("--dataset", synthetic ? "random" : "lines");
    note("--dataset " + d, "EvalScope", "--dataset " + out_.args.back());
  }

  void dataset_name(const std::string& d) {
    if (d == "random" || d == "sharegpt" || d == "sonnet" || d == "burstgpt") {
      emit("--dataset", d);
    } else if (d == "custom") {
      emit("--dataset", "jsonl");
    } else {
      throw UsageError("--dataset-name " + d +
                       " (vLLM) is not built in: use --dataset random, sharegpt, sonnet or "
                       "burstgpt (with --dataset-path), or another of docs/WORKLOADS.md");
    }
    note("--dataset-name " + d, "vLLM", "--dataset " + out_.args.back());
  }

  void url(std::string u) {
    if (u.find("://") == std::string::npos) u = "http://" + u;  // GenAI-Perf: host:port
    // EvalScope's Responses API moves a chat URL to the responses endpoint.
    const auto api_name = value_in(args_, {"--api"});
    const bool responses = api_name && (*api_name == "openai_responses" ||
                                        *api_name == "openai_response" || *api_name == "responses");
    std::string trimmed = u;
    while (!trimmed.empty() && trimmed.back() == '/') trimmed.pop_back();
    if (responses && ends_with(trimmed, "/chat/completions")) {
      u = trimmed.substr(0, trimmed.size() - std::strlen("/chat/completions")) + "/responses";
    }
    emit("--base-url", u);
    note("--url", "EvalScope/GenAI-Perf", "--base-url " + u);
  }

  void api(const std::string& v) {
    if (v == "openai" && evalscope()) {
      // EvalScope's "openai" is any OpenAI-compatible server: the URL's endpoint decides, and a
      // URL without one gets chat/completions, as EvalScope appends it.
      const auto given = value_in(args_, {"--url", "--base-url"});
      const std::string named = given ? endpoint_named_by(*given) : "";
      note("--api openai", "EvalScope",
           named.empty() ? std::string("chat (/v1/chat/completions), as EvalScope appends it")
                         : "the API the URL names: " + named);
      return;
    }
    static const std::map<std::string, std::string> kEvalScopeApis = {
        {"openai_embedding", "openai-embeddings"},
        {"embedding", "openai-embeddings"},
        {"openai_responses", "openai-responses"},
        {"openai_response", "openai-responses"},
        {"openai_rerank", "rerank"}};
    if (const auto it = kEvalScopeApis.find(v); it != kEvalScopeApis.end()) {
      emit("--api", it->second);
      note("--api " + v, "EvalScope", "--api " + it->second);
      return;
    }
    if (v == "local" || v == "local_vllm" || v == "dashscope" || v == "custom") {
      throw UsageError(
          "--api " + v +
          " (EvalScope) is not supported: tokenbench measures a server over HTTP with the "
          "OpenAI chat, completions, embeddings or responses API, Anthropic's messages, or "
          "rerank and score (--api openai-chat, openai, openai-embeddings, openai-responses, "
          "anthropic-messages, rerank, score)");
    }
    emit("--api", v);  // tokenbench's own
  }

  void api_key(const Arg& a) {
    if (has_flag(args_, "--api-key-env")) {
      throw UsageError("give either --api-key (EvalScope) or --api-key-env VAR, not both");
    }
    out_.api_key = only_value(a);
    emit("--api-key-env", kGivenKeyEnv);
    note("--api-key", "EvalScope",
         std::string("the API key, handed to the run as $") + kGivenKeyEnv +
             " and never written or printed (a command line is visible to other users of this "
             "machine: prefer --api-key-env VAR)");
  }

  void rate(const Arg& a) {
    if (a.values.empty()) throw UsageError("--rate needs a value");
    if (has_flag(args_, "--request-rate")) {
      throw UsageError("give either --rate (EvalScope) or --request-rate, not both");
    }
    std::string list;
    for (const auto& v : a.values) {
      const auto d = as_number(v);
      if (!d || (*d != -1 && !(*d > 0))) {
        throw UsageError(
            fmt::format("--rate {} (EvalScope) must be a number of requests per second > 0, or "
                        "-1 for no limit",
                        v));
      }
      list += (list.empty() ? "" : ",") + (*d == -1 ? std::string("inf") : v);
    }
    emit("--request-rate", list);
    note("--rate", "EvalScope", "--request-rate " + list);
  }

  void stddev(const Arg& a) {
    // GenAI-Perf's normal lengths: MEAN from its mean flag (or ours); 550 is its input default.
    const std::string& n = a.name;
    if (number_of(a) == 0) return;
    const bool input = n == "--synthetic-input-tokens-stddev";
    auto mean = input ? value_in(args_, {"--synthetic-input-tokens-mean", "--input-len"})
                      : value_in(args_, {"--output-tokens-mean", "--output-len"});
    if (!mean && input) mean = "550";
    if (!mean) {
      throw UsageError(n +
                       " (GenAI-Perf) needs --output-tokens-mean: the mean of the normal output "
                       "lengths");
    }
    const std::string flag = input ? "--input-dist" : "--output-dist";
    const std::string spec = "normal:" + *mean + "," + only_value(a);
    emit(flag, spec);
    note(n, "GenAI-Perf", flag + " " + spec);
  }

  // --host/--port: one base URL, each defaulting as vLLM's does.
  void host_port() {
    if (!pending_.contains("--host") && !pending_.contains("--port")) return;
    if (has_flag(args_, "--base-url")) {
      throw UsageError("give either --base-url or --host/--port (vLLM), not both");
    }
    const std::string host = pending_.contains("--host") ? pending_["--host"] : "127.0.0.1";
    const std::string port = pending_.contains("--port") ? pending_["--port"] : "8000";
    const std::string u = "http://" + host + ":" + port;
    emit("--base-url", u);
    note("--host/--port", "vLLM", "--base-url " + u);
  }

  // EvalScope's prompt length bounds: with random prompts, lengths drawn uniformly between them
  // (a bound not given is EvalScope's default: 0 below, 131072 above); with a dataset of its
  // own, they filter its prompts, which tokenbench does not do.
  void prompt_bounds() {
    const bool has_min = pending_.contains("--min-prompt-length");
    const bool has_max = pending_.contains("--max-prompt-length");
    if (!has_min && !has_max) return;
    const auto dataset = value_in(args_, {"--dataset", "--dataset-name"});
    if (dataset && *dataset != "random" && *dataset != "random_embedding" &&
        *dataset != "random_rerank") {
      throw UsageError(
          "--min-prompt-length/--max-prompt-length (EvalScope) keep the prompts of a dataset "
          "whose length lies between them; tokenbench does not filter --dataset " +
          *dataset + ": give a file of the prompts wanted, or --dataset random with lengths");
    }
    // tokenbench's shortest prompt is one token: EvalScope's default 0 becomes 1.
    const std::string lo = has_min ? pending_["--min-prompt-length"] : "1";
    const std::string hi = has_max ? pending_["--max-prompt-length"] : kEvalScopeMaxPrompt;
    const std::string alias = has_min && has_max ? "--min/--max-prompt-length"
                              : has_min          ? "--min-prompt-length"
                                                 : "--max-prompt-length";
    if (has_min && has_max && lo == hi) {
      emit("--input-len", hi);
      note(alias, "EvalScope", "--input-len " + hi);
      return;
    }
    const std::string spec = "uniform:" + lo + "," + hi;
    emit("--input-dist", spec);
    note(alias, "EvalScope",
         "--input-dist " + spec +
             (has_min && has_max ? std::string(" (EvalScope draws lengths between its bounds)")
                                 : std::string(" (EvalScope draws lengths between its bounds; "
                                               "the one not given is its default)")));
  }

  // EvalScope's output bounds: --max-tokens alone lets the model stop early; equal bounds are one
  // fixed length.
  void token_bounds() {
    const bool has_min = pending_.contains("--min-tokens");
    const bool has_max = pending_.contains("--max-tokens");
    if (has_max && !has_min) {
      // EvalScope lets the model stop early below max_tokens: tokenbench's --no-ignore-eos.
      emit("--output-len", pending_["--max-tokens"]);
      out_.args.push_back("--no-ignore-eos");
      note("--max-tokens", "EvalScope",
           "--output-len " + pending_["--max-tokens"] +
               " --no-ignore-eos (the model may stop early)");
    } else if (has_min && !has_max) {
      throw UsageError(
          "--min-tokens alone (EvalScope) asks for at least that many tokens up to EvalScope's "
          "default max_tokens: give --output-len N for N tokens, or --min-tokens N --max-tokens "
          "N");
    } else if (has_min && has_max) {
      if (pending_["--min-tokens"] != pending_["--max-tokens"]) {
        throw UsageError(
            "--min-tokens and --max-tokens (EvalScope) must be equal here: use --output-len N, "
            "or draw lengths with --output-dist uniform:LO,HI");
      }
      emit("--output-len", pending_["--max-tokens"]);
      note("--min/--max-tokens", "EvalScope", "--output-len " + pending_["--max-tokens"]);
    }
  }

  const std::vector<std::string>& args_;
  Rewritten out_;
  std::map<std::string, std::string> pending_;  // host/port and EvalScope's bounds
};

}  // namespace

std::optional<double> as_number(const std::string& text) {
  try {
    std::size_t used = 0;
    const double d = std::stod(text, &used);
    if (used == text.size()) return d;
  } catch (const std::exception&) {
  }
  return std::nullopt;
}

bool has_flag(const std::vector<std::string>& args, const std::string& name) {
  return std::any_of(args.begin(), args.end(), [&](const std::string& a) {
    return a == name || a.rfind(name + "=", 0) == 0;
  });
}

std::optional<std::string> value_in(const std::vector<std::string>& args,
                                    std::initializer_list<const char*> names) {
  for (const char* name : names) {
    for (std::size_t i = 0; i < args.size(); ++i) {
      if (args[i] == name && i + 1 < args.size()) return args[i + 1];
      if (args[i].rfind(std::string(name) + "=", 0) == 0) return args[i].substr(strlen(name) + 1);
    }
  }
  return std::nullopt;
}

// "-1" is EvalScope's --rate value, not a flag.
bool is_flag(const std::string& a) { return a.size() > 1 && a[0] == '-' && !as_number(a); }

Rewritten rewrite_aliases(const std::vector<std::string>& args) { return Rewriter(args).run(); }

std::vector<std::string> alias_names() {
  std::vector<std::string> names;
  for (const auto& r : kRenames) names.emplace_back(r.alias);
  for (const auto& s : kSpecial) names.emplace_back(s.name);
  return names;
}

}  // namespace tokenbench::cli
