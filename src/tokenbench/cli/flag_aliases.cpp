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
    {"--sonnet-input-len", "--input-len", "vLLM"},
    {"--sonnet-output-len", "--output-len", "vLLM"},
    {"--result-dir", "--output-dir", "vLLM"},
    {"--metric-percentiles", "--percentiles", "vLLM"},
    {"--save-result", "", "vLLM", false},
    {"--percentile-metrics", "", "vLLM"},
    {"--ignore-eos", "", "vLLM", false},
    {"--disable-tqdm", "--quiet", "vLLM", false},
    // EvalScope (evalscope perf)
    {"--tokenizer-path", "--tokenizer", "EvalScope"},
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

// Aliases handled below, with their own rules. Each takes one value except --parallel and
// --number, which take every value up to the next flag (EvalScope's lists).
constexpr const char* kSpecial[] = {
    "--host",
    "--port",
    "--backend",
    "--dataset-name",
    "--url",
    "--parallel",
    "--number",
    "--min-prompt-length",
    "--max-prompt-length",
    "--min-tokens",
    "--max-tokens",
    "--synthetic-input-tokens-stddev",
    "--output-tokens-stddev",
};

bool is_flag(const std::string& a) { return a.size() > 1 && a[0] == '-' && a != "-"; }

bool special(const std::string& name) {
  return std::find_if(std::begin(kSpecial), std::end(kSpecial),
                      [&](const char* s) { return name == s; }) != std::end(kSpecial);
}

// The arguments split into flags with their values, in order.
struct Arg {
  std::string name;                 // "--flag", or "" for a positional
  std::vector<std::string> values;  // the values that follow (or the =value)
  bool inline_value = false;
};

bool has_flag(const std::vector<std::string>& args, const std::string& name) {
  return std::any_of(args.begin(), args.end(), [&](const std::string& a) {
    return a == name || a.rfind(name + "=", 0) == 0;
  });
}

std::string only_value(const Arg& a) {
  if (a.values.size() != 1 || a.values.front().empty()) {
    throw UsageError(a.name + " needs one value");
  }
  return a.values.front();
}

// The value given to the first of `names` found in `args` ("--flag V" or "--flag=V").
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

double number_of(const Arg& a) {
  const std::string v = only_value(a);
  try {
    std::size_t used = 0;
    const double d = std::stod(v, &used);
    if (used == v.size()) return d;
  } catch (const std::exception&) {
  }
  throw UsageError(a.name + " '" + v + "' is not a number");
}

}  // namespace

