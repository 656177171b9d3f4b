// A peer's command line translated into `tokenbench run` arguments, row by row of its table
// (peer_tables.cpp): renames pass their value, ignored flags are said and dropped, refused ones
// end the command with their reason, and the rules below do the rest.

#include "tokenbench/cli/peer_verbs.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>

#include "tokenbench/cli/run_flags.h"

namespace tokenbench::cli {
namespace {

// "256" stays an integer, "0.7" a number, "true"/"false" a boolean, anything else a string: the
// types AIPerf gives --extra-inputs values.
nlohmann::json typed(const std::string& v) {
  if (v == "true") return true;
  if (v == "false") return false;
  if (const auto d = as_number(v)) {
    if (v.find_first_of(".eE") == std::string::npos) return static_cast<std::int64_t>(*d);
    return *d;
  }
  return v;
}

class PeerTranslator {
 public:
  PeerTranslator(const PeerCli& peer, const std::vector<std::string>& args)
      : peer_(peer), args_(args) {}

  Rewritten run() {
    for (std::size_t i = 0; i < args_.size(); ++i) {
      const std::string& a = args_[i];
      const auto eq = a.find('=');
      const std::string name =
          a.rfind("--", 0) == 0 && eq != std::string::npos ? a.substr(0, eq) : a;
      const PeerFlag* f = is_flag(a) ? peer_flag(peer_, name) : nullptr;
      if (f == nullptr) {
        out_.args.push_back(a);  // tokenbench's own flag or its value
        continue;
      }
      std::vector<std::string> values;
      if (eq != std::string::npos && name != a) {
        values.push_back(a.substr(eq + 1));
      } else if (f->arity != PeerArity::kNone) {
        while (i + 1 < args_.size() && (f->arity == PeerArity::kOne ? values.empty() : true) &&
               !is_flag(args_[i + 1])) {
          values.push_back(args_[++i]);
        }
      }
      if (f->rule == PeerRule::kRefuse) refuse(a, std::string(f->note));
      seen_.insert(std::string(f->names.substr(0, f->names.find(", "))));
      if (f->arity != PeerArity::kNone && values.empty()) {
        throw UsageError(fmt::format("{} ({}) needs a value", name, peer_.tool));
      }
      apply(*f, name, values);
    }
    if (peer_.verb == "profile") finish_aiperf();
    if (peer_.verb == "benchmark") finish_guidellm();
    if (peer_.verb == "run") finish_llmperf();
    return std::move(out_);
  }

 private:
  void emit(const std::string& flag, const std::string& value = "") {
    out_.args.push_back(flag);
    if (!value.empty()) out_.args.push_back(value);
  }
  void note(const std::string& given, const std::string& became) {
    out_.notes.push_back(fmt::format("{} ({}) is {}", given, peer_.tool, became));
  }
  [[noreturn]] void refuse(const std::string& given, const std::string& why) const {
    throw UsageError(fmt::format("{} ({}) is refused: {}", given, peer_.tool, why));
  }
  static std::string joined(const std::vector<std::string>& values, const char* sep = " ") {
    std::string out;
    for (const auto& v : values) out += (out.empty() ? "" : sep) + v;
    return out;
  }

  void apply(const PeerFlag& f, const std::string& name, const std::vector<std::string>& values) {
    const std::string given = values.empty() ? name : name + " " + joined(values);
    switch (f.rule) {
      case PeerRule::kRename:
        emit(std::string(f.becomes), values.empty() ? "" : values.front());
        note(given, joined({std::string(f.becomes), values.empty() ? "" : values.front()}));
        return;
      case PeerRule::kIgnore:
        note(given, "ignored: " + std::string(f.note));
        return;
      case PeerRule::kRefuse:
        refuse(given, std::string(f.note));
      case PeerRule::kRule:
        const std::string canonical(f.names.substr(0, f.names.find(", ")));
        if (peer_.verb == "profile") {
          aiperf(canonical, given, values);
        } else if (peer_.verb == "benchmark") {
          guidellm(canonical, given, values);
        } else {
          llmperf(canonical, given, values);
        }
        return;
    }
  }

