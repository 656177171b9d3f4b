// GuideLLM's `benchmark` translated (peer_translator.h): its rate types as levels, its sweep as
// --rate-sweep, its synthetic --data string (or JSON) as lengths, its output path as a folder.

#include <fmt/format.h>

#include <map>
#include <nlohmann/json.hpp>

#include "tokenbench/cli/peer_translator.h"
#include "tokenbench/cli/run_flags.h"

namespace tokenbench::cli {
namespace {

class GuidellmTranslator final : public PeerTranslator {
 public:
  using PeerTranslator::PeerTranslator;

 private:
  void rule(const std::string& flag, const std::string& given,
            const std::vector<std::string>& values) override {
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

  void finish() override {
    // GuideLLM sends text completions unless told otherwise (settings.preferred_route).
    if (!seen("--request-type") && !has_own("--api") && !has_own("--endpoint")) {
      emit("--api", "openai");
      note("no --request-type", "--api openai (GuideLLM's default route, text_completions)");
    }
    emit("--export", "guidellm");
    note("the command",
         "--export guidellm (GuideLLM's benchmarks.json, beside tokenbench's files)");
    rates();
  }

  // The rate type and its rates as levels.
  void rates() {
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

  std::string rate_type_;
  std::vector<std::string> rates_;
};

}  // namespace

std::unique_ptr<PeerTranslator> guidellm_translator(const PeerCli& peer,
                                                    const std::vector<std::string>& args) {
  return std::make_unique<GuidellmTranslator>(peer, args);
}

}  // namespace tokenbench::cli
