#include "tokenbench/cli/config_file.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <optional>
#include <set>

#include "tokenbench/cli/inference_perf_config.h"
#include "tokenbench/cli/run_flags.h"
#include "tokenbench/core/run_options.h"
#include "tokenbench/records/results_dir.h"

namespace tokenbench::cli {
namespace {

using Kind = core::ConfigRule;

struct Rule {
  std::string_view key;
  std::string_view flag;
  Kind kind;
};

// Keys a hand-written file may use that config.yaml does not (its own are the option table's,
// core/run_options.h).
constexpr Rule kExtraRules[] = {
    {"header", "--header", Kind::kRepeat},
    {"target", "--target", Kind::kRepeat},
    {"label", "--label", Kind::kRepeat},
    {"duration", "--duration", Kind::kNonZero},
    {"ramp_up_duration", "--ramp-up-duration", Kind::kNonZero},
};

// The rule of config.yaml key `key`: the option table's row (its flag, its rule), or a hand-written
// file's spelling; nullopt: the generic rule (--KEY, by the value's shape).
std::optional<Rule> rule_of(const std::string& key) {
  for (const auto& r : kExtraRules) {
    if (key == r.key) return r;
  }
  const core::RunOption* row = core::find_option_by_key(key);
  if (row == nullptr || row->rule == Kind::kGeneric) return std::nullopt;
  return Rule{row->key, row->flag, row->rule};
}

// config.yaml's sections, read as if their keys were at the top.
constexpr const char* kSections[] = {"target", "load", "workload", "metrics"};

// "--config FILE" or "--config=FILE" at index i; the file, or "" when args[i] is not it.
std::string config_path_at(const std::vector<std::string>& args, std::size_t& i) {
  if (args[i] == "--config") {
    if (i + 1 >= args.size()) throw UsageError("--config needs a YAML file, e.g. config.yaml");
    return args[++i];
  }
  if (args[i].rfind("--config=", 0) == 0) return args[i].substr(9);
  return "";
}

class Expander {
 public:
  Expander(std::string path, const std::function<bool(const std::string&)>& known,
           std::vector<std::string>& notes)
      : path_(std::move(path)), known_(known), notes_(notes) {}

  std::vector<std::string> expand(const YAML::Node& root) {
    if (!root.IsMap()) fail("the file must be a map of settings (flag: value)");
    // Replicas name every base URL, the first included: base_url is then redundant.
    const bool replicas = root["target"] && root["target"].IsMap() && root["target"]["replicas"];
    // A run that took its output lengths from its dataset did not give --output-len: its
    // output_len is the default, and repeating it as a flag would replace the dataset's lengths.
    const YAML::Node workload = root["workload"];
    const bool lengths_from_dataset =
        workload && workload.IsMap() && workload["output_len_from_dataset"] &&
        truth("output_len_from_dataset", workload["output_len_from_dataset"]);
    for (const auto& item : root) {
      const std::string key = item.first.as<std::string>();
      const bool section = std::any_of(std::begin(kSections), std::end(kSections),
                                       [&](const char* s) { return key == s; });
      if (section && item.second.IsMap()) {
        // A config.yaml from before abort_on_error_rate: its max_error_rate was the in-run stop.
        const bool legacy_error_rate =
            item.second["max_error_rate"] && !item.second["abort_on_error_rate"];
        for (const auto& inner : item.second) {
          const std::string k = inner.first.as<std::string>();
          if (replicas && k == "base_url") continue;
          if (lengths_from_dataset && k == "output_len") continue;
          add(legacy_error_rate && k == "max_error_rate" ? "abort_on_error_rate" : k, inner.second);
        }
      } else {
        add(key, item.second);
      }
    }
    return std::move(out_);
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw UsageError(fmt::format("--config {}: {}", path_, what));
  }

  // YAML's special floats as a flag's text (".nan" is refused by name as the flag's NaN).
  static std::string scalar(const YAML::Node& n) {
    const std::string& s = n.Scalar();
    for (const char* special :
         {".inf", "-.inf", "+.inf", ".nan", ".Inf", "-.Inf", ".NaN", ".INF", "-.INF", ".NAN"}) {
      if (s == special) {
        std::string flag_text = s;
        flag_text.erase(flag_text.find('.'), 1);
        return flag_text;
      }
    }
    return s;
  }

  bool truth(const std::string& key, const YAML::Node& n) const {
    try {
      return n.as<bool>();
    } catch (const YAML::Exception&) {
      fail("'" + key + "' must be true or false");
    }
  }

  std::vector<std::string> items(const YAML::Node& n) const {
    std::vector<std::string> v;
    if (n.IsSequence()) {
      for (const auto& x : n) v.push_back(scalar(x));
    } else if (n.IsScalar()) {
      v.push_back(scalar(n));
    }
    return v;
  }

  void put(const std::string& flag, const std::string& value) {
    out_.push_back(flag);
    out_.push_back(value);
  }

