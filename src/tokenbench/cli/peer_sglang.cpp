// SGLang's bench_serving flags on `run` translated (peer_translator.h): its OpenAI backends as
// APIs, --host/--port with its per-backend ports, its datasets, its random lengths drawn from
// [LEN x R, LEN], its shared-prefix dataset, and its defaults (ShareGPT, 1000 prompts, every
// request at once, one warmup request, 1024-token lengths) made explicit.

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>

#include "tokenbench/cli/peer_translator.h"
#include "tokenbench/cli/run_flags.h"

namespace tokenbench::cli {
namespace {

class SglangTranslator final : public PeerTranslator {
 public:
  using PeerTranslator::PeerTranslator;

 private:
  void rule(const std::string& flag, const std::string& given,
            const std::vector<std::string>& values) override {
    const std::string& v = values.front();
    if (flag == "--extra-request-body") {
      nlohmann::json body;
      try {
        body = nlohmann::json::parse(v);
      } catch (const std::exception&) {
        refuse(given, "not a JSON object");
      }
      if (!body.is_object()) refuse(given, "not a JSON object");
      emit("--extra-body", body.dump());
      note(given, "--extra-body " + body.dump());
    } else if (flag == "--output-file") {
      const auto slash = v.rfind('/');
      const std::string dir = slash == std::string::npos ? "." : v.substr(0, slash);
      emit("--output-dir", dir);
      note(given, "--output-dir " + dir + " (summary.json, requests.jsonl, report.html there)");
    } else if (flag == "--apply-chat-template") {
      // Judged in finish(), once the backend is known.
    } else if (flag == "--lora-name") {
      const std::string list = joined(values, ",");
      emit("--lora-modules", list);
      emit("--lora-assignment", "random");
      note(given, "--lora-modules " + list +
                      " --lora-assignment random (each request's model an adapter drawn at "
                      "random; SGLang also sends it as lora_path)");
    } else {
      // --backend, --host, --port, --dataset-name, the random lengths and --request-rate:
      // made whole in finish(), where each can see the others.
      if (flag != "--backend" && flag != "--host" && flag != "--dataset-name" &&
          (!as_number(v) || *as_number(v) < 0)) {
        refuse(given, "a number >= 0");
      }
      given_[flag] = v;
    }
  }

  std::string value(const char* flag, const char* fallback) const {
    const auto it = given_.find(flag);
    return it != given_.end() ? it->second : std::string(fallback);
  }

  void finish() override {
    backend();
    base_url();
    dataset();
    const std::string rate = value("--request-rate", "inf");
    if (rate == "inf") {
      emit("--request-rate", "inf");
      note(seen("--request-rate") ? "--request-rate inf" : "no --request-rate",
           "--request-rate inf (every request at once, SGLang's default)");
    } else {
      emit("--request-rate", rate);
      emit("--arrival", "poisson");
      note("--request-rate " + rate, "--request-rate " + rate + " --arrival poisson");
    }
    if (!seen("--warmup-requests") && !has_own("--warmup")) {
      emit("--warmup", "1");
      note("no --warmup-requests", "--warmup 1 (SGLang's default)");
    }
  }

  // The API its backend speaks: its native /generate (the default), or an OpenAI one.
  void backend() {
    const std::string b = value("--backend", "sglang");
    const std::string given = seen("--backend") ? "--backend " + b : "no --backend";
    if (has_own("--api") || has_own("--endpoint")) {
      if (seen("--backend")) note(given, "left to --api/--endpoint");
      return;
    }
    std::string api;
    if (b == "sglang" || b == "sglang-native") api = "sglang-generate";
    if (b == "sglang-oai" || b == "vllm" || b == "lmdeploy") api = "openai";
    if (b == "sglang-oai-chat" || b == "vllm-chat" || b == "lmdeploy-chat") api = "openai-chat";
    if (api.empty()) {
      refuse(given,
             "tokenbench speaks SGLang's /generate and OpenAI-compatible APIs: --backend "
             "sglang, sglang-oai, sglang-oai-chat, vllm, vllm-chat, lmdeploy or "
             "lmdeploy-chat");
    }
    backend_ = b;
    emit("--api", api);
    note(given + (seen("--backend") ? "" : " (SGLang's default: sglang)"),
         "--api " + api +
             (api == "sglang-generate" ? " (POST /generate, SGLang's native API)" : ""));
    if (api == "sglang-generate" && !has_own("--temperature")) {
      emit("--temperature", "0");  // its native request's sampling_params
      note(given, "--temperature 0 too (SGLang's native request asks temperature 0.0)");
    }
    if (seen("--apply-chat-template")) {
      if (api != "openai-chat") {
        refuse("--apply-chat-template",
               "tokenbench sends a completions prompt as it is: use --backend sglang-oai-chat, "
               "where the server applies the template");
      }
      note("--apply-chat-template", "what the chat server does: it applies the template");
    }
  }

  // --host and --port, with SGLang's defaults (its port by backend), unless --base-url is given.
  void base_url() {
    if (has_own("--base-url")) {
      if (seen("--host") || seen("--port")) note("--host/--port", "ignored beside --base-url");
      return;
    }
    const std::string port_default = backend_.starts_with("vllm")       ? "8000"
                                     : backend_.starts_with("lmdeploy") ? "23333"
                                                                        : "30000";
    std::string host = value("--host", "0.0.0.0");
    if (host == "0.0.0.0") host = "127.0.0.1";  // SGLang's default: this machine
    const std::string url =
        fmt::format("http://{}:{}", host, value("--port", port_default.c_str()));
    emit("--base-url", url);
    note(seen("--host") || seen("--port") ? "--host/--port" : "no --host/--port",
         "--base-url " + url + (seen("--port") ? "" : " (SGLang's port for " + backend_ + ")"));
  }

