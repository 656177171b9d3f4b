#include "tokenbench/cli/inference_perf_config.h"

#include <fmt/format.h>

#include <cmath>
#include <set>
#include <span>
#include <string>
#include <tuple>
#include <utility>

#include "tokenbench/cli/config_file.h"
#include "tokenbench/cli/peer_verbs.h"
#include "tokenbench/cli/run_flags.h"

namespace tokenbench::cli {
namespace {

// What a message names: the config file, or inference-perf's command line (no file).
std::string where(const std::string& path) {
  return path.empty() ? "inference-perf" : "--config " + path;
}

// Each key of the file against inference-perf's rows (peer_rows_inference_perf.cpp): a refused
// one ends the command with its reason, an ignored one is said, and one without a row is not a
// key tokenbench knows. What the kept keys become is InferencePerf's.
class KeyWalk {
 public:
  KeyWalk(const std::string& path, std::vector<std::string>& notes) : path_(path), notes_(notes) {}

  void walk(const YAML::Node& node, const std::string& key) {
    if (!key.empty() && (node.IsMap() || node.IsSequence())) {
      if (const PeerFlag* whole = row(key + ".*")) return apply(*whole, key);
      if (const PeerFlag* own = row(key); own != nullptr && !has_rows_under(key)) {
        return apply(*own, key);
      }
    }
    if (node.IsMap()) {
      for (const auto& item : node) {
        std::string child = key.empty() ? "" : key + ".";
        child += item.first.as<std::string>();
        walk(item.second, child);
      }
    } else if (node.IsSequence()) {
      for (const auto& item : node) walk(item, key + "[]");
    } else if (const PeerFlag* leaf = row(key)) {
      apply(*leaf, key);
    } else {
      throw UsageError(
          fmt::format("{}: {} is not a key of inference-perf's config (kubernetes-sigs/"
                      "inference-perf at 7de5ef2e) that tokenbench knows: docs/CLI.md lists them",
                      where(path_), key));
    }
  }

 private:
  static const PeerFlag* row(const std::string& key) { return peer_flag(*peer_config_cli(), key); }

  static bool has_rows_under(const std::string& key) {
    for (const auto& f : inference_perf_rows()) {
      for (const std::string& under : {key + ".", key + "[]"}) {
        if (f.names.find(under) != std::string_view::npos) return true;
      }
    }
    return false;
  }

  void apply(const PeerFlag& f, const std::string& key) {
    if (f.rule == PeerRule::kRefuse) {
      throw UsageError(
          fmt::format("{}: inference-perf's {} is refused: {}", where(path_), key, f.note));
    }
    if (f.rule == PeerRule::kIgnore && said_.insert(&f).second) {
      notes_.push_back(fmt::format("inference-perf's {} is not read: {}", key, f.note));
    }
  }

  const std::string& path_;
  std::vector<std::string>& notes_;
  std::set<const PeerFlag*> said_;
};

// inference-perf's config (kubernetes-sigs/inference-perf at 7de5ef2e, docs/config.md) as
// tokenbench flags, section by section; what does not map is refused with the reason.
class InferencePerf {
 public:
  InferencePerf(const std::string& path, std::vector<std::string>& notes)
      : path_(path), notes_(notes) {}

  std::vector<std::string> translate(const YAML::Node& root) {
    KeyWalk(path_, notes_).walk(root, "");
    if (!root["data"]) data(YAML::Node());
    for (const auto& item : root) {
      const std::string key = item.first.as<std::string>();
      if (key == "load") {
        load(item.second);
      } else if (key == "api") {
        api(item.second);
      } else if (key == "server") {
        server(item.second);
      } else if (key == "data") {
        data(item.second);
      } else if (key == "tokenizer") {
        if (const auto t = item.second["pretrained_model_name_or_path"]) {
          emit("--tokenizer", t.as<std::string>(), "tokenizer.pretrained_model_name_or_path");
        }
      } else if (key == "metrics" || key == "report" || key == "storage" ||
                 key == "circuit_breakers") {
        // Said by the walk: not read.
      } else {
        fail(key, "is not an inference-perf section tokenbench reads");
      }
    }
    if (!root["api"] || !root["api"]["type"]) {
      emit("--api", "openai", "api.type (its default completion)");
    }
    if (!streaming_) {
      out_.push_back("--no-stream");
      note("api.streaming", "false (inference-perf's default): --no-stream");
    }
    if (!ignore_eos_) {
      out_.push_back("--no-ignore-eos");
      note("server.ignore_eos", "false (inference-perf's default): --no-ignore-eos");
    }
    return std::move(out_);
  }