  void add(const std::string& raw_key, const YAML::Node& value) {
    std::string key = raw_key;
    std::replace(key.begin(), key.end(), '-', '_');
    std::optional<Rule> rule = rule_of(key);
    std::string flag;
    if (rule) {
      flag = std::string(rule->flag);
    } else {
      flag = "--" + key;
      std::replace(flag.begin(), flag.end(), '_', '-');
      if (!known_(flag)) {
        fail("unknown setting '" + raw_key +
             "'; settings are flag names without their dashes (see tokenbench run --help)");
      }
      rule = Rule{"", "", value.IsSequence() ? Kind::kRepeat : Kind::kValue};
      if (value.IsScalar() && (value.Scalar() == "true" || value.Scalar() == "false")) {
        rule->kind = Kind::kIfTrue;
      }
    }
    switch (rule->kind) {
      case Kind::kGeneric:
      case Kind::kSkip:
        return;
      case Kind::kValue:
        if (!value.IsScalar()) fail("'" + raw_key + "' must be a single value");
        if (!value.Scalar().empty()) put(flag, scalar(value));
        return;
      case Kind::kNonZero:
        if (!value.IsScalar()) fail("'" + raw_key + "' must be a single value");
        if (value.Scalar() != "0" && !value.Scalar().empty()) put(flag, scalar(value));
        return;
      case Kind::kIfTrue:
        if (truth(raw_key, value)) out_.push_back(flag);
        return;
      case Kind::kIfFalse:
        if (!truth(raw_key, value)) out_.push_back(flag);
        return;
      case Kind::kRepeat:
        for (const auto& v : items(value)) {
          if (flag == "--header" && v.find("<redacted>") != std::string::npos) {
            notes_.push_back("--config " + path_ + ": the secret header '" +
                             v.substr(0, v.find(':')) + "' was redacted there: give it again " +
                             "with --header");
            continue;
          }
          if (flag == "--otlp-header" && v.find("=<redacted>") != std::string::npos) {
            notes_.push_back("--config " + path_ + ": the --otlp-header '" +
                             v.substr(0, v.find('=')) + "' was redacted there: give it again " +
                             "with --otlp-header");
            continue;
          }
          put(flag, v);
        }
        return;
      case Kind::kJoin: {
        std::string joined;
        for (const auto& v : items(value)) joined += (joined.empty() ? "" : ",") + v;
        if (!joined.empty()) put(flag, joined);
        return;
      }
      case Kind::kMulti: {
        const auto v = items(value);
        if (v.empty()) return;
        out_.push_back(flag);
        out_.insert(out_.end(), v.begin(), v.end());
        return;
      }
      case Kind::kTargets:
        if (!value.IsSequence()) fail("'targets' must be a list");
        for (const auto& t : value) {
          std::string item = "model=" + t["model"].as<std::string>("");
          const auto field = [&](const char* yaml_key, const char* name) {
            const std::string v = t[yaml_key].as<std::string>("");
            if (!v.empty()) item += std::string(",") + name + "=" + v;
          };
          field("base_url", "url");
          field("api_key_env", "key-env");
          field("name", "name");
          put(flag, item);
        }
        return;
    }
  }

  std::string path_;
  const std::function<bool(const std::string&)>& known_;
  std::vector<std::string>& notes_;
  std::vector<std::string> out_;
};

// The flag an argument names ("--x" of "--x=1"); "" for a value.
std::string flag_name(const std::string& a) {
  if (a.size() < 2 || a[0] != '-') return "";
  return a.substr(0, a.find('='));
}

}  // namespace

std::vector<std::string> expand_config(const std::vector<std::string>& args,
                                       const std::function<bool(const std::string&)>& known_flag,
                                       std::vector<std::string>& notes) {
  std::string path;
  std::vector<std::string> rest;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string p = config_path_at(args, i);
    if (p.empty()) {
      rest.push_back(args[i]);
    } else if (!path.empty()) {
      throw UsageError("--config is given twice: give one file");
    } else {
      path = p;
    }
  }
  if (path.empty()) return args;
  const YAML::Node root = read_yaml_file(path, "--config " + path);
  std::vector<std::string> from_file = is_inference_perf_config(root)
                                           ? inference_perf_args(root, path, notes)
                                           : Expander(path, known_flag, notes).expand(root);
  return flags_over(from_file, rest);
}

YAML::Node read_yaml_file(const std::string& path, const std::string& label) {
  try {
    return YAML::Load(records::read_text_file(path));
  } catch (const YAML::Exception& e) {
    throw UsageError(
        fmt::format("{}: not valid YAML ({}, line {})", label, e.msg, e.mark.line + 1));
  } catch (const std::exception& e) {
    throw UsageError(fmt::format("{}: {}", label, e.what()));
  }
}

std::vector<std::string> flags_over(const std::vector<std::string>& from_file,
                                    const std::vector<std::string>& rest) {
  // A flag on the command line replaces every value the file gave it.
  std::set<std::string> given;
  for (const auto& a : rest) {
    if (const auto f = flag_name(a); !f.empty()) given.insert(f);
  }
  std::vector<std::string> out;
  for (std::size_t i = 0; i < from_file.size(); ++i) {
    const std::string& f = from_file[i];
    std::size_t j = i + 1;
    while (j < from_file.size() && flag_name(from_file[j]).empty()) ++j;
    if (!given.contains(f)) out.insert(out.end(), from_file.begin() + i, from_file.begin() + j);
    i = j - 1;
  }
  out.insert(out.end(), rest.begin(), rest.end());
  return out;
}

}  // namespace tokenbench::cli