  // AIPerf / GenAI-Perf `profile`.
  void aiperf(const std::string& flag, const std::string& given,
              const std::vector<std::string>& values) {
    const std::string& v = values.empty() ? std::string() : values.front();
    if (flag == "--model-names") {
      if (values.size() > 1 || v.find(',') != std::string::npos) {
        refuse(given, "one model per run here: give several with --model-mix NAME,NAME");
      }
      emit("--model", v);
      note(given, "--model " + v);
    } else if (flag == "--url") {
      const std::string url = v.find("://") == std::string::npos ? "http://" + v : v;
      emit("--base-url", url);
      note(given, "--base-url " + url);
    } else if (flag == "--endpoint-type") {
      static const std::map<std::string, std::string> kApis = {{"chat", "openai-chat"},
                                                               {"completions", "openai"},
                                                               {"embeddings", "openai-embeddings"},
                                                               {"rankings", "rerank"}};
      const auto it = kApis.find(v);
      if (it == kApis.end()) {
        refuse(given, "tokenbench speaks chat, completions, embeddings and rankings (rerank)");
      }
      api_ = it->second;
      emit("--api", api_);
      note(given, "--api " + api_);
    } else if (flag == "--streaming") {
      streaming_ = true;
      note(given, "a streamed run (tokenbench's default)");
    } else if (flag == "--request-rate") {
      emit("--request-rate", v);
      rate_ = given;
    } else if (flag == "--request-rate-mode") {
      if (v != "poisson" && v != "constant") refuse(given, "its modes here: poisson, constant");
      arrival_ = v;
    } else if (flag == "--prompt-input-tokens-stddev" || flag == "--prompt-output-tokens-stddev") {
      if (!as_number(v) || *as_number(v) < 0)
        refuse(given, "a standard deviation is a number >= 0");
      stddev_[flag] = v;
    } else if (flag == "--prompt-output-tokens-mean") {
      output_mean_ = v;
    } else if (flag == "--extra-inputs") {
      extra_inputs(given, values);
    } else if (flag == "--header") {
      for (const auto& h : values) header(given, h);
    } else if (flag == "--goodput") {
      goodput(given, values);
    } else if (flag == "--public-dataset") {
      if (v != "sharegpt") refuse(given, "its public dataset here: sharegpt");
      emit("--dataset", "sharegpt");
      note(given, "--dataset sharegpt (give the file: --dataset-path FILE)");
    } else if (flag == "--api-key") {
      out_.api_key = v;
      emit("--api-key-env", kGivenKeyEnv);
      note(flag, std::string("the API key, handed to the run as $") + kGivenKeyEnv +
                     " and never written or printed");
    }
  }

  void extra_inputs(const std::string& given, const std::vector<std::string>& values) {
    for (const auto& item : values) {
      if (!item.empty() && item.front() == '{') {
        try {
          const auto object = nlohmann::json::parse(item);
          if (!object.is_object()) throw std::runtime_error("not an object");
          extra_.update(object);
        } catch (const std::exception&) {
          refuse(given, "'" + item + "' is neither KEY:VALUE nor a JSON object");
        }
        continue;
      }
      const auto colon = item.find(':');
      if (colon == std::string::npos || colon == 0) {
        refuse(given, "'" + item + "' is not KEY:VALUE (e.g. max_tokens:256, ignore_eos:true)");
      }
      extra_[item.substr(0, colon)] = typed(item.substr(colon + 1));
    }
  }

  void header(const std::string& given, const std::string& h) {
    const auto colon = h.find(':');
    if (colon == std::string::npos || colon == 0) {
      refuse(given, "'" + h + "' is not Name:value");
    }
    std::string value = h.substr(colon + 1);
    value.erase(0, value.find_first_not_of(' '));
    const std::string line = h.substr(0, colon) + ": " + value;
    emit("--header", line);
    note(given, "--header '" + h.substr(0, colon) + ": ...'");
  }

  void goodput(const std::string& given, const std::vector<std::string>& values) {
    static const std::map<std::string, std::string> kNames = {{"time_to_first_token", "ttft"},
                                                              {"inter_token_latency", "tpot"},
                                                              {"request_latency", "e2el"}};
    std::string items;
    for (const auto& value : values) {
      std::string rest = value;
      while (!rest.empty()) {
        const auto space = rest.find(' ');
        const std::string item = rest.substr(0, space);
        rest = space == std::string::npos ? "" : rest.substr(space + 1);
        if (item.empty()) continue;
        const auto colon = item.find(':');
        const auto it = kNames.find(item.substr(0, colon));
        if (colon == std::string::npos || it == kNames.end() ||
            !as_number(item.substr(colon + 1))) {
          refuse(given, "'" + item +
                            "': goodput here is time_to_first_token:MS, inter_token_latency:MS "
                            "or request_latency:MS");
        }
        items += (items.empty() ? "" : " ") + it->second + ":" + item.substr(colon + 1);
      }
    }
    emit("--goodput", items);
    note(given, "--goodput " + items);
  }

