#include "tokenbench/report/prometheus_export.h"

#include <fmt/format.h>

#include <cctype>
#include <cmath>
#include <map>
#include <utility>
#include <vector>

namespace tokenbench::report {
namespace {

using nlohmann::json;

// A metric or label name: letters, digits and '_' (others become '_'), not starting with a digit.
std::string sanitized(const std::string& name) {
  std::string out;
  out.reserve(name.size() + 1);
  for (const char c : name) {
    out += std::isalnum(static_cast<unsigned char>(c)) != 0 ? c : '_';
  }
  if (out.empty() || std::isdigit(static_cast<unsigned char>(out.front())) != 0) {
    out.insert(out.begin(), '_');
  }
  return out;
}

// A label value escaped as the text format asks: \\, \" and \n.
std::string escaped(const std::string& value) {
  std::string out;
  out.reserve(value.size());
  for (const char c : value) {
    if (c == '\\' || c == '"') out += '\\';
    out += c == '\n' ? std::string("\\n") : std::string(1, c);
  }
  return out;
}

using Labels = std::vector<std::pair<std::string, std::string>>;

std::string label_text(const Labels& labels) {
  std::string out;
  for (const auto& [name, value] : labels) {
    out += fmt::format("{}{}=\"{}\"", out.empty() ? "" : ",", name, escaped(value));
  }
  return out;
}

// Gauges by family, each with its samples, in the order first met.
class Exposition {
 public:
  void add(const std::string& name, const std::string& help, const Labels& labels, double v) {
    if (!std::isfinite(v)) return;  // undefined figures are left out, not NaN
    const std::string family = "tokenbench_" + sanitized(name);
    auto it = index_.find(family);
    if (it == index_.end()) {
      it = index_.emplace(family, families_.size()).first;
      families_.push_back({family, help, {}});
    }
    families_[it->second].samples += fmt::format("{}{{{}}} {}\n", family, label_text(labels), v);
  }

  std::string text() const {
    std::string out;
    for (const auto& f : families_) {
      out += fmt::format("# HELP {} {}\n# TYPE {} gauge\n", f.name, f.help, f.name);
      out += f.samples;
    }
    return out;
  }

 private:
  struct Family {
    std::string name;
    std::string help;
    std::string samples;
  };
  std::vector<Family> families_;
  std::map<std::string, std::size_t> index_;
};

double number_at(const json& o, const char* key) {
  const auto it = o.find(key);
  return it != o.end() && it->is_number() ? it->get<double>() : std::nan("");
}

}  // namespace

std::string summary_to_prometheus(const json& summary) {
  const json tb = summary.value("tokenbench", json::object());
  Labels base{{"model", summary.value("model_id", "")}, {"backend", summary.value("backend", "")}};
  const json labels = tb.value("environment", json::object()).value("labels", json::object());
  for (const auto& [name, value] : labels.items()) {
    base.emplace_back("label_" + sanitized(name),
                      value.is_string() ? value.get<std::string>() : value.dump());
  }
  Exposition e;
  Labels info = base;
  info.emplace_back("date", summary.value("date", ""));
  e.add("run_info", "The run these figures come from (its labels; value 1)", info, 1);
  for (const auto& [key, value] : summary.items()) {
    if (value.is_number()) e.add(key, "summary.json's " + key, base, value.get<double>());
  }
  // The server's speculative decoding (docs/TELEMETRY.md).
  const json spec = tb.value("server", json::object()).value("speculative_decoding", json());
  if (spec.is_object()) {
    e.add("spec_decode_acceptance_rate", "accepted / draft tokens over the measure phase", base,
          number_at(spec, "acceptance_rate"));
    e.add("spec_decode_acceptance_length", "1 + accepted / drafts over the measure phase", base,
          number_at(spec, "acceptance_length"));
  }
  // Each member of a LoRA or model mix (docs/METRICS.md).
  const json mix = tb.value("mix", json());
  if (mix.is_object()) {
    const std::string kind = mix.value("kind", "lora");
    for (const auto& m : mix.value("members", json::array())) {
      Labels member = base;
      member.emplace_back(kind == "lora" ? "adapter" : "mix_model", m.value("name", ""));
      for (const char* key : {"completed", "failed", "request_throughput", "output_throughput",
                              "median_ttft_ms", "p95_ttft_ms", "p99_ttft_ms", "mean_tpot_ms",
                              "p95_tpot_ms", "median_e2el_ms", "p95_e2el_ms", "p99_e2el_ms"}) {
        e.add(std::string("mix_") + key, std::string("a mix member's ") + key, member,
              number_at(m, key));
      }
    }
  }
  return e.text();
}

}  // namespace tokenbench::report