  void dataset() {
    const std::string d = value("--dataset-name", "sharegpt");
    const std::string given =
        seen("--dataset-name") ? "--dataset-name " + d : "no --dataset-name (SGLang's default)";
    if (d == "random" || d == "random-ids") {
      emit("--dataset", "random");
      note(given, "--dataset random (random tokens of the lengths below)");
      random_lengths();
    } else if (d == "sharegpt" || d == "burstgpt") {
      if (!has_own("--dataset-path")) {
        refuse(given,
               "SGLang downloads the file when --dataset-path is not given; tokenbench "
               "reads a local one: give --dataset-path FILE");
      }
      emit("--dataset", d);
      note(given, "--dataset " + d);
    } else if (d == "generated-shared-prefix") {
      shared_prefix(given);
    } else {
      refuse(given,
             "its datasets here: sharegpt, burstgpt, random, random-ids and "
             "generated-shared-prefix");
    }
    // What SGLang reads for another dataset only, it ignores here: said, not sent.
    for (const char* flag : {"--random-input-len", "--random-output-len", "--random-range-ratio",
                             "--sharegpt-output-len"}) {
      const bool used = std::string_view(flag) == "--sharegpt-output-len"
                            ? d == "sharegpt"
                            : d == "random" || d == "random-ids";
      if (seen(flag) && !used) note(flag, "ignored: SGLang reads it for another dataset");
    }
    if (d == "sharegpt" && seen("--sharegpt-output-len")) {
      emit("--output-len", value("--sharegpt-output-len", ""));
      note("--sharegpt-output-len", "--output-len " + value("--sharegpt-output-len", ""));
    }
    if (d == "generated-shared-prefix") return;
    emit("--num-prompts", value("--num-prompts", "1000"));
    if (!seen("--num-prompts")) note("no --num-prompts", "--num-prompts 1000 (SGLang's default)");
  }

  // SGLang draws each length uniformly from [max(int(LEN x R), 1), LEN] (the output's low end
  // may be 0 there; a request asks for 1 token at least here).
  void random_lengths() {
    const double ratio = *as_number(value("--random-range-ratio", "0"));
    if (ratio > 1) refuse("--random-range-ratio", "SGLang's ratio is from 0 to 1");
    for (const bool input : {true, false}) {
      const std::string len = value(input ? "--random-input-len" : "--random-output-len", "1024");
      const long hi = std::lround(*as_number(len));
      const long lo = std::max(1L, static_cast<long>(static_cast<double>(hi) * ratio));
      const std::string flag = input ? "--input" : "--output";
      if (lo >= hi) {
        emit(flag + "-len", std::to_string(hi));
      } else {
        emit(flag + "-dist", fmt::format("uniform:{},{}", lo, hi));
      }
    }
    note(fmt::format("the random lengths (--random-range-ratio {:g})", ratio),
         fmt::format("input {} and output {} tokens, each drawn from [LEN x {:g}, LEN] as SGLang "
                     "draws them (its defaults 1024 and 1024 where not given)",
                     value("--random-input-len", "1024"), value("--random-output-len", "1024"),
                     ratio));
  }

  // generated-shared-prefix: G groups of P questions after a system prompt each group shares;
  // SGLang sends G x P requests whatever --num-prompts says.
  void shared_prefix(const std::string& given) {
    emit("--dataset", "shared-prefix");
    std::string became = "--dataset shared-prefix";
    std::string defaults;
    for (const auto& [flag, own, fallback] :
         {std::tuple{"--gsp-num-groups", "--prefix-groups", "64"},
          std::tuple{"--gsp-prompts-per-group", "--prompts-per-group", "16"},
          std::tuple{"--gsp-system-prompt-len", "--prefix-len", "2048"},
          std::tuple{"--gsp-question-len", "--input-len", "128"},
          std::tuple{"--gsp-output-len", "--output-len", "256"}}) {
      if (seen(flag) || has_own(own)) continue;  // given: renamed already
      emit(own, fallback);
      defaults += fmt::format(" {} {}", own, fallback);
    }
    note(given, became + (defaults.empty() ? "" : defaults + " (SGLang's defaults)"));
    const auto count = [this](const char* peer, const char* own, const char* fallback) {
      const std::string v = value_in(args_, {peer, own}).value_or(fallback);
      const auto n = as_number(v);
      if (!n || *n < 1) refuse(std::string(peer) + " " + v, "a whole number of 1 or more");
      return *n;
    };
    const auto n = static_cast<long>(count("--gsp-num-groups", "--prefix-groups", "64") *
                                     count("--gsp-prompts-per-group", "--prompts-per-group", "16"));
    emit("--num-prompts", std::to_string(n));
    note(seen("--num-prompts") ? "--num-prompts " + value("--num-prompts", "") : "the prompts",
         fmt::format("--num-prompts {} (every group's every question once: SGLang sends them "
                     "all, whatever --num-prompts says)",
                     n));
  }

  std::map<std::string, std::string> given_;  // the flags finish() makes whole
  std::string backend_;
};

}  // namespace

std::unique_ptr<PeerTranslator> sglang_translator(const PeerCli& peer,
                                                  const std::vector<std::string>& args) {
  return std::make_unique<SglangTranslator>(peer, args);
}

}  // namespace tokenbench::cli
