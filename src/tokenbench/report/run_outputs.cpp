#include "tokenbench/report/run_outputs.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <stdexcept>

#include "tokenbench/core/input_limits.h"
#include "tokenbench/core/json_parse.h"
#include "tokenbench/core/secret_fields.h"
#include "tokenbench/core/text.h"
#include "tokenbench/metrics/buckets.h"
#include "tokenbench/metrics/checks.h"
#include "tokenbench/metrics/model_time.h"
#include "tokenbench/metrics/stream_check.h"
#include "tokenbench/report/console.h"
#include "tokenbench/report/html_report.h"
#include "tokenbench/report/ranks.h"
#include "tokenbench/report/replicas.h"
#include "tokenbench/report/summary_json.h"
#include "tokenbench/telemetry/environment.h"
#include "tokenbench/telemetry/gpu_account.h"
#include "tokenbench/telemetry/server_account.h"
#include "tokenbench/telemetry/timings_account.h"

namespace tokenbench::report {

std::FILE* open_for_writing(const std::string& path) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd < 0) {
    const int err = errno;
    if (err == ELOOP) {
      throw std::runtime_error("cannot write " + path +
                               ": it is a symbolic link, which tokenbench does not write through; "
                               "remove it or choose another --output-dir");
    }
    throw std::runtime_error("cannot write " + path + ": " + std::strerror(err));
  }
  std::FILE* file = ::fdopen(fd, "w");
  if (file == nullptr) {
    const int err = errno;
    ::close(fd);
    throw std::runtime_error("cannot write " + path + ": " + std::strerror(err));
  }
  return file;
}

bool holds_results(const std::string& dir) {
  return std::filesystem::exists(dir + "/" + kRequestsFile) ||
         std::filesystem::exists(dir + "/" + kRequestsZstFile) ||
         std::filesystem::exists(dir + "/" + kSummaryFile);
}

std::string find_requests_file(const std::string& dir) {
  for (const char* name : {kRequestsFile, kRequestsZstFile}) {
    const std::string path = dir + "/" + name;
    std::error_code ec;
    if (std::filesystem::is_regular_file(path, ec)) return path;
  }
  return "";
}

void write_text_file(const std::string& path, const std::string& text) {
  // Write beside the target, then rename: a reader never sees a half-written file, a failed
  // write (a full disk) leaves no .tmp behind, and a link at either name is never followed.
  const std::string tmp = path + ".tmp";
  const auto fail = [&](int err) {
    std::remove(tmp.c_str());
    return std::runtime_error("cannot write " + path + ": " + std::strerror(err));
  };
  std::remove(tmp.c_str());
  std::FILE* out = open_for_writing(tmp);
  const bool written = std::fwrite(text.data(), 1, text.size(), out) == text.size();
  const int write_err = errno;
  if (std::fclose(out) != 0 || !written) throw fail(written ? errno : write_err);
  if (std::rename(tmp.c_str(), path.c_str()) != 0) throw fail(errno);
}

void make_directories(const std::string& dir, std::vector<std::string>& created) {
  std::vector<std::filesystem::path> missing;
  std::error_code ec;
  for (std::filesystem::path p(dir); !p.empty() && !std::filesystem::exists(p, ec);
       p = p.parent_path()) {
    missing.push_back(p);
    if (p == p.parent_path()) break;
  }
  for (auto it = missing.rbegin(); it != missing.rend(); ++it) {
    if (!std::filesystem::create_directory(*it, ec) && ec) {
      throw std::runtime_error("cannot create directory " + it->string() + ": " + ec.message());
    }
    created.push_back(it->string());
  }
  if (!std::filesystem::is_directory(dir, ec)) {
    throw std::runtime_error("cannot write in " + dir + ": it is not a directory");
  }
}

void write_new_file(const std::string& path, const std::string& text,
                    std::vector<std::string>& created) {
  std::error_code ec;
  const bool fresh = !std::filesystem::exists(std::filesystem::symlink_status(path, ec));
  write_text_file(path, text);
  if (fresh) created.push_back(path);
}