  // tokenbench's own flag `flag` is among the arguments.
  bool has_own(const char* flag) const {
    return std::any_of(args_.begin(), args_.end(), [flag](const std::string& a) {
      return a == flag || a.rfind(std::string(flag) + "=", 0) == 0;
    });
  }
  bool seen(const char* canonical) const { return seen_.contains(canonical); }

  // The mean input length: the peer's flag, tokenbench's own, or AIPerf's default 550.
  std::string input_mean() const {
    for (std::size_t i = 0; i + 1 < args_.size(); ++i) {
      const PeerFlag* f = peer_flag(peer_, args_[i]);
      if ((f != nullptr && f->becomes == "--input-len") || args_[i] == "--input-len") {
        return args_[i + 1];
      }
    }
    return "550";
  }

  // What AIPerf does when a flag is not given, made explicit: its URL, count, concurrency and
  // input length, not tokenbench's.
  void aiperf_defaults() {
    if (seen("--request-count") && seen("--benchmark-duration")) {
      refuse("--benchmark-duration with --request-count",
             "AIPerf refuses the two together: a run is timed or counted");
    }
    if (!seen("--url") && !has_own("--base-url")) {
      emit("--base-url", "http://localhost:8000");
      note("no --url", "--base-url http://localhost:8000 (AIPerf's default)");
    }
    if (!seen("--request-count") && !seen("--benchmark-duration") && !has_own("--num-prompts") &&
        !has_own("--duration")) {
      emit("--num-prompts", "10");
      note("no --request-count", "--num-prompts 10 (AIPerf's default)");
    }
    if (!seen("--concurrency") && !seen("--request-rate") && !has_own("--max-concurrency") &&
        !has_own("--request-rate")) {
      emit("--max-concurrency", "1");
      note("no --concurrency", "--max-concurrency 1 (AIPerf's default)");
    }
    if (!seen("--prompt-input-tokens-mean") && !has_own("--input-len")) {
      emit("--input-len", "550");
      note("no --synthetic-input-tokens-mean", "--input-len 550 (AIPerf's default)");
    }
  }

  void finish_aiperf() {
    aiperf_defaults();
    const bool streamable = api_.empty() || api_ == "openai-chat" || api_ == "openai";
    if (!streaming_ && streamable) {
      emit("--no-stream");
      note("no --streaming", "--no-stream: AIPerf sends whole replies without it");
    }
    if (!rate_.empty()) {
      const std::string arrival = arrival_.empty() ? "poisson" : arrival_;
      emit("--arrival", arrival);
      note(rate_, "--request-rate with --arrival " + arrival);
    }
    // Input lengths: --synthetic-input-tokens-mean is a rename; its stddev makes a normal.
    if (const auto it = stddev_.find("--prompt-input-tokens-stddev");
        it != stddev_.end() && *as_number(it->second) > 0) {
      const std::string mean = input_mean();
      emit("--input-dist", "normal:" + mean + "," + it->second);
      note("--synthetic-input-tokens-stddev " + it->second,
           "--input-dist normal:" + mean + "," + it->second);
    }
    if (!output_mean_.empty()) {
      const bool exact = extra_.contains("ignore_eos") && extra_["ignore_eos"] == true;
      const auto sd = stddev_.find("--prompt-output-tokens-stddev");
      if (sd != stddev_.end() && *as_number(sd->second) > 0) {
        emit("--output-dist", "normal:" + output_mean_ + "," + sd->second);
      } else {
        emit("--output-len", output_mean_);
      }
      if (!exact) emit("--no-ignore-eos");
      note("--output-tokens-mean " + output_mean_,
           "--output-len " + output_mean_ +
               (exact ? " (ignore_eos:true: exactly)"
                      : " --no-ignore-eos (the model may stop early)"));
    } else if (stddev_.contains("--prompt-output-tokens-stddev") &&
               *as_number(stddev_["--prompt-output-tokens-stddev"]) > 0) {
      refuse("--output-tokens-stddev", "it needs --output-tokens-mean");
    } else if (!has_own("--output-len") && !has_own("--output-dist")) {
      emit("--no-ignore-eos");
      note("no --output-tokens-mean",
           "--output-len 128 (tokenbench's default) --no-ignore-eos: AIPerf then leaves the "
           "length to the server, tokenbench has to send one");
    }
    if (!extra_.empty()) {
      extra_.erase("ignore_eos");  // tokenbench sends it itself, as --no-ignore-eos says
      if (!extra_.empty()) {
        emit("--extra-body", extra_.dump());
        note("--extra-inputs", "--extra-body " + extra_.dump());
      }
    }
  }

