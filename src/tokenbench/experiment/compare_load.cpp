// What `tokenbench compare` reads from a results directory, and the check that two runs measured
// the same workload on the same target (compare.h).

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <array>
#include <filesystem>
#include <stdexcept>
#include <string_view>
#include <utility>

#include "tokenbench/core/json_parse.h"
#include "tokenbench/core/run_options.h"
#include "tokenbench/experiment/compare.h"
#include "tokenbench/experiment/journal.h"
#include "tokenbench/metrics/model_time.h"
#include "tokenbench/metrics/stride_sample.h"
#include "tokenbench/metrics/summary_builder.h"
#include "tokenbench/records/records_io.h"
#include "tokenbench/records/results_dir.h"

namespace tokenbench::experiment {
namespace {

using metrics::kUndefined;

// config.yaml keys that do not change what is measured (compare.h, config_differences): the
// option table's rows that are not part of the workload identity (core/run_options.h).
const std::vector<std::string>& not_compared() {
  static const std::vector<std::string> paths = core::not_compared_paths();
  return paths;
}

// A different seed draws other prompts and arrivals from the same workload: a fair repeat.
constexpr std::string_view kTolerated = "load.seed";

// config.yaml as (dotted path, value) pairs in file order; maps are descended into, any other
// node is one value (a sequence written in flow style).
void flatten(const YAML::Node& node, const std::string& path,
             std::vector<std::pair<std::string, std::string>>& out) {
  if (node.IsMap()) {
    for (const auto& item : node) {
      const std::string key = item.first.as<std::string>();
      flatten(item.second, path.empty() ? key : fmt::format("{}.{}", path, key), out);
    }
    return;
  }
  if (node.IsScalar()) {
    out.emplace_back(path, node.Scalar());
    return;
  }
  YAML::Emitter text;
  text << YAML::Flow << node;
  out.emplace_back(path, text.c_str());
}

// The numbers of summary.json that compare uses, or the records' own summary without one.
// The run-level rates, from DIR/summary.json; without one, from `summary`, the records' own
// (metrics::SummaryBuilder fed every record: the code that wrote summary.json).
void read_run_level(const std::string& dir, const metrics::SummaryBuilder& all, RunSample& sample) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const std::string summary_path = dir + "/" + records::kSummaryFile;
  if (!fs::is_regular_file(summary_path, ec)) {
    const metrics::Summary s = all.finish();
    sample.request_throughput = s.request_throughput;
    sample.output_throughput = s.output_throughput;
    sample.total_token_throughput = s.total_token_throughput;
    sample.request_goodput = s.slo.empty() ? kUndefined : s.request_goodput;
    return;
  }
  nlohmann::json summary;
  try {
    summary = core::parse_json(records::read_text_file(summary_path));
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(fmt::format("{}: {}", summary_path, e.what()));
  }
  const auto number = [&](const char* key) {
    const auto it = summary.find(key);
    return it != summary.end() && it->is_number() ? it->get<double>() : kUndefined;
  };
  sample.request_throughput = number("request_throughput");
  sample.output_throughput = number("output_throughput");
  sample.total_token_throughput = number("total_token_throughput");
  sample.request_goodput = number("request_goodput");
}

// DIR/config.yaml, when there is one, and the goodput objectives it names.
void read_config(const std::string& dir, RunSample& sample) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const std::string path = dir + "/" + records::kConfigFile;
  if (!fs::is_regular_file(path, ec)) return;
  try {
    sample.config = core::run_config_from_yaml(records::read_text_file(path));
    sample.goodput = metrics::parse_slo(sample.config->goodput);
  } catch (const std::exception& e) {
    throw std::runtime_error(fmt::format("{}: {}", path, e.what()));
  }
}

}  // namespace