void remove_created(const std::vector<std::string>& created) {
  for (auto it = created.rbegin(); it != created.rend(); ++it) {
    std::error_code ec;
    if (std::filesystem::is_directory(*it, ec) && !std::filesystem::is_empty(*it, ec)) continue;
    std::filesystem::remove(*it, ec);
  }
}

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
  return out;
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
  // Scrapes and samples interleaved in time order: one time series.
  std::size_t g = 0;
  for (const auto& s : notes.scrapes) {
    for (; g < notes.gpu_samples.size() && notes.gpu_samples[g].t < s.t; ++g) {
      put(telemetry::gpu_sample_to_json(notes.gpu_samples[g]));
    }
    nlohmann::json line = telemetry::scrape_to_json(s);
    line["type"] = "scrape";
    line["url"] = notes.metrics_url;
    put(line);
  }
  for (; g < notes.gpu_samples.size(); ++g)
    put(telemetry::gpu_sample_to_json(notes.gpu_samples[g]));
  for (std::size_t i = 0; i < notes.client_cpu.size(); ++i) {
    nlohmann::json t = nlohmann::json::array();
    nlohmann::json cpu = nlohmann::json::array();
    for (const auto& s : notes.client_cpu[i]) {
      t.push_back(s.t);
      cpu.push_back(s.cpu);
    }
    put({{"type", "client_cpu"}, {"worker", i}, {"t_ns", t}, {"cpu_ns", cpu}});
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
        out.scrapes.push_back(telemetry::scrape_from_json(json));
        if (out.metrics_url.empty()) out.metrics_url = json.value("url", "");
      } else if (type == "gpu") {
        out.gpu_samples.push_back(telemetry::gpu_sample_from_json(json));
      } else if (type == "gpu_sampler") {
        out.gpu_sampler = telemetry::gpu_sampler_from_json(json);
        out.gpu_shared = json.value("shared", false);
      } else if (type == "client_cpu") {
        out.client_cpu.push_back(cpu_samples_from_json(json));
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

void write_json_file(const std::string& path, const nlohmann::json& document) {
  write_text_file(path,
                  document.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
}

nlohmann::json read_json_file(const std::string& path) {
  if (!std::filesystem::is_regular_file(path)) return nullptr;
  try {
    return core::parse_json(read_text_file(path));
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(path + ": " + e.what());
  }
}

void write_environment(const std::string& dir, const nlohmann::json& environment) {
  write_json_file(dir + "/" + kEnvironmentFile, environment);
}

nlohmann::json read_environment(const std::string& dir) {
  return read_json_file(dir + "/" + kEnvironmentFile);
}

std::string read_text_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path + ": " + std::strerror(errno));
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

namespace {

// Warnings that need the configuration: simulated time, and a 404 that names a wrong endpoint.
void add_config_warnings(metrics::Summary& s, const core::RunConfig& config) {
  if (config.sim_time_scale != 1.0) {
    s.warnings.push_back(
        config.sim_time
            ? fmt::format("simulated time: serve-sim ran {:g}x faster than the deployment it "
                          "models; figures are rescaled to its model time (--sim-time)",
                          config.sim_time_scale)
            : fmt::format("simulated time: serve-sim runs {:g}x faster than the deployment it "
                          "models, so latencies are {:g}x shorter and rates {:g}x higher than "
                          "the model's; --sim-time reports model time",
                          config.sim_time_scale, config.sim_time_scale, config.sim_time_scale));
  }
  if (s.http_status.contains(404)) {
    s.warnings.push_back(fmt::format(
        "HTTP 404 on {}: --api {} requests usually go to {}; check --endpoint, --api (openai-chat, "
        "openai, openai-embeddings, anthropic-messages, openai-responses) and --model",
        core::redact_query(config.endpoint), core::to_string(config.api),
        core::default_endpoint(config.api)));
  }
}

}  // namespace

RunOutputs write_run_outputs(const std::string& dir,
                             const std::vector<core::RequestRecord>& records,
                             const core::RunConfig& config, const RunNotes& notes) {
  const std::string& stopped = notes.stopped;
  metrics::SummaryOptions options;
  options.percentiles = config.percentiles;
  options.slo = metrics::parse_slo(config.goodput);
  RunOutputs out;
  // Under --sim-time every figure of the server is in the simulator's model time; the client's
  // own costs (queue time, CPU) stay real (metrics/model_time.h).
  const double factor = metrics::model_time_factor(config);
  const std::vector<core::RequestRecord> model =
      factor != 1.0 ? metrics::in_model_time(records, factor) : std::vector<core::RequestRecord>{};
  const std::vector<core::RequestRecord>& figures = factor != 1.0 ? model : records;
  out.summary = metrics::summarize(figures, options);
  add_config_warnings(out.summary, config);
  if (!stopped.empty()) out.summary.warnings.push_back("stopped early: " + stopped);
  // Server text in error examples may be invalid UTF-8: replaced, never a lost summary.
  out.summary_json = summary_to_json(out.summary, config);
  out.summary_json["tokenbench"]["stopped"] =
      stopped.empty() ? nlohmann::json() : nlohmann::json(stopped);
  out.console = render_console_report(out.summary, config);
  if (out.summary.completed > 0) {
    const metrics::Checks checks =
        metrics::run_checks(records, out.summary, config, notes.client_cpu);
    out.summary_json["tokenbench"]["checks"] = metrics::checks_to_json(checks);
    out.console += metrics::render_checks(checks);
    if (const auto stream = metrics::stream_check(figures)) {
      out.summary_json["tokenbench"]["checks"]["stream_vs_nonstream"] =
          metrics::stream_check_to_json(*stream);
      out.console += metrics::render_stream_check(*stream);
    }
  }
  if (!notes.scrapes.empty()) {
    const telemetry::ServerAccount account =
        telemetry::account_for(notes.scrapes, notes.metrics_url, out.summary, factor);
    out.summary_json["tokenbench"]["server"] = telemetry::account_to_json(account);
    out.console += telemetry::render_account(account, out.summary);
  }
  if (notes.gpu_sampler) {
    const telemetry::GpuAccount gpu =
        telemetry::gpu_account_for(notes.gpu_samples, *notes.gpu_sampler, notes.measure_start,
                                   notes.measure_end, out.summary, notes.gpu_shared);
    out.summary_json["tokenbench"]["gpu"] = telemetry::gpu_account_to_json(gpu);
    out.console += telemetry::render_gpu_account(gpu);
  }
  if (const auto timings = telemetry::timings_account(figures)) {
    out.summary_json["tokenbench"]["server_timings"] = telemetry::timings_account_to_json(*timings);
    out.console += telemetry::render_timings_account(*timings);
  }
  if (!config.buckets.empty()) {
    nlohmann::json list = nlohmann::json::array();
    for (const auto& item : config.buckets) {
      const metrics::BucketSpec spec = metrics::parse_bucket_spec(item);
      const auto buckets = metrics::bucketed(figures, spec, options);
      list.push_back(metrics::buckets_to_json(spec, buckets));
      out.console += metrics::render_buckets(spec, buckets);
    }
    out.summary_json["tokenbench"]["buckets"] = std::move(list);
  }
  if (config.replica_urls.size() > 1) {
    const auto replicas =
        per_replica(figures, config.replica_urls, options, out.summary.duration_s);
    out.summary_json["tokenbench"]["replicas"] = replicas_to_json(replicas);
    out.console += render_replicas(replicas, out.summary, core::to_string(config.balance));
  }
  if (!notes.distributed.is_null()) {
    out.summary_json["tokenbench"]["distributed"] = notes.distributed;
    out.console += render_ranks(notes.distributed);
  }
  if (!notes.environment.is_null()) {
    out.summary_json["tokenbench"]["environment"] = notes.environment;
    out.console += telemetry::render_environment(notes.environment);
  }
  // Last line of defence: whatever part quoted a server, no escape sequence reaches a terminal.
  out.console = core::terminal_safe(out.console);
  // The summary is the result: written first, while there is room (a reserve made at the run's
  // start is given back for it), and the rest only after it. Any other file that cannot be
  // written is a warning.
  const std::string summary_text =
      out.summary_json.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  release_reserve(dir);
  try {
    write_text_file(dir + "/" + kSummaryFile, summary_text);
  } catch (const std::exception& e) {
    out.not_saved = e.what();
  }
  write_optional_file(dir + "/" + kReportFile, [&] { return out.console; });
  // vLLM's --result-filename: the same result under the name a vLLM script looks for.
  if (!config.result_filename.empty()) {
    write_optional_file(dir + "/" + config.result_filename, [&] { return summary_text; });
  }
  // The page shows config.yaml as stored (secrets redacted), so that `report` rebuilds the same.
  write_optional_file(dir + "/" + kHtmlReportFile, [&] {
    const std::string config_path = dir + "/" + kConfigFile;
    const std::string config_yaml = std::filesystem::is_regular_file(config_path)
                                        ? read_text_file(config_path)
                                        : core::to_yaml(config);
    return render_html_report(
        html_report_data(figures, out.summary_json, out.console, config_yaml, notes));
  });
  return out;
}

bool write_optional_file(const std::string& path, const std::function<std::string()>& text) {
  return write_optional([&] { write_text_file(path, text()); });
}

bool write_optional(const std::function<void()>& write) {
  try {
    write();
    return true;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tokenbench: warning: %s; the run goes on without it\n",
                 core::one_line(e.what()).c_str());
    return false;
  }
}

void make_reserve(const std::string& dir) {
  const std::string path = dir + "/" + kReserveFile;
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) return;
  const bool made = ::posix_fallocate(fd, 0, kReserveBytes) == 0;
  ::close(fd);
  if (!made) std::remove(path.c_str());
}

void release_reserve(const std::string& dir) { std::remove((dir + "/" + kReserveFile).c_str()); }

}  // namespace tokenbench::report