  // LLMPerf's token_benchmark_ray.py.
  void llmperf(const std::string& flag, const std::string& given,
               const std::vector<std::string>& values) {
    const std::string& v = values.front();
    if (flag == "--llm-api") {
      if (v != "openai") {
        refuse(given, "tokenbench measures an OpenAI-compatible server: --llm-api openai");
      }
      note(given, "an OpenAI-compatible chat server (tokenbench's default API)");
    } else if (flag == "--additional-sampling-params") {
      nlohmann::json params;
      try {
        params = nlohmann::json::parse(v);
      } catch (const std::exception&) {
        refuse(given, "not a JSON object");
      }
      if (!params.is_object()) refuse(given, "not a JSON object");
      if (!params.empty()) {
        emit("--extra-body", params.dump());
        note(given, "--extra-body " + params.dump());
      } else {
        note(given, "nothing to add");
      }
    } else if (flag == "--metadata") {
      std::string rest = v;
      while (!rest.empty()) {
        const auto comma = rest.find(',');
        const std::string pair = rest.substr(0, comma);
        rest = comma == std::string::npos ? "" : rest.substr(comma + 1);
        if (pair.find('=') == std::string::npos) refuse(given, "'" + pair + "' is not KEY=VALUE");
        emit("--label", pair);
      }
      note(given, "--label for each pair");
    } else {
      lengths_[flag] = v;  // the means and deviations, made whole in finish_llmperf
      if (!as_number(v) || *as_number(v) < 0) refuse(given, "a length is a number >= 0");
    }
  }

  // LLMPerf's defaults made explicit, its lengths as normals, its URL and key from the
  // environment.
  void finish_llmperf() {
    const auto length = [this](const char* flag, const char* fallback) {
      const auto it = lengths_.find(flag);
      return it != lengths_.end() ? it->second : std::string(fallback);
    };
    const std::string in_mean = input_mean();  // the flag, run's --input-len, or 550
    const std::string in_sd = length("--stddev-input-tokens", "150");
    if (*as_number(in_sd) > 0) {
      emit("--input-dist", fmt::format("normal:{},{}", in_mean, in_sd));
    } else if (!has_own("--input-len")) {
      emit("--input-len", in_mean);
    }
    const std::string out_mean = length("--mean-output-tokens", "150");
    const std::string out_sd = length("--stddev-output-tokens", "80");
    if (*as_number(out_sd) > 0) {
      emit("--output-dist", fmt::format("normal:{},{}", out_mean, out_sd));
    } else {
      emit("--output-len", out_mean);
    }
    emit("--no-ignore-eos");
    note("the lengths",
         fmt::format("prompts normal:{},{} and outputs normal:{},{} --no-ignore-eos (LLMPerf's "
                     "defaults where not given; it asks max_tokens only)",
                     in_mean, in_sd, out_mean, out_sd));
    if (!seen("--num-concurrent-requests") && !has_own("--max-concurrency")) {
      emit("--max-concurrency", "10");
      note("no --num-concurrent-requests", "--max-concurrency 10 (LLMPerf's default)");
    }
    if (!seen("--max-num-completed-requests") && !has_own("--num-prompts")) {
      emit("--num-prompts", "10");
      note("no --max-num-completed-requests", "--num-prompts 10 (LLMPerf's default)");
    }
    if (!seen("--timeout") && !has_own("--duration")) {
      emit("--duration", "90");
      note("no --timeout", "--duration 90 (LLMPerf's default limit on the run)");
    }
    if (!has_own("--base-url")) {
      const char* base = std::getenv("OPENAI_API_BASE");
      if (base == nullptr || *base == '\0') {
        refuse("the command",
               "LLMPerf's server is $OPENAI_API_BASE, which is not set: set it or "
               "give --base-url");
      }
      emit("--base-url", base);
      note("$OPENAI_API_BASE", std::string("--base-url ") + base);
      if (const char* key = std::getenv("OPENAI_API_KEY");
          key != nullptr && *key != '\0' && !has_own("--api-key-env")) {
        emit("--api-key-env", "OPENAI_API_KEY");
        note("$OPENAI_API_KEY", "the key (--api-key-env OPENAI_API_KEY, never written)");
      }
    }
  }