std::vector<std::string> rewrite_aliases(const std::vector<std::string>& args,
                                         std::vector<std::string>& notes) {
  // Group the arguments: a flag takes the next argument as its value when that is not a flag,
  // and EvalScope's list flags take every such argument.
  std::vector<Arg> parsed;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (!is_flag(a)) {
      parsed.push_back({"", {a}});
      continue;
    }
    Arg arg;
    const auto eq = a.find('=');
    arg.name = eq == std::string::npos ? a : a.substr(0, eq);
    if (eq != std::string::npos) {
      arg.values.push_back(a.substr(eq + 1));
      arg.inline_value = true;
    }
    const bool list = arg.name == "--parallel" || arg.name == "--number";
    const Rename* r = nullptr;
    for (const auto& x : kRenames) {
      if (arg.name == x.alias) r = &x;
    }
    const bool known = r != nullptr || special(arg.name);
    if (known && !arg.inline_value && !(r && !r->takes_value)) {
      while (i + 1 < args.size() && !is_flag(args[i + 1])) {
        arg.values.push_back(args[++i]);
        if (!list) break;
      }
    }
    if (!known) {
      // Not an alias: kept verbatim, its value (if any) as the positional that follows.
      arg.values.clear();
      arg.name = a;
      arg.inline_value = true;  // marks "verbatim"
    }
    parsed.push_back(std::move(arg));
  }

  std::vector<std::string> out;
  std::map<std::string, std::string> pending;  // evalscope min/max pairs and host/port
  const auto emit = [&out](const std::string& flag, const std::string& value) {
    out.push_back(flag);
    out.push_back(value);
  };
  const auto note = [&notes](const std::string& alias, const std::string& tool,
                             const std::string& became) {
    notes.push_back(fmt::format("{} ({}) is {}", alias, tool, became));
  };

  for (const Arg& a : parsed) {
    if (a.name.empty()) {
      out.push_back(a.values.front());
      continue;
    }
    const Rename* r = nullptr;
    for (const auto& x : kRenames) {
      if (a.name == x.alias) r = &x;
    }
    if (r) {
      if (*r->flag == '\0') {
        note(a.name, r->tool, "what tokenbench always does: ignored");
        continue;
      }
      if (std::string(r->flag) == a.name) {  // same name, same meaning
        out.push_back(a.name);
        out.insert(out.end(), a.values.begin(), a.values.end());
        continue;
      }
      out.push_back(r->flag);
      if (r->takes_value) out.push_back(only_value(a));
      note(a.name, r->tool, std::string(r->flag));
      continue;
    }
    if (!special(a.name)) {
      out.push_back(a.name);
      continue;
    }
    const std::string& n = a.name;
    if (n == "--host" || n == "--port" || n.find("-length") != std::string::npos ||
        n == "--min-tokens" || n == "--max-tokens") {
      pending[n] = only_value(a);
    } else if (n == "--backend") {
      const std::string b = only_value(a);
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
      if (!has_flag(args, "--endpoint")) emit("--endpoint", endpoint);
      note("--backend " + b, "vLLM", "--endpoint " + endpoint);
    } else if (n == "--dataset-name") {
      const std::string d = only_value(a);
      if (d == "random" || d == "sharegpt" || d == "sonnet" || d == "burstgpt") {
        emit("--dataset", d);
      } else if (d == "custom") {
        emit("--dataset", "jsonl");
      } else {
        throw UsageError(
            "--dataset-name " + d +
            " (vLLM) is not built in: use --dataset random, sharegpt, sonnet or burstgpt "
            "(with --dataset-path), or another of docs/WORKLOADS.md");
      }
      note("--dataset-name " + d, "vLLM", "--dataset " + out.back());
    } else if (n == "--url") {
      std::string url = only_value(a);
      if (url.find("://") == std::string::npos) url = "http://" + url;  // GenAI-Perf: host:port
      emit("--base-url", url);
      note("--url", "EvalScope/GenAI-Perf", "--base-url " + url);
    } else if (n == "--parallel") {
      if (a.values.empty()) throw UsageError("--parallel needs a value");
      std::string list;
      for (const auto& v : a.values) list += (list.empty() ? "" : ",") + v;
      emit("--max-concurrency", list);
      note("--parallel", "EvalScope", "--max-concurrency " + list);
    } else if (n == "--number") {
      if (a.values.size() != 1) {
        throw UsageError(
            "--number with several values (EvalScope) pairs one count with each --parallel; "
            "tokenbench's --num-prompts applies to every level: give one value");
      }
      emit("--num-prompts", a.values.front());
      note("--number", "EvalScope", "--num-prompts " + a.values.front());
    } else if (n == "--synthetic-input-tokens-stddev" || n == "--output-tokens-stddev") {
      // GenAI-Perf's normal lengths: MEAN from its mean flag (or ours); 550 is its input default.
      if (number_of(a) != 0) {
        const bool input = n == "--synthetic-input-tokens-stddev";
        auto mean = input ? value_in(args, {"--synthetic-input-tokens-mean", "--input-len"})
                          : value_in(args, {"--output-tokens-mean", "--output-len"});
        if (!mean && input) mean = "550";
        if (!mean) {
          throw UsageError(n +
                           " (GenAI-Perf) needs --output-tokens-mean: the mean of the normal "
                           "output lengths");
        }
        const std::string flag = input ? "--input-dist" : "--output-dist";
        const std::string spec = "normal:" + *mean + "," + only_value(a);
        emit(flag, spec);
        note(n, "GenAI-Perf", flag + " " + spec);
      }
    }
  }

  // --host/--port: one base URL, each defaulting as vLLM's does.
  if (pending.contains("--host") || pending.contains("--port")) {
    if (has_flag(args, "--base-url")) {
      throw UsageError("give either --base-url or --host/--port (vLLM), not both");
    }
    const std::string host = pending.contains("--host") ? pending["--host"] : "127.0.0.1";
    const std::string port = pending.contains("--port") ? pending["--port"] : "8000";
    const std::string url = "http://" + host + ":" + port;
    emit("--base-url", url);
    note("--host/--port", "vLLM", "--base-url " + url);
  }
  // EvalScope's prompt and output length bounds: one fixed length, or (prompts) a uniform range.
  const auto bounds = [&](const char* min_flag, const char* max_flag, const char* ours) {
    const bool has_min = pending.contains(min_flag);
    const bool has_max = pending.contains(max_flag);
    if (!has_min && !has_max) return std::optional<std::string>();
    if (has_min && has_max && pending[min_flag] == pending[max_flag]) {
      return std::optional<std::string>(pending[max_flag]);
    }
    throw UsageError(
        fmt::format("{} and {} (EvalScope) must be equal here: use {} N, or draw lengths with "
                    "--input-dist / --output-dist uniform:LO,HI",
                    min_flag, max_flag, ours));
  };
  if (pending.contains("--min-prompt-length") && pending.contains("--max-prompt-length") &&
      pending["--min-prompt-length"] != pending["--max-prompt-length"]) {
    // EvalScope draws prompt lengths uniformly between its bounds.
    const std::string spec =
        "uniform:" + pending["--min-prompt-length"] + "," + pending["--max-prompt-length"];
    emit("--input-dist", spec);
    note("--min/--max-prompt-length", "EvalScope", "--input-dist " + spec);
  } else if (const auto v = bounds("--min-prompt-length", "--max-prompt-length", "--input-len")) {
    emit("--input-len", *v);
    note("--min/--max-prompt-length", "EvalScope", "--input-len " + *v);
  }
  if (pending.contains("--max-tokens") && !pending.contains("--min-tokens")) {
    // EvalScope lets the model stop early below max_tokens: tokenbench's --no-ignore-eos.
    emit("--output-len", pending["--max-tokens"]);
    out.push_back("--no-ignore-eos");
    note("--max-tokens", "EvalScope",
         "--output-len " + pending["--max-tokens"] + " --no-ignore-eos (the model may stop early)");
  } else if (const auto v = bounds("--min-tokens", "--max-tokens", "--output-len")) {
    emit("--output-len", *v);
    note("--min/--max-tokens", "EvalScope", "--output-len " + *v);
  }
  return out;
}

}  // namespace tokenbench::cli
