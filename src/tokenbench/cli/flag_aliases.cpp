#include "tokenbench/cli/flag_aliases.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <initializer_list>
#include <map>
#include <optional>

#include "tokenbench/cli/flag_alias_rewriter.h"
#include "tokenbench/cli/run_flags.h"

namespace tokenbench::cli {
namespace aliases {
namespace {

// GenAI-Perf's flags that `run` takes too (its whole command line is `tokenbench profile`'s,
// peer_aiperf.cpp). vLLM's and EvalScope's are their tables' rows (alias_row, peer_verbs.h).
constexpr PeerFlag kGenaiPerfOnRun[] = {
    {"--concurrency", PeerArity::kOne, PeerRule::kRename, "--max-concurrency", ""},
    {"--request-count", PeerArity::kOne, PeerRule::kRename, "--num-prompts", ""},
    {"--warmup-request-count", PeerArity::kOne, PeerRule::kRename, "--warmup", ""},
    {"--synthetic-input-tokens-mean", PeerArity::kOne, PeerRule::kRename, "--input-len", ""},
    {"--output-tokens-mean", PeerArity::kOne, PeerRule::kRename, "--output-len", ""},
    {"--random-seed", PeerArity::kOne, PeerRule::kRename, "--seed", ""},
    {"--artifact-dir", PeerArity::kOne, PeerRule::kRename, "--output-dir", ""},
    {"--streaming", PeerArity::kNone, PeerRule::kIgnore, "", "tokenbench streams by default"},
    {"--synthetic-input-tokens-stddev", PeerArity::kOne, PeerRule::kRule, "", ""},
    {"--output-tokens-stddev", PeerArity::kOne, PeerRule::kRule, "", ""},
};

// A flag run reads as another tool's: a rename, an ignored flag or one with a rule of its own.
// A row that is tokenbench's own flag (a kRename to its own name) or refused is not one: it
// passes to run's parser, which takes it or says why not (unknown_flag.h).
struct Alias {
  std::string canonical;  // the row's first spelling
  std::string_view tool;
  const PeerFlag* row = nullptr;
};

std::optional<Alias> alias_of(const std::string& name) {
  if (const auto a = alias_row(name)) {
    const PeerFlag& f = *a->row;
    if (f.rule == PeerRule::kRefuse || (f.rule == PeerRule::kRename && f.becomes == a->canonical)) {
      return std::nullopt;
    }
    return Alias{std::string(a->canonical), a->tool, a->row};
  }
  for (const auto& f : kGenaiPerfOnRun) {
    if (f.names == name) return Alias{name, "GenAI-Perf", &f};
  }
  return std::nullopt;
}

// Flags only EvalScope's command lines carry: beside them, `--api openai` is EvalScope's (an
// OpenAI-compatible server, the URL's endpoint deciding), not tokenbench's legacy completions.
constexpr const char* kEvalScopeOnly[] = {
    "--url",
    "--parallel",
    "--number",
    "-n",
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

}  // namespace

std::vector<Arg> group(const std::vector<std::string>& args) {
  std::vector<Arg> parsed;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (!is_flag(a)) {
      parsed.emplace_back().values.push_back(a);
      continue;
    }
    const auto eq = a.find('=');
    const std::string name = eq == std::string::npos ? a : a.substr(0, eq);
    const auto alias = alias_of(name);
    if (!alias) {
      // Not an alias: kept verbatim, its value (if any) as the value argument that follows.
      parsed.emplace_back().name = a;
      continue;
    }
    Arg arg{alias->canonical, {}, name, alias->tool, alias->row};
    if (eq != std::string::npos) {
      arg.values.push_back(a.substr(eq + 1));
    } else if (alias->row->arity != PeerArity::kNone) {
      while (i + 1 < args.size() && !is_flag(args[i + 1])) {
        arg.values.push_back(args[++i]);
        if (alias->row->arity != PeerArity::kMany) break;
      }
    }
    parsed.push_back(std::move(arg));
  }
  return parsed;
}

std::string only_value(const Arg& a) {
  if (a.values.size() != 1 || a.values.front().empty()) {
    throw UsageError(a.given + " needs one value");
  }
  return a.values.front();
}

std::string endpoint_named_by(const std::string& url) {
  const std::string found = split_api_path(url).second;
  return found == "/v1" ? "" : found;
}

Rewritten Rewriter::run() {
  for (const Arg& a : group(args_)) {
    if (a.name.empty()) {
      out_.args.push_back(a.values.front());
    } else if (a.row == nullptr) {
      out_.args.push_back(a.name);
    } else if (a.row->rule == PeerRule::kRule) {
      rule(a);
    } else {
      rename(a);
    }
  }
  host_port();
  evalscope_finish();
  return std::move(out_);
}

void Rewriter::emit(const std::string& flag, const std::string& value) {
  out_.args.push_back(flag);
  out_.args.push_back(value);
}

void Rewriter::note(const std::string& alias, std::string_view tool, const std::string& became) {
  out_.notes.push_back(fmt::format("{} ({}) is {}", alias, tool, became));
}

bool Rewriter::evalscope() const {
  return std::any_of(std::begin(kEvalScopeOnly), std::end(kEvalScopeOnly),
                     [this](const char* f) { return has_flag(args_, f); });
}

bool Rewriter::vllm_line() const {
  const auto peer = value_in(args_, {"--peer"});
  return peer && *peer == "vllm";
}

// A rename passes its value to the row's flag; an ignored flag is said and dropped.
void Rewriter::rename(const Arg& a) {
  const PeerFlag& r = *a.row;
  if (r.rule == PeerRule::kIgnore) {
    note(a.given, a.tool, "ignored: " + std::string(r.note));
    return;
  }
  out_.args.emplace_back(r.becomes);
  if (r.arity != PeerArity::kNone) {
    if (r.arity == PeerArity::kOne) {
      out_.args.push_back(only_value(a));
    } else {
      out_.args.insert(out_.args.end(), a.values.begin(), a.values.end());
    }
  }
  note(a.given, a.tool,
       std::string(r.becomes) + (a.name == "--random-range-ratio"
                                     ? " (vLLM's [LEN x (1-R), LEN x (1+R)]; SGLang's "
                                       "bench_serving draws [LEN x R, LEN]: add --peer sglang)"
                                     : ""));
}

void Rewriter::rule(const Arg& a) {
  const std::string& n = a.name;
  if (evalscope_rule(a)) return;
  if (n == "--host" || n == "--port") {
    pending_[n] = only_value(a);
  } else if (n == "--backend") {
    backend(only_value(a));
  } else if (n == "--dataset-name") {
    dataset_name(only_value(a));
  } else if (n == "--header") {
    header(a);
  } else if (n == "--label" || n == "--metadata") {
    label(a);
  } else if (n == "--save-result") {  // vLLM writes its result JSON: so does --export vllm
    emit("--export", "vllm");
    note(a.given, a.tool, "--export vllm (vLLM's result JSON, beside tokenbench's files)");
  } else if (n == "--no-stream") {
    if (!vllm_line()) {
      out_.args.push_back(n);  // tokenbench's own: non-streamed requests
      return;
    }
    note(a.given, a.tool,
         "ignored: vLLM's loads a Hugging Face dataset without streaming (requests stream)");
  } else {
    stddev(a);
  }
}

void Rewriter::backend(const std::string& b) {
  std::string endpoint;
  if (b == "openai-chat") {
    endpoint = "/v1/chat/completions";
  } else if (b == "openai-embeddings") {
    endpoint = "/v1/embeddings";
  } else if (b == "vllm" || b == "openai" || b == "sglang" || b == "lmdeploy" || b == "scalellm") {
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

void Rewriter::dataset_name(const std::string& d) {
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

// vLLM's --header KEY=VALUE ... and EvalScope's --headers KEY=VALUE ...: tokenbench's
// 'Name: value', one --header each. tokenbench's own form passes unchanged.
void Rewriter::header(const Arg& a) {
  if (a.values.empty()) throw UsageError(a.given + " needs KEY=VALUE");
  for (const auto& v : a.values) {
    const auto eq = v.find('=');
    const auto colon = v.find(':');
    if (colon != std::string::npos && (eq == std::string::npos || colon < eq)) {
      emit("--header", v);
      continue;
    }
    if (eq == std::string::npos || eq == 0) {
      throw UsageError(fmt::format("{} '{}' ({}) needs KEY=VALUE, or tokenbench's 'Name: value'",
                                   a.given, v, a.tool));
    }
    emit("--header", v.substr(0, eq) + ": " + v.substr(eq + 1));
    note(a.given + " " + v.substr(0, eq) + "=...", a.tool,
         "--header '" + v.substr(0, eq) + ": ...'");
  }
}

// vLLM's --label NAME (its results' name, on vLLM's line) and --metadata KEY=VALUE ...:
// tokenbench's labels.
void Rewriter::label(const Arg& a) {
  if (a.values.empty()) throw UsageError(a.given + " needs a value");
  for (const auto& v : a.values) {
    if (a.name == "--label" && (v.find('=') != std::string::npos || !vllm_line())) {
      emit("--label", v);  // tokenbench's own KEY=VALUE (which says what is wrong with it)
      continue;
    }
    if (a.name == "--metadata" && v.find('=') == std::string::npos) {
      throw UsageError("--metadata '" + v + "' (vLLM) needs KEY=VALUE");
    }
    const std::string kv = a.name == "--label" ? "label=" + v : v;
    emit("--label", kv);
    note(a.given + " " + v, a.tool, "--label " + kv + " (kept in environment.json)");
  }
}

void Rewriter::stddev(const Arg& a) {
  // GenAI-Perf's normal lengths: MEAN from its mean flag (or ours); 550 is its input default.
  const std::string& n = a.name;
  const std::string sd = only_value(a);
  const auto d = as_number(sd);
  if (!d) throw UsageError(n + " '" + sd + "' is not a number");
  if (*d == 0) return;
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
  const std::string spec = "normal:" + *mean + "," + sd;
  emit(flag, spec);
  note(n, "GenAI-Perf", flag + " " + spec);
}

// --host/--port: one base URL, each defaulting as vLLM's does. Beside EvalScope's --url, its
// --port is its local server's, and ignored.
void Rewriter::host_port() {
  if (!pending_.contains("--host") && !pending_.contains("--port")) return;
  if (!pending_.contains("--host") && has_flag(args_, "--url")) {
    note("--port", "EvalScope", "ignored beside --url: the port of its local server");
    return;
  }
  if (has_flag(args_, "--base-url") || has_flag(args_, "--url")) {
    throw UsageError("give either --base-url or --host/--port (vLLM), not both");
  }
  const std::string host = pending_.contains("--host") ? pending_["--host"] : "127.0.0.1";
  const std::string port = pending_.contains("--port") ? pending_["--port"] : "8000";
  const std::string u = "http://" + host + ":" + port;
  emit("--base-url", u);
  note("--host/--port", "vLLM", "--base-url " + u);
}

}  // namespace aliases

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

Rewritten rewrite_aliases(const std::vector<std::string>& args) {
  return aliases::Rewriter(args).run();
}

std::vector<std::string> peer_line_defaults(const std::string& tool,
                                            const std::vector<std::string>& args,
                                            std::vector<std::string>& notes) {
  const auto given = [&args](std::initializer_list<const char*> flags) {
    return std::any_of(flags.begin(), flags.end(),
                       [&args](const char* f) { return has_flag(args, f); });
  };
  std::vector<std::string> add;
  const auto with = [&](std::initializer_list<const char*> flags, const std::string& why) {
    add.insert(add.end(), flags.begin(), flags.end());
    notes.push_back(fmt::format("{}: {}", fmt::join(flags, " "), why));
  };
  const auto backend = value_in(args, {"--backend"});
  const auto api = value_in(args, {"--api"});
  const auto url = value_in(args, {"--url", "--base-url"});
  const bool scores = (backend && backend->find("embeddings") != std::string::npos) ||
                      (api && (api->find("embedding") != std::string::npos ||
                               api->find("rerank") != std::string::npos)) ||
                      (url && (url->find("/embeddings") != std::string::npos ||
                               url->find("/rerank") != std::string::npos));
  const bool lengths_given = given({"--output-len", "--output-dist", "--no-ignore-eos"});
  if (tool == "vLLM") {
    if (!given({"--peer"})) with({"--peer", "vllm"}, "the line is read as vLLM's");
    if (!given({"--backend", "--endpoint", "--api"})) {
      with({"--backend", "vllm"}, "vLLM's default backend (its completions API)");
    }
    if (!scores && !given({"--ignore-eos"}) && !given({"--no-ignore-eos"})) {
      with({"--no-ignore-eos"}, "vLLM's default without --ignore-eos (the model may stop early)");
    }
    if (given({"--lora-modules"}) && !given({"--lora-assignment"})) {
      with({"--lora-assignment", "random"}, "vLLM's default assignment of --lora-modules");
    }
  } else {
    if (!given({"--peer"})) with({"--peer", "evalscope"}, "the line is read as EvalScope's");
    if (!given({"--parallel", "--open-loop", "--max-concurrency"})) {
      with({"--max-concurrency", "1"}, "EvalScope's default --parallel 1");
    }
    if (!scores && !given({"--max-tokens", "--min-tokens"}) && !lengths_given) {
      with({"--output-len", "2048", "--no-ignore-eos"},
           "EvalScope's default --max-tokens 2048 (the model may stop early)");
    }
    if (!scores && !given({"--temperature"})) {
      with({"--temperature", "0"}, "EvalScope's default --temperature 0.0");
    }
    if (!given({"--dataset", "--prompt", "--dataset-path"})) {
      with({"--dataset", "random"},
           "EvalScope's default --dataset openqa is downloaded from ModelScope, which tokenbench "
           "does not do: random prompts instead (give --dataset and --dataset-path for a file)");
    }
    with({"--export", "evalscope"},
         "EvalScope's benchmark_summary.json and benchmark_percentile.json, beside tokenbench's "
         "files");
  }
  return add;
}

std::vector<std::string> alias_names() {
  std::vector<std::string> names;
  for (const auto rows :
       {vllm_rows(), evalscope_rows(), std::span<const PeerFlag>(aliases::kGenaiPerfOnRun)}) {
    for (const auto& f : rows) {
      for (const auto spelling : peer_spellings(f.names)) {
        std::string name(spelling);
        if (aliases::alias_of(name)) names.push_back(std::move(name));
      }
    }
  }
  return names;
}

}  // namespace tokenbench::cli