  // GuideLLM `benchmark`.
  void guidellm(const std::string& flag, const std::string& given,
                const std::vector<std::string>& values) {
    const std::string& v = values.empty() ? std::string() : values.front();
    if (flag == "--backend-type") {
      if (v != "openai_http") refuse(given, "tokenbench speaks OpenAI-compatible HTTP only");
      note(given, "an OpenAI-compatible server (tokenbench's own)");
    } else if (flag == "--rate-type") {
      rate_type_ = v;
    } else if (flag == "--rate") {
      for (const auto& r : values) {
        std::string rest = r;
        while (!rest.empty()) {
          const auto comma = rest.find(',');
          rates_.push_back(rest.substr(0, comma));
          rest = comma == std::string::npos ? "" : rest.substr(comma + 1);
        }
      }
    } else if (flag == "--warmup-percent") {
      const auto d = as_number(v);
      if (!d || *d < 0 || *d >= 100) refuse(given, "a share from 0 to 1, or a percent below 100");
      const double pct = *d <= 1 ? *d * 100 : *d;
      if (pct > 0) emit("--drop-first", fmt::format("{:g}", pct));
      note(given, fmt::format("--drop-first {:g} (percent of the measure phase)", pct));
    } else if (flag == "--cooldown-percent") {
      if (!as_number(v) || *as_number(v) != 0) {
        refuse(given, "tokenbench leaves out only the start of a run (--drop-first); give 0");
      }
      note(given, "nothing to leave out");
    } else if (flag == "--data") {
      data(given, v);
    } else if (flag == "--output-path") {
      const auto slash = v.rfind('/');
      const bool file = v.ends_with(".json") || v.ends_with(".yaml") || v.ends_with(".csv") ||
                        v.ends_with(".html");
      const std::string dir = !file ? v : slash == std::string::npos ? "." : v.substr(0, slash);
      emit("--output-dir", dir);
      note(given, "--output-dir " + dir + " (summary.json, requests.jsonl, report.html there)");
    } else if (flag == "--request-type") {
      const std::string api = v == "chat_completions"   ? "openai-chat"
                              : v == "text_completions" ? "openai"
                                                        : "";
      if (api.empty()) refuse(given, "its types here: chat_completions, text_completions");
      emit("--api", api);
      note(given, "--api " + api);
    }
  }

  void data(const std::string& given, const std::string& text) {
    std::string v = text;
    if (!v.empty() && v.front() == '{') {
      // The same keys as JSON: {"prompt_tokens": 256, "output_tokens": 128}.
      try {
        std::string flat;
        const nlohmann::json object = nlohmann::json::parse(v);
        if (!object.is_object()) throw std::runtime_error("not an object");
        for (const auto& [key, value] : object.items()) {
          flat += (flat.empty() ? "" : ",") + key + "=" + value.dump();
        }
        v = flat;
      } catch (const std::exception&) {
        refuse(given, "not a JSON object of numbers");
      }
    }
    if (v.find('=') == std::string::npos) {
      if (v.ends_with(".jsonl")) {
        emit("--dataset", "jsonl");
        emit("--dataset-path", v);
        note(given, "--dataset jsonl --dataset-path " + v);
        return;
      }
      refuse(given,
             "a dataset by name is not fetched here: give prompt_tokens=N,output_tokens=M "
             "or a local .jsonl file");
    }
    std::map<std::string, std::string> kv;
    std::string rest = v;
    while (!rest.empty()) {
      const auto comma = rest.find(',');
      const std::string item = rest.substr(0, comma);
      rest = comma == std::string::npos ? "" : rest.substr(comma + 1);
      const auto eq = item.find('=');
      if (eq == std::string::npos || !as_number(item.substr(eq + 1))) {
        refuse(given, "'" + item + "' is not KEY=NUMBER");
      }
      kv[item.substr(0, eq)] = item.substr(eq + 1);
    }
    std::string became;
    for (const char* side : {"prompt", "output"}) {
      const std::string p = side;
      const auto mean = kv.find(p + "_tokens");
      const std::string flag = p == "prompt" ? "--input" : "--output";
      if (mean == kv.end()) continue;
      const std::string sd = kv.contains(p + "_tokens_stdev") ? kv[p + "_tokens_stdev"] : "0";
      const std::string lo = kv.contains(p + "_tokens_min") ? kv[p + "_tokens_min"] : "";
      const std::string hi = kv.contains(p + "_tokens_max") ? kv[p + "_tokens_max"] : "";
      if (*as_number(sd) > 0) {
        emit(flag + "-dist", fmt::format("normal:{},{}", mean->second, sd));
        became += fmt::format(" {}-dist normal:{},{}", flag, mean->second, sd);
      } else if (!lo.empty() && !hi.empty()) {
        emit(flag + "-dist", fmt::format("uniform:{},{}", lo, hi));
        became += fmt::format(" {}-dist uniform:{},{}", flag, lo, hi);
      } else {
        emit(flag + "-len", mean->second);
        became += fmt::format(" {}-len {}", flag, mean->second);
      }
      kv.erase(p + "_tokens");
      kv.erase(p + "_tokens_stdev");
      kv.erase(p + "_tokens_min");
      kv.erase(p + "_tokens_max");
    }
    if (!kv.empty()) refuse(given, "'" + kv.begin()->first + "' is not read here");
    note(given, became.substr(1));
  }