 private:
  [[noreturn]] void fail(const std::string& key, const std::string& why) const {
    throw UsageError(fmt::format("{}: inference-perf's {} {}", where(path_), key, why));
  }
  void note(const std::string& key, const std::string& became) {
    notes_.push_back(fmt::format("inference-perf's {} is {}", key, became));
  }
  void emit(const std::string& flag, const std::string& value, const std::string& key) {
    out_.push_back(flag);
    out_.push_back(value);
    note(key, flag + " " + value);
  }
  static std::string text(const YAML::Node& n) { return n.as<std::string>(); }

  void load(const YAML::Node& l) {
    const std::string type = l["type"] ? text(l["type"]) : "constant";
    const YAML::Node stages = l["stages"];
    if (!stages || !stages.IsSequence() || stages.size() == 0) {
      fail("load.stages", "must list the stages");
    }
    std::string levels;
    std::string each;
    for (const auto& s : stages) {
      const bool concurrent = type == "concurrent";
      const YAML::Node level = s[concurrent ? "concurrency_level" : "rate"];
      const YAML::Node amount = s[concurrent ? "num_requests" : "duration"];
      if (!level || !amount) {
        fail("load.stages",
             concurrent ? "need concurrency_level and num_requests" : "need rate and duration");
      }
      levels += (levels.empty() ? "" : ",") + text(level);
      if (!each.empty() && each != text(amount)) {
        fail("load.stages",
             "differ in their duration or count: tokenbench's levels share one "
             "--duration or --num-prompts");
      }
      each = text(amount);
    }
    if (type == "constant" || type == "poisson") {
      emit("--request-rate", levels, "load.stages' rates");
      emit("--duration", each, "load.stages' duration");
      emit("--arrival", type, "load.type");
    } else if (type == "concurrent") {
      emit("--max-concurrency", levels, "load.stages' concurrency_level");
      emit("--num-prompts", each, "load.stages' num_requests");
    } else {
      fail("load.type " + type, "is not translated: constant, poisson and concurrent are");
    }
    if (l["interval"]) {
      note("load.interval " + text(l["interval"]),
           "not applied: each stage starts when the one before it ends");
    }
    if (const YAML::Node split = l["lora_traffic_split"]) lora_split(split);
    if (l["request_timeout"]) emit("--timeout", text(l["request_timeout"]), "load.request_timeout");
    if (l["base_seed"]) emit("--seed", text(l["base_seed"]), "load.base_seed");
  }

  // load.lora_traffic_split: each adapter's name and share of the requests.
  void lora_split(const YAML::Node& split) {
    if (!split.IsSequence() || split.size() == 0) {
      fail("load.lora_traffic_split", "must list {name, split} items");
    }
    std::string names;
    std::string weights;
    for (const auto& item : split) {
      if (!item["name"] || !item["split"]) {
        fail("load.lora_traffic_split", "items need name and split");
      }
      names += (names.empty() ? "" : ",") + text(item["name"]);
      weights += (weights.empty() ? "" : ",") + text(item["name"]) + "=" + text(item["split"]);
    }
    emit("--lora-modules", names, "load.lora_traffic_split's names");
    emit("--lora-weights", weights, "load.lora_traffic_split's splits");
  }

  void api(const YAML::Node& a) {
    if (const auto t = a["type"]) {
      const std::string type = text(t);
      const std::string flag = type == "completion"           ? "openai"
                               : type == "chat"               ? "openai-chat"
                               : type == "anthropic_messages" ? "anthropic-messages"
                                                              : "";
      if (flag.empty()) fail("api.type " + type, "is not one of completion, chat");
      emit("--api", flag, "api.type");
    }
    if (a["streaming"]) streaming_ = a["streaming"].as<bool>();
    if (const auto h = a["headers"]; h && h.IsMap()) {
      for (const auto& kv : h) {
        out_.push_back("--header");
        out_.push_back(text(kv.first) + ": " + text(kv.second));
        note("api.headers." + text(kv.first), "--header");
      }
    }
  }

  void server(const YAML::Node& s) {
    if (s["type"] && text(s["type"]) == "mock") fail("server.type mock", "is not a server");
    if (s["type"]) note("server.type " + text(s["type"]), "its OpenAI-compatible API, as here");
    if (s["base_url"]) emit("--base-url", text(s["base_url"]), "server.base_url");
    if (s["model_name"]) emit("--model", text(s["model_name"]), "server.model_name");
    if (s["ignore_eos"]) ignore_eos_ = s["ignore_eos"].as<bool>();
  }