std::vector<std::pair<std::string, std::string>> workload_values(const core::RunConfig& config) {
  std::vector<std::pair<std::string, std::string>> out;
  flatten(YAML::Load(core::to_yaml(config)), "", out);
  std::erase_if(out, [](const auto& kv) {
    return std::find(not_compared().begin(), not_compared().end(), kv.first) !=
           not_compared().end();
  });
  return out;
}

RunSample load_run_sample(const std::string& dir, std::size_t max_records) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    throw std::runtime_error(fmt::format("{} is not a directory", dir));
  }
  const std::string requests = records::find_requests_file(dir);
  if (requests.empty()) {
    if (const std::string hint = experiment_root_hint(dir); !hint.empty()) {
      throw std::runtime_error(hint);
    }
    throw std::runtime_error(
        fmt::format("{} has no {}: pass a results directory written by `tokenbench run`", dir,
                    records::kRequestsFile));
  }
  RunSample sample;
  sample.dir = dir;
  read_config(dir, sample);
  metrics::SummaryOptions options;
  options.slo = sample.goodput;
  metrics::SummaryBuilder all(options);
  // A --sim-time run is compared in the model's time, as its summary.json and tables show it.
  const double factor = sample.config ? metrics::model_time_factor(*sample.config) : 1.0;
  // The measure phase's records in the order read (the order they ended): all of them up to
  // max_records, then every 2nd, 4th, ..., so that memory is bounded.
  metrics::StrideSample<core::RequestRecord> kept(max_records);
  records::RecordsReadReport read;
  records::for_each_record(
      requests,
      [&](core::RequestRecord&& r) {
        if (factor != 1.0) metrics::rescale_to_model_time(r, factor);
        all.add(r);
        if (r.phase != core::Phase::kMeasure) return;
        if (!r.retried) {  // counted as metrics::summarize and the bootstrap count them
          ++sample.requests;
          if (!r.ok()) ++sample.failed;
        }
        kept.add([&r] { return std::move(r); });
      },
      &read);
  sample.warning = read.warning;
  if (kept.kept().empty()) {
    throw std::runtime_error(fmt::format("{} has no measure-phase request", requests));
  }
  sample.records.reserve(kept.kept().size());
  for (auto& [place, r] : kept.kept()) sample.records.push_back(std::move(r));
  kept.kept() = {};
  sample.measured = kept.seen();
  sample.stride = kept.stride();
  const auto send_key = [](const core::RequestRecord& r) {
    return std::make_pair(r.sent != core::kNever ? r.sent : r.scheduled, r.id);
  };
  std::stable_sort(sample.records.begin(), sample.records.end(),
                   [&](const auto& a, const auto& b) { return send_key(a) < send_key(b); });
  read_run_level(dir, all, sample);
  return sample;
}

std::vector<ConfigDifference> config_differences(const core::RunConfig& base,
                                                 const core::RunConfig& next) {
  const auto a = workload_values(base);
  const auto b = workload_values(next);
  const auto value_in = [](const auto& flat, const std::string& key) -> const std::string* {
    for (const auto& [k, v] : flat) {
      if (k == key) return &v;
    }
    return nullptr;
  };
  const std::string absent = "(absent)";
  std::vector<ConfigDifference> out;
  const auto add = [&](const std::string& key, const std::string* va, const std::string* vb) {
    if (va != nullptr && vb != nullptr && *va == *vb) return;
    out.push_back(
        {key, va != nullptr ? *va : absent, vb != nullptr ? *vb : absent, key == kTolerated});
  };
  for (const auto& [key, value] : a) add(key, &value, value_in(b, key));
  for (const auto& [key, value] : b) {
    if (value_in(a, key) == nullptr) add(key, nullptr, &value);
  }
  return out;
}

std::string describe_refused(const std::vector<ConfigDifference>& differences) {
  std::string out;
  for (const ConfigDifference& d : differences) {
    if (d.tolerated) continue;
    if (!out.empty()) out += ", ";
    out += fmt::format("{} ({} -> {})", d.field, d.base, d.next);
  }
  return out;
}

}  // namespace tokenbench::experiment