  void finish_guidellm() {
    const std::string type = rate_type_.empty() ? "sweep" : rate_type_;
    const std::string given = rate_type_.empty() ? "no --rate-type (GuideLLM's default: sweep)"
                                                 : "--rate-type " + rate_type_;
    const std::string list = joined(rates_, ",");
    if (type == "synchronous") {
      emit("--max-concurrency", "1");
      note(given, "--max-concurrency 1 (one request at a time)");
    } else if (type == "throughput") {
      emit("--request-rate", "inf");
      emit("--max-concurrency", "512");
      note(given,
           "--request-rate inf --max-concurrency 512 (every request at once, GuideLLM's "
           "cap on concurrency)");
    } else if (type == "concurrent" || type == "constant" || type == "poisson" || type == "async") {
      if (rates_.empty()) refuse(given, "it needs --rate (one value, or a list for a sweep)");
      if (type == "concurrent") {
        emit("--max-concurrency", list);
        note(given + " --rate " + list, "--max-concurrency " + list);
      } else {
        const std::string arrival = type == "poisson" ? "poisson" : "constant";
        emit("--request-rate", list);
        emit("--arrival", arrival);
        note(given + " --rate " + list, "--request-rate " + list + " --arrival " + arrival);
      }
    } else if (type == "sweep") {
      const std::string n = rates_.empty() ? "10" : rates_.front();
      if (rates_.size() > 1 || !as_number(n) || *as_number(n) < 2 ||
          *as_number(n) != static_cast<int>(*as_number(n))) {
        refuse(given + " --rate " + list, "a sweep's --rate is its number of levels, 2 or more");
      }
      emit("--rate-sweep", n);
      emit("--max-concurrency", "512");
      emit("--arrival", "constant");
      note(given + (rates_.empty() ? "" : " --rate " + n),
           "--rate-sweep " + n +
               " --max-concurrency 512 --arrival constant (one request at a time, every request "
               "at once, then " +
               std::to_string(static_cast<int>(*as_number(n)) - 2) +
               " constant rates between their throughputs; GuideLLM's cap of 512 in flight)");
    } else {
      refuse(given,
             "its types: synchronous, throughput, concurrent, constant, async, poisson, sweep");
    }
  }

  const PeerCli& peer_;
  const std::vector<std::string>& args_;
  Rewritten out_;
  // AIPerf
  std::string api_;
  bool streaming_ = false;
  std::string rate_;
  std::string arrival_;
  std::string output_mean_;
  std::map<std::string, std::string> stddev_;
  std::set<std::string> seen_;  // the canonical names of the peer's flags given
  nlohmann::json extra_ = nlohmann::json::object();
  // LLMPerf
  std::map<std::string, std::string> lengths_;
  // GuideLLM
  std::string rate_type_;
  std::vector<std::string> rates_;
};

}  // namespace

Rewritten translate_peer(const PeerCli& peer, const std::vector<std::string>& args) {
  return PeerTranslator(peer, args).run();
}

}  // namespace tokenbench::cli
