// EvalScope's `evalscope perf` flags on run (flag_alias_rewriter.h): the rules of its rows
// (peer_rows_evalscope.cpp) that are more than a rename.

#include <fmt/format.h>

#include <cmath>
#include <cstring>

#include "tokenbench/cli/flag_alias_rewriter.h"
#include "tokenbench/cli/run_flags.h"

namespace tokenbench::cli::aliases {
namespace {

// EvalScope's default --max-prompt-length: the upper bound of its random prompts' lengths.
constexpr const char* kEvalScopeMaxPrompt = "131072";
// EvalScope's default image side (--image-width, --image-height), in pixels.
constexpr const char* kEvalScopeImageSide = "224";

// A list flag's values as one comma-separated value.
std::string joined(const std::vector<std::string>& values) {
  return fmt::format("{}", fmt::join(values, ","));
}

}  // namespace

bool Rewriter::evalscope_rule(const Arg& a) {
  const std::string& n = a.name;
  if (n.find("-prompt-length") != std::string::npos || n == "--min-tokens" ||
      n == "--image-width" || n == "--image-height" || n.find("-turns") != std::string::npos) {
    pending_[n] = only_value(a);
  } else if (n == "--max-tokens") {
    if (a.values.empty() || a.values.size() > 2) {
      throw UsageError("--max-tokens (EvalScope) takes one value, or two: MIN MAX");
    }
    max_tokens_ = a.values;
  } else if (n == "--url") {
    url(only_value(a));
  } else if (n == "--api") {
    api(only_value(a));
  } else if (n == "--api-key") {
    api_key(a);
  } else if (n == "--headers") {
    header(a);
  } else if (n == "--number") {
    number(a);
  } else if (n == "--parallel") {
    if (a.values.empty()) throw UsageError("--parallel needs a value");
    emit("--max-concurrency", joined(a.values));
    note("--parallel", "EvalScope", "--max-concurrency " + joined(a.values));
  } else if (n == "--rate") {
    rate(a);
  } else if (n == "--open-loop") {
    if (has_flag(args_, "--parallel")) {
      throw UsageError(
          "--open-loop (EvalScope) ignores --parallel: leave --parallel out (--request-rate "
          "without --max-concurrency is an open loop here)");
    }
    note(n, "EvalScope",
         "what --request-rate without --max-concurrency is: arrivals never wait for a slot");
  } else if (n == "--warmup-num") {
    warmup_num(only_value(a));
  } else if (n == "--dataset") {
    evalscope_dataset(only_value(a));
  } else if (n == "--data-source") {
    data_source(only_value(a));
  } else if (n == "--prompt") {
    emit("--prompt", only_value(a));
  } else if (n == "--image-format") {
    if (only_value(a) != "RGB") {
      throw UsageError("--image-format " + a.values.front() +
                       " (EvalScope) is not supported: tokenbench's images are RGB");
    }
    note("--image-format RGB", "EvalScope", "ignored: tokenbench's images are RGB");
  } else {
    return false;
  }
  return true;
}

void Rewriter::evalscope_finish() {
  prompt_bounds();
  token_bounds();
  image_size();
  turns();
  // EvalScope's --prompt is "higher priority than the dataset": a fixed prompt.
  if (evalscope() && has_flag(args_, "--prompt") && !has_flag(args_, "--dataset")) {
    emit("--dataset", "fixed");
    note("--prompt", "EvalScope", "--prompt with --dataset fixed (every request's prompt)");
  }
}

// EvalScope's datasets, beside its flags: its synthetic ones are tokenbench's random, its
// line_by_line file tokenbench's lines; the ones it downloads are refused. Anything else (and
// any --dataset without EvalScope's flags) is tokenbench's own name.
void Rewriter::evalscope_dataset(const std::string& d) {
  const bool synthetic = d == "random_embedding" || d == "random_rerank" || d == "random_vl";
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
  if (d == "random_vl" && !has_flag(args_, "--image-num") && !has_flag(args_, "--image-count")) {
    emit("--image-count", "1");  // EvalScope's default --image-num
  }
  note("--dataset " + d, "EvalScope",
       "--dataset " + std::string(synthetic ? "random" : "lines") +
           (d == "random_vl" ? " with images (--image-count, --image-size)" : ""));
}

void Rewriter::data_source(const std::string& s) {
  if (s != "local") {
    throw UsageError("--data-source " + s +
                     " (EvalScope) downloads the dataset, which tokenbench does not do: give a "
                     "local file with --dataset-path FILE");
  }
  note("--data-source local", "EvalScope", "ignored: tokenbench reads local files only");
}

void Rewriter::url(std::string u) {
  if (u.find("://") == std::string::npos) u = "http://" + u;  // GenAI-Perf: host:port
  // EvalScope's Responses API moves a chat URL to the responses endpoint.
  const auto api_name = value_in(args_, {"--api"});
  const bool responses = api_name && (*api_name == "openai_responses" ||
                                      *api_name == "openai_response" || *api_name == "responses");
  std::string trimmed = u;
  while (!trimmed.empty() && trimmed.back() == '/') trimmed.pop_back();
  if (responses && trimmed.ends_with("/chat/completions")) {
    u = trimmed.substr(0, trimmed.size() - std::strlen("/chat/completions")) + "/responses";
  }
  emit("--base-url", u);
  note("--url", "EvalScope/GenAI-Perf", "--base-url " + u);
}

void Rewriter::api(const std::string& v) {
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
      {"openai_embedding", "openai-embeddings"}, {"embedding", "openai-embeddings"},
      {"openai_responses", "openai-responses"},  {"openai_response", "openai-responses"},
      {"responses", "openai-responses"},         {"openai_rerank", "rerank"}};
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

void Rewriter::api_key(const Arg& a) {
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

void Rewriter::number(const Arg& a) {
  if (a.values.empty()) throw UsageError(a.given + " needs a value");
  if (a.values.size() == 1) {
    emit("--num-prompts", a.values.front());
    note(a.given, "EvalScope", "--num-prompts " + a.values.front());
    return;
  }
  // A count per level of --parallel (or of --rate): each level's own, as many as its levels.
  std::size_t levels = 0;
  for (const Arg& g : group(args_)) {
    if (g.name == "--parallel" || g.name == "--rate") levels = std::max(levels, g.values.size());
  }
  if (levels != a.values.size()) {
    throw UsageError(
        "--number with several values (EvalScope) pairs one count with each --parallel (or "
        "--rate) level: give as many counts as levels, or one for every level");
  }
  std::string most = a.values.front();
  for (const auto& v : a.values) {
    if (as_number(v) && as_number(most) && *as_number(v) > *as_number(most)) most = v;
  }
  const std::string list = joined(a.values);
  emit("--num-prompts", most);
  emit("--level-prompts", list);
  note(a.given + " " + list, "EvalScope",
       "--level-prompts " + list + " (each level's own count, paired in order)");
}

void Rewriter::rate(const Arg& a) {
  if (a.values.empty()) throw UsageError("--rate needs a value");
  if (has_flag(args_, "--request-rate")) {
    throw UsageError("give either --rate (EvalScope) or --request-rate, not both");
  }
  std::string list;
  for (const auto& v : a.values) {
    const auto d = as_number(v);
    if (!d || (*d != -1 && !(*d > 0))) {
      throw UsageError(fmt::format(
          "--rate {} (EvalScope) must be a number of requests per second > 0, or -1 for no limit",
          v));
    }
    list += (list.empty() ? "" : ",") + (*d == -1 ? std::string("inf") : v);
  }
  emit("--request-rate", list);
  note("--rate", "EvalScope", "--request-rate " + list);
}

// EvalScope's warmup: a count, or (below 1) a share of --number.
void Rewriter::warmup_num(const std::string& v) {
  const auto d = as_number(v);
  if (!d || *d < 0 || (*d >= 1 && *d != std::floor(*d))) {
    throw UsageError("--warmup-num " + v +
                     " (EvalScope) must be a whole count, or a share between 0 and 1");
  }
  std::string count = v;
  if (*d < 1) {
    const auto n = value_in(args_, {"--number", "-n", "--num-prompts"});
    const double of = n && as_number(*n) ? *as_number(*n) : 1000;  // EvalScope's default
    count = fmt::format("{}", static_cast<long long>(std::llround(*d * of)));
  }
  if (count == "0") {
    note("--warmup-num " + v, "EvalScope", "no warmup");
    return;
  }
  emit("--warmup", count);
  note("--warmup-num " + v, "EvalScope", "--warmup " + count);
}

// EvalScope's prompt length bounds: with random prompts, lengths drawn uniformly between them
// (a bound not given is EvalScope's default: 0 below, 131072 above); with a dataset of its
// own, they filter its prompts, which tokenbench does not do.
void Rewriter::prompt_bounds() {
  const bool has_min = pending_.contains("--min-prompt-length");
  const bool has_max = pending_.contains("--max-prompt-length");
  if (!has_min && !has_max) return;
  const auto dataset = value_in(args_, {"--dataset", "--dataset-name"});
  if (dataset && *dataset != "random" && *dataset != "random_embedding" &&
      *dataset != "random_rerank" && *dataset != "random_vl") {
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

// EvalScope's output bounds: --max-tokens lets the model stop early (two values draw the limit
// between them); equal bounds are one fixed length.
void Rewriter::token_bounds() {
  const bool has_min = pending_.contains("--min-tokens");
  if (max_tokens_.empty() && !has_min) return;
  if (!has_min) {
    if (max_tokens_.size() == 2) {
      const std::string spec = "uniform:" + max_tokens_[0] + "," + max_tokens_[1];
      emit("--output-dist", spec);
      out_.args.push_back("--no-ignore-eos");
      note("--max-tokens " + max_tokens_[0] + " " + max_tokens_[1], "EvalScope",
           "--output-dist " + spec +
               " --no-ignore-eos (the limit drawn between them; the model "
               "may stop early)");
      return;
    }
    emit("--output-len", max_tokens_.front());
    out_.args.push_back("--no-ignore-eos");
    note("--max-tokens", "EvalScope",
         "--output-len " + max_tokens_.front() + " --no-ignore-eos (the model may stop early)");
    return;
  }
  if (max_tokens_.empty()) {
    throw UsageError(
        "--min-tokens alone (EvalScope) asks for at least that many tokens up to EvalScope's "
        "default max_tokens: give --output-len N for N tokens, or --min-tokens N --max-tokens N");
  }
  if (max_tokens_.size() != 1 || pending_["--min-tokens"] != max_tokens_.front()) {
    throw UsageError(
        "--min-tokens and --max-tokens (EvalScope) must be equal here: use --output-len N, or "
        "draw lengths with --output-dist uniform:LO,HI");
  }
  emit("--output-len", max_tokens_.front());
  note("--min/--max-tokens", "EvalScope", "--output-len " + max_tokens_.front());
}

// EvalScope's image sides, each 224 unless given: tokenbench's one --image-size.
void Rewriter::image_size() {
  const bool w = pending_.contains("--image-width");
  const bool h = pending_.contains("--image-height");
  const auto dataset = value_in(args_, {"--dataset"});
  const bool vl = dataset && *dataset == "random_vl";
  if ((!w && !h && !vl) || has_flag(args_, "--image-size")) return;
  const std::string size = (w ? pending_["--image-width"] : kEvalScopeImageSide) + "x" +
                           (h ? pending_["--image-height"] : kEvalScopeImageSide);
  emit("--image-size", size);
  note(w || h ? "--image-width/--image-height" : "random_vl's image size", "EvalScope",
       "--image-size " + size);
}

// EvalScope's turns per conversation: one count here, so its bounds must meet.
void Rewriter::turns() {
  const bool has_min = pending_.contains("--min-turns");
  const bool has_max = pending_.contains("--max-turns");
  if (!has_min && !has_max) return;
  const std::string lo = has_min ? pending_["--min-turns"] : "1";  // EvalScope's default
  if (!has_max) {
    if (lo == "1") {
      note("--min-turns 1", "EvalScope", "ignored: its default");
      return;
    }
    throw UsageError(
        "--min-turns alone (EvalScope) draws each conversation's turns from it up: give --turns N "
        "with --multi-turn, or --min-turns N --max-turns N");
  }
  if (lo != pending_["--max-turns"]) {
    throw UsageError(
        "--min-turns and --max-turns (EvalScope) must be equal here (the default --min-turns is "
        "1): tokenbench's --turns N sends N turns in every session");
  }
  emit("--turns", lo);
  note("--min/--max-turns", "EvalScope", "--turns " + lo);
}

}  // namespace tokenbench::cli::aliases
