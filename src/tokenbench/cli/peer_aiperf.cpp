// AIPerf's and GenAI-Perf's `profile` translated (peer_translator.h): its URL without a scheme,
// its endpoint types as APIs, --extra-inputs as a body, its goodput metrics, and its defaults
// (localhost:8000, 10 requests, concurrency 1, 550-token prompts) made explicit.

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "tokenbench/cli/peer_translator.h"
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

class AiperfTranslator final : public PeerTranslator {
 public:
  using PeerTranslator::PeerTranslator;

 private:
  void rule(const std::string& flag, const std::string& given,
            const std::vector<std::string>& values) override {
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
    } else if (flag == "--input-file") {
      input_file_ = v;
    } else if (flag == "--custom-dataset-type") {
      if (v != "single_turn" && v != "mooncake_trace" && v != "multi_turn" && v != "random_pool") {
        refuse(given, "its types: single_turn, multi_turn, random_pool, mooncake_trace");
      }
      dataset_type_ = v;
    } else if (flag == "--fixed-schedule") {
      fixed_schedule_ = true;
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
    artifact_directory();
    if (!seen("--prompt-input-tokens-mean") && !has_own("--input-len") && input_file_.empty()) {
      emit("--input-len", "550");
      note("no --synthetic-input-tokens-mean", "--input-len 550 (AIPerf's default)");
    }
  }

  // --input-file: a single-turn file is a JSONL dataset (its "text" the prompt), a mooncake
  // trace tokenbench's own; the type is the file's first line's, as AIPerf's loaders tell it,
  // unless --custom-dataset-type says.
  void input_file() {
    if (input_file_.empty()) {
      if (fixed_schedule_) refuse("--fixed-schedule", "it replays --input-file's trace: give one");
      if (!dataset_type_.empty())
        refuse("--custom-dataset-type", "it types --input-file: give one");
      return;
    }
    std::string type = dataset_type_;
    if (type.empty()) {
      std::ifstream in(input_file_);
      if (!in) refuse("--input-file " + input_file_, "cannot be read");
      std::string line;
      while (std::getline(in, line) && line.find_first_not_of(" \t\r") == std::string::npos) {
      }
      const bool trace = line.find("\"input_length\"") != std::string::npos ||
                         line.find("\"hash_ids\"") != std::string::npos;
      type = trace                                         ? "mooncake_trace"
             : line.find("\"turns\"") != std::string::npos ? "multi_turn"
                                                           : "single_turn";
    }
    if (type == "multi_turn" || type == "random_pool") {
      refuse("--input-file (" + type + ")",
             "AIPerf's " + type +
                 " files are not read here: a single_turn file (a \"text\" per line) or a "
                 "mooncake_trace is, and --multi-turn --session-field NAME reads sessions of a "
                 "JSONL file");
    }
    const bool trace = type == "mooncake_trace";
    if (fixed_schedule_ && !trace) refuse("--fixed-schedule", "it replays a mooncake_trace file");
    emit("--dataset", trace ? "mooncake" : "jsonl");
    emit("--dataset-path", input_file_);
    if (fixed_schedule_) emit("--replay");
    note("--input-file (" + type + ")",
         std::string(trace ? "--dataset mooncake" : "--dataset jsonl (each line's \"text\")") +
             " --dataset-path " + input_file_ +
             (fixed_schedule_ ? " --replay (each request at its timestamp)" : ""));
  }

  // Without --artifact-dir, AIPerf's own: artifacts/MODEL-openai-ENDPOINT-STIMULUS
  // (aiperf/common/config/user_config.py, _compute_artifact_directory), where its users' scripts
  // look for profile_export_aiperf.json.
  void artifact_directory() {
    if (seen("--output-artifact-dir") || has_own("--output-dir")) return;
    const auto model = value_in(args_, {"--model-names", "--model", "-m"});
    if (!model) {
      note("no --artifact-dir",
           "tokenbench's results/ directory: AIPerf's artifacts/MODEL-... needs --model");
      return;
    }
    std::string name = *model;
    std::replace(name.begin(), name.end(), '/', '_');
    const auto endpoint = value_in(args_, {"--endpoint-type"});
    name += "-openai-" + (endpoint ? *endpoint : std::string("chat")) + "-";
    const auto concurrency = value_in(args_, {"--concurrency"});
    const auto rate = value_in(args_, {"--request-rate"});
    if (fixed_schedule_) {
      name += "fixed_schedule";
    } else {
      std::string stimulus;
      if (concurrency || !rate) stimulus = "concurrency" + (concurrency ? *concurrency : "1");
      if (rate) {
        // Python's str() of the float AIPerf keeps: 10 is "10.0".
        std::string r = *rate;
        if (r.find_first_of(".eE") == std::string::npos) r += ".0";
        stimulus += (stimulus.empty() ? "" : "-") + std::string("request_rate") + r;
      }
      name += stimulus;
    }
    emit("--output-dir", "artifacts/" + name);
    note("no --artifact-dir", "--output-dir artifacts/" + name + " (AIPerf's default)");
  }

  void finish() override {
    input_file();
    aiperf_defaults();
    emit("--export", "aiperf");
    note("the command",
         "--export aiperf (AIPerf's profile_export_aiperf.json and .csv, beside "
         "tokenbench's files)");
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
      const std::string mean = input_mean("550");
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
           input_file_.empty()
               ? "--output-len 128 (tokenbench's default) --no-ignore-eos: AIPerf then leaves the "
                 "length to the server, tokenbench has to send one"
               : "--no-ignore-eos: the file's output lengths where it gives them, else "
                 "tokenbench's --output-len 128, each a limit the model may stop before");
    }
    if (!extra_.empty()) {
      extra_.erase("ignore_eos");  // tokenbench sends it itself, as --no-ignore-eos says
      if (!extra_.empty()) {
        emit("--extra-body", extra_.dump());
        note("--extra-inputs", "--extra-body " + extra_.dump());
      }
    }
  }

  std::string api_;
  std::string input_file_;
  std::string dataset_type_;
  bool fixed_schedule_ = false;
  bool streaming_ = false;
  std::string rate_;
  std::string arrival_;
  std::string output_mean_;
  std::map<std::string, std::string> stddev_;
  nlohmann::json extra_ = nlohmann::json::object();
};

}  // namespace

std::unique_ptr<PeerTranslator> aiperf_translator(const PeerCli& peer,
                                                  const std::vector<std::string>& args) {
  return std::make_unique<AiperfTranslator>(peer, args);
}

}  // namespace tokenbench::cli
