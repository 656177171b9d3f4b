#include "tokenbench/records/run_notes.h"

#include <algorithm>
#include <fstream>
#include <stdexcept>
#include <utility>

#include "tokenbench/core/input_limits.h"
#include "tokenbench/core/json_parse.h"
#include "tokenbench/records/results_dir.h"
#include "tokenbench/telemetry/gpu_account.h"
#include "tokenbench/telemetry/server_account.h"

namespace tokenbench::records {

namespace {

std::vector<core::CpuSample> cpu_samples_from_json(const nlohmann::json& line) {
  const auto& t = line.at("t_ns");
  const auto& cpu = line.at("cpu_ns");
  if (!t.is_array() || !cpu.is_array() || t.size() != cpu.size()) {
    throw std::runtime_error("client_cpu: t_ns and cpu_ns must be arrays of one length");
  }
  std::vector<core::CpuSample> out;
  out.reserve(t.size());
  for (std::size_t i = 0; i < t.size(); ++i) {
    if (!t[i].is_number_integer() || !cpu[i].is_number_integer()) {
      throw std::runtime_error("client_cpu: readings must be integers");
    }
    out.push_back({t[i].get<core::Nanos>(), cpu[i].get<core::Nanos>()});
    if (i > 0 && (out[i].t < out[i - 1].t || out[i].cpu < out[i - 1].cpu)) {
      throw std::runtime_error("client_cpu: readings must not go back in time");
    }
  }
  // The run-queue waits (-1: unknown), written by runs since issue 32.
  if (const auto delay = line.find("run_delay_ns"); delay != line.end()) {
    if (!delay->is_array() || delay->size() != t.size()) {
      throw std::runtime_error("client_cpu: run_delay_ns must be an array as long as t_ns");
    }
    for (std::size_t i = 0; i < out.size(); ++i) {
      const auto& d = (*delay)[i];
      if (!d.is_number_integer() || d.get<core::Nanos>() < -1) {
        throw std::runtime_error("client_cpu: run_delay_ns must be integers >= -1");
      }
      out[i].run_delay = d.get<core::Nanos>();
    }
  }
  return out;
}

// One worker's read lag as a telemetry.jsonl line: its histogram's non-empty buckets as
// [index, count] pairs (core::ReadLagHistogram's indices), and its windows as parallel arrays.
nlohmann::json read_lag_to_json(std::size_t worker, const core::ReadLagLog& log) {
  nlohmann::json buckets = nlohmann::json::array();
  const auto& counts = log.total.buckets();
  for (std::size_t i = 0; i < counts.size(); ++i) {
    if (counts[i] > 0) buckets.push_back({i, counts[i]});
  }
  nlohmann::json windows = {{"end_ns", nlohmann::json::array()},
                            {"reads", nlohmann::json::array()},
                            {"p50_ns", nlohmann::json::array()},
                            {"p99_ns", nlohmann::json::array()},
                            {"max_ns", nlohmann::json::array()}};
  for (const auto& w : log.windows) {
    windows["end_ns"].push_back(w.end);
    windows["reads"].push_back(w.reads);
    windows["p50_ns"].push_back(w.p50);
    windows["p99_ns"].push_back(w.p99);
    windows["max_ns"].push_back(w.max);
  }
  return {{"type", "read_lag"},
          {"worker", worker},
          {"reads", log.total.count()},
          {"max_ns", log.total.max()},
          {"buckets", std::move(buckets)},
          {"windows", std::move(windows)}};
}

std::int64_t non_negative(const nlohmann::json& v, const char* what) {
  if (!v.is_number_integer() || v.get<std::int64_t>() < 0) {
    throw std::runtime_error(std::string("read_lag: ") + what + " must be integers >= 0");
  }
  return v.get<std::int64_t>();
}

core::ReadLagLog read_lag_from_json(const nlohmann::json& line) {
  core::ReadLagLog log;
  const auto& buckets = line.at("buckets");
  if (!buckets.is_array()) throw std::runtime_error("read_lag: buckets must be an array");
  for (const auto& b : buckets) {
    if (!b.is_array() || b.size() != 2) {
      throw std::runtime_error("read_lag: each bucket must be [index, count]");
    }
    const auto index = static_cast<std::size_t>(non_negative(b[0], "bucket indices"));
    if (index >= core::ReadLagHistogram::kBuckets) {
      throw std::runtime_error("read_lag: bucket index " + std::to_string(index) +
                               " is out of range");
    }
    log.total.set_bucket(index, static_cast<std::uint64_t>(non_negative(b[1], "counts")));
  }
  log.total.set_max(non_negative(line.at("max_ns"), "max_ns"));
  const auto& w = line.at("windows");
  const char* const keys[] = {"end_ns", "reads", "p50_ns", "p99_ns", "max_ns"};
  for (const char* key : keys) {
    if (!w.at(key).is_array() || w.at(key).size() != w.at("end_ns").size()) {
      throw std::runtime_error("read_lag: windows' arrays must be arrays of one length");
    }
  }
  for (std::size_t i = 0; i < w.at("end_ns").size(); ++i) {
    log.windows.push_back({w["end_ns"][i].get<core::Nanos>(),
                           static_cast<std::uint64_t>(non_negative(w["reads"][i], "reads")),
                           non_negative(w["p50_ns"][i], "p50_ns"),
                           non_negative(w["p99_ns"][i], "p99_ns"),
                           non_negative(w["max_ns"][i], "max_ns")});
  }
  return log;
}

}  // namespace

void write_telemetry(const std::string& dir, const RunNotes& notes) {
  std::string text;
  const auto put = [&text](const nlohmann::json& line) {
    text += line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    text += '\n';
  };
  for (const auto& [label, t] : {std::pair{"measure_start", notes.measure_start},
                                 std::pair{"measure_end", notes.measure_end}}) {
    if (t != core::kNever) put({{"type", "phase"}, {"label", label}, {"t_ns", t}});
  }
  if (notes.gpu_sampler) {
    nlohmann::json line = telemetry::gpu_sampler_to_json(*notes.gpu_sampler);
    line["shared"] = notes.gpu_shared;
    put(line);
  }
  // Scrapes (of every source) and samples interleaved in time order: one time series.
  std::vector<std::pair<const telemetry::Scrape*, const telemetry::ScrapeSource*>> scrapes;
  for (const auto& source : notes.scrape_sources) {
    for (const auto& s : source.scrapes) scrapes.emplace_back(&s, &source);
  }
  std::stable_sort(scrapes.begin(), scrapes.end(),
                   [](const auto& a, const auto& b) { return a.first->t < b.first->t; });
  std::size_t g = 0;
  for (const auto& [s, source] : scrapes) {
    for (; g < notes.gpu_samples.size() && notes.gpu_samples[g].t < s->t; ++g) {
      put(telemetry::gpu_sample_to_json(notes.gpu_samples[g]));
    }
    nlohmann::json line = telemetry::scrape_to_json(*s);
    line["type"] = "scrape";
    line["url"] = source->url;
    line["source"] = source->name;
    line["role"] = source->role;
    put(line);
  }
  for (; g < notes.gpu_samples.size(); ++g)
    put(telemetry::gpu_sample_to_json(notes.gpu_samples[g]));
  for (std::size_t i = 0; i < notes.client_cpu.size(); ++i) {
    nlohmann::json t = nlohmann::json::array();
    nlohmann::json cpu = nlohmann::json::array();
    nlohmann::json delay = nlohmann::json::array();
    bool known = false;
    for (const auto& s : notes.client_cpu[i]) {
      t.push_back(s.t);
      cpu.push_back(s.cpu);
      delay.push_back(s.run_delay);
      known = known || s.run_delay >= 0;
    }
    nlohmann::json line = {{"type", "client_cpu"}, {"worker", i}, {"t_ns", t}, {"cpu_ns", cpu}};
    if (known) line["run_delay_ns"] = std::move(delay);
    put(line);
  }
  for (std::size_t i = 0; i < notes.read_lag.size(); ++i) {
    put(read_lag_to_json(i, notes.read_lag[i]));
  }
  if (notes.probe_rate > 0) {
    put({{"type", "probe_sender"}, {"rate", notes.probe_rate}});
    for (const auto& p : notes.probes) put(telemetry::probe_sample_to_json(p));
  }
  write_text_file(dir + "/" + kTelemetryFile, text);
}

RunNotes read_telemetry(const std::string& dir) {
  RunNotes out;
  const std::string path = dir + "/" + kTelemetryFile;
  std::ifstream in(path);
  if (!in) return out;
  std::string line;
  core::LineReader lines(in, path);
  while (lines.next(line)) {
    const std::size_t number = lines.number();
    if (line.empty()) continue;
    try {
      const auto json = core::parse_json(line);
      const std::string type = json.value("type", "scrape");
      if (type == "scrape") {
        const std::string url = json.value("url", "");
        const std::string name = json.value("source", "");
        auto source = std::find_if(out.scrape_sources.begin(), out.scrape_sources.end(),
                                   [&](const auto& s) { return s.url == url && s.name == name; });
        if (source == out.scrape_sources.end()) {
          source = out.scrape_sources.insert(
              out.scrape_sources.end(),
              telemetry::ScrapeSource{name, url, json.value("role", "replica"), {}});
        }
        source->scrapes.push_back(telemetry::scrape_from_json(json));
      } else if (type == "gpu") {
        out.gpu_samples.push_back(telemetry::gpu_sample_from_json(json));
      } else if (type == "gpu_sampler") {
        out.gpu_sampler = telemetry::gpu_sampler_from_json(json);
        out.gpu_shared = json.value("shared", false);
      } else if (type == "client_cpu") {
        out.client_cpu.push_back(cpu_samples_from_json(json));
      } else if (type == "read_lag") {
        out.read_lag.push_back(read_lag_from_json(json));
      } else if (type == "probe_sender") {
        out.probe_rate = json.value("rate", 0.0);
      } else if (type == "probe") {
        out.probes.push_back(telemetry::probe_sample_from_json(json));
      } else if (type == "phase") {
        const std::string label = json.at("label").get<std::string>();
        const core::Nanos t = json.at("t_ns").get<core::Nanos>();
        if (label == "measure_start") out.measure_start = t;
        if (label == "measure_end") out.measure_end = t;
      }
    } catch (const std::exception& e) {
      throw std::runtime_error(path + " line " + std::to_string(number) + ": " + e.what());
    }
  }
  return out;
}

void write_environment(const std::string& dir, const nlohmann::json& environment) {
  write_json_file(dir + "/" + kEnvironmentFile, environment);
}

nlohmann::json read_environment(const std::string& dir) {
  return read_json_file(dir + "/" + kEnvironmentFile);
}

}  // namespace tokenbench::records