  // A length distribution as inference-perf's random generator draws it (utils/numeric/
  // distribution/utils.py generate_distribution): normal by default, each key defaulting as its
  // Distribution does, the lengths clamped to [min, max].
  void lengths(const YAML::Node& d, const char* side, const std::string& key) {
    if (!d) return;
    const std::string flag = std::string("--") + side;
    const std::string type = d["type"] ? text(d["type"]) : "normal";
    const double mean = d["mean"] ? d["mean"].as<double>() : 512;
    double sd = d["std_dev"] ? d["std_dev"].as<double>() : 200;
    if (d["variance"]) {
      if (d["std_dev"] && sd > 0) fail(key + ".variance", "and std_dev > 0 cannot both be set");
      sd = std::sqrt(d["variance"].as<double>());
    }
    if (d["skew"] && d["skew"].as<double>() != 0) fail(key + ".skew", "is skew_normal's: refused");
    const auto lo = d["min"] ? d["min"].as<long long>() : 10;
    const auto hi = d["max"] ? d["max"].as<long long>() : 1024;
    if (lo < 1 || hi < lo) fail(key, fmt::format("min {} and max {} need 1 <= min <= max", lo, hi));
    if (type == "fixed") {
      emit(flag + "-len", fmt::format("{}", static_cast<long long>(mean)), key + " (fixed)");
    } else if (type == "normal") {
      if (mean < static_cast<double>(lo) || mean > static_cast<double>(hi)) {
        fail(key, fmt::format("mean {} lies outside min {} and max {}, which inference-perf "
                              "refuses too",
                              mean, lo, hi));
      }
      emit(flag + "-dist", fmt::format("normal:{},{},{},{}", mean, sd, lo, hi), key);
    } else if (type == "uniform") {
      emit(flag + "-dist", fmt::format("uniform:{},{}", lo, hi), key);
    } else {
      fail(key + ".type " + type,
           "is not translated: normal, uniform and fixed are (inference-perf's random data "
           "shifts a lognormal by min; skew_normal and poisson it does not draw)");
    }
  }

  void data(const YAML::Node& d) {
    const std::string type = d && d["type"] ? text(d["type"]) : "mock";
    if (type == "mock") {
      // Its placeholder prompts, "1 2 3 N" (chat: "mock prompt N"), with no max_tokens.
      emit("--input-len", "4", d && d["type"] ? "data.type mock" : "data.type (its default mock)");
      note("data.type mock",
           "placeholder prompts asking no max_tokens: here random 4-token prompts asking "
           "--output-len tokens");
      return;
    }
    if (d["use_chat_template"] && d["use_chat_template"].as<bool>()) {
      fail("data.use_chat_template true", "is refused: tokenbench applies no chat template itself");
    }
    if (d["shared_prefix"] && d["shared_prefix"]["enable_multi_turn_chat"] &&
        d["shared_prefix"]["enable_multi_turn_chat"].as<bool>()) {
      fail("data.shared_prefix.enable_multi_turn_chat true",
           "is refused: each group's prompts as turns of one chat is not translated");
    }
    if (type == "random" || type == "synthetic") {
      // Without one, a Distribution's own defaults (inference-perf's random data needs both).
      for (const auto& [key, side] :
           {std::pair{"input_distribution", "input"}, std::pair{"output_distribution", "output"}}) {
        const std::string name = std::string("data.") + key;
        lengths(d[key] ? d[key] : YAML::Node(YAML::NodeType::Map), side,
                d[key] ? name : name + " (none given: a Distribution's defaults)");
      }
    } else if (type == "shareGPT") {
      if (!d["path"]) fail("data.type shareGPT", "needs data.path: tokenbench reads a local file");
      emit("--dataset", "sharegpt", "data.type");
      emit("--dataset-path", text(d["path"]), "data.path");
    } else if (type == "shared_prefix") {
      shared_prefix(d["shared_prefix"]);
    } else {
      fail("data.type " + type,
           "is not translated: random, synthetic, shareGPT and shared_prefix are");
    }
  }

