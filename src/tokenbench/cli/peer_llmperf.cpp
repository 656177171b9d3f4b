// LLMPerf's token_benchmark_ray.py flags on `run` translated (peer_translator.h): its lengths as
// normals with its defaults, its server and key from $OPENAI_API_BASE and $OPENAI_API_KEY.

#include <fmt/format.h>

#include <cstdlib>
#include <map>
#include <nlohmann/json.hpp>

#include "tokenbench/cli/peer_translator.h"
#include "tokenbench/cli/run_flags.h"

namespace tokenbench::cli {
namespace {

class LlmperfTranslator final : public PeerTranslator {
 public:
  using PeerTranslator::PeerTranslator;

 private:
  void rule(const std::string& flag, const std::string& given,
            const std::vector<std::string>& values) override {
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
  void finish() override {
    const auto length = [this](const char* flag, const char* fallback) {
      const auto it = lengths_.find(flag);
      return it != lengths_.end() ? it->second : std::string(fallback);
    };
    const std::string in_mean = input_mean("550");  // the flag, run's --input-len, or 550
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

  std::map<std::string, std::string> lengths_;
};

}  // namespace

std::unique_ptr<PeerTranslator> llmperf_translator(const PeerCli& peer,
                                                   const std::vector<std::string>& args) {
  return std::make_unique<LlmperfTranslator>(peer, args);
}

}  // namespace tokenbench::cli