  // data.shared_prefix: groups of prompts sharing a system prompt, each key (its newer name or
  // its older one) a whole number, with inference-perf's defaults where not given.
  void shared_prefix(const YAML::Node& sp) {
    emit("--dataset", "shared-prefix", "data.type shared_prefix");
    for (const auto& [names, flag, fallback] :
         {std::tuple{std::pair{"num_unique_system_prompts", "num_groups"}, "--prefix-groups", "10"},
          std::tuple{std::pair{"num_users_per_system_prompt", "num_prompts_per_group"},
                     "--prompts-per-group", "10"},
          std::tuple{std::pair{"system_prompt_len", ""}, "--prefix-len", "100"},
          std::tuple{std::pair{"question_len", ""}, "--input-len", "50"},
          std::tuple{std::pair{"output_len", ""}, "--output-len", "50"}}) {
      const auto& [name, old_name] = names;
      YAML::Node v;
      if (sp) v = sp[name] ? sp[name] : (*old_name != '\0' ? sp[old_name] : YAML::Node());
      const std::string key = std::string("data.shared_prefix.") + name;
      if (v && !v.IsScalar()) {
        fail(key,
             "is a distribution: a whole number is translated (--input-dist draws "
             "lengths of tokenbench's own)");
      }
      emit(flag, v ? text(v) : fallback, v ? key : key + " (inference-perf's default)");
    }
    for (const char* legacy : {"question_distribution", "output_distribution"}) {
      if (sp && sp[legacy]) fail(std::string("data.shared_prefix.") + legacy, "is not translated");
    }
  }

  const std::string& path_;
  std::vector<std::string>& notes_;
  std::vector<std::string> out_;
  bool streaming_ = false;
  bool ignore_eos_ = false;
};

}  // namespace

bool is_inference_perf_config(const YAML::Node& root) {
  if (!root.IsMap()) return false;
  const YAML::Node load = root["load"];
  return root["server"] || root["api"] || root["data"] || (load && load.IsMap() && load["stages"]);
}

std::vector<std::string> inference_perf_args(const YAML::Node& root, const std::string& path,
                                             std::vector<std::string>& notes) {
  try {
    return InferencePerf(path, notes).translate(root);
  } catch (const YAML::Exception& e) {
    throw UsageError(fmt::format("{}: inference-perf's config: {} (line {})", where(path), e.msg,
                                 e.mark.line + 1));
  }
}

namespace {

// Sets the dotted `key` ("load.stages", "server.base_url") of `root` to `value`, read as YAML
// (JSON for lists and objects, as inference-perf's command line takes them).
void set_key(const YAML::Node& root, const std::string& key, const std::string& value) {
  YAML::Node parsed;
  try {
    parsed = YAML::Load(value);
  } catch (const YAML::Exception& e) {
    throw UsageError(
        fmt::format("inference-perf: --{} '{}' is not a value ({})", key, value, e.msg));
  }
  YAML::Node node = root;
  std::size_t from = 0;
  for (auto dot = key.find('.'); dot != std::string::npos; dot = key.find('.', from)) {
    const std::string part = key.substr(from, dot - from);
    if (!node[part] || !node[part].IsMap()) node[part] = YAML::Node(YAML::NodeType::Map);
    node.reset(node[part]);
    from = dot + 1;
  }
  node[key.substr(from)] = parsed;
}

}  // namespace

std::vector<std::string> inference_perf_command(const std::vector<std::string>& args,
                                                std::vector<std::string>& rest,
                                                std::vector<std::string>& notes) {
  YAML::Node root(YAML::NodeType::Map);
  std::string file;
  std::vector<std::pair<std::string, std::string>> overrides;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    const auto eq = a.find('=');
    const std::string name = a.substr(0, eq);
    const auto value = [&]() -> std::string {
      if (eq != std::string::npos) return a.substr(eq + 1);
      if (i + 1 >= args.size()) throw UsageError("inference-perf: " + name + " needs a value");
      return args[++i];
    };
    if (name == "-c" || name == "--config_file" || name == "--config-file") {
      file = value();
    } else if (name == "--log-level" || name == "--log_level") {
      notes.push_back("inference-perf's " + name + " " + value() +
                      " is ignored: tokenbench's output is the same");
    } else if (name == "-a" || name == "--analyze" || name == "-u" ||
               name == "--unified_analysis_dir") {
      throw UsageError("inference-perf: " + name +
                       " analyses the reports of finished runs: tokenbench report DIR and "
                       "tokenbench compare DIR DIR do that for tokenbench's results");
    } else if (name.starts_with("--") && name.find('.') != std::string::npos) {
      overrides.emplace_back(name.substr(2), value());
    } else {
      rest.push_back(a);  // tokenbench's own, or its value
    }
  }
  if (!file.empty()) {
    root = read_yaml_file(file, "inference-perf: --config_file " + file);
    if (!root.IsMap()) throw UsageError("inference-perf: --config_file " + file + " is not a map");
  }
  // As inference-perf's main.py: the command line's keys deep-merged over the file's.
  for (const auto& [key, value] : overrides) set_key(root, key, value);
  return inference_perf_args(root, file, notes);
}

}  // namespace tokenbench::cli
